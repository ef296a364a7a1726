//! A round that never finishes fails its test on the harness's timeout instead of hanging.
#![cfg(feature = "testing")]

use std::time::Duration;

use mrtr_runtime::BoxFuture;
use mrtr_runtime::machine::{Machine, Outcome, Step, StepError, Tool, ToolDescriptor};
use mrtr_runtime::testing::{DEFAULT_ROUND_TIMEOUT, Harness};
use mrtr_runtime::token::Fingerprint;
use serde_json::json;

/// Waits forever, as a machine that spins on an answer it never consumes would.
struct Hangs;

impl Machine for Hangs {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"hangs")
    }
    fn step<'a>(&'a self, _: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(std::future::pending())
    }
}

impl Tool for Hangs {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("hangs", json!({"type": "object"}))
    }
}

#[tokio::test]
#[should_panic(expected = "the round did not finish within 200ms")]
async fn a_hanging_round_fails_on_the_timeout() {
    let harness = Harness::builder_for_tool(Hangs)
        .timeout(Duration::from_millis(200))
        .build();
    harness.call(json!({})).await;
}

#[test]
fn the_default_timeout_is_finite() {
    assert_eq!(DEFAULT_ROUND_TIMEOUT, Duration::from_secs(30));
}
