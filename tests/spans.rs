//! Each round runs in a `mrtr.round` span: method, target, round, flow id and resume point,
//! then the outcome (with the keys asked, or the reason of a refusal) and the duration. The
//! token never appears in it.

mod support;

use mrtr::testing::{Harness, answer};
use mrtr::{Form, ToolError, elicit};
use serde_json::json;
use support::Sink;
use tracing_subscriber::fmt::format::FmtSpan;

#[derive(Form)]
struct Login {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let login = ask!(elicit::form::<Login>("Who are you?")).accepted()?;
    Ok(format!("Hello, {}!", login.name))
}

/// The closed `mrtr.round` spans written so far, one line each.
fn rounds(sink: &Sink) -> Vec<String> {
    sink.take()
        .lines()
        .filter(|line| line.contains("mrtr.round") && line.contains("close"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn every_round_has_a_span_with_its_outcome() {
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let harness = Harness::tool(greet);
    let first = harness.call(json!({})).await;
    let state = first.state();
    first
        .answer([("login", answer::accept(json!({"name": "Ada"})))])
        .await;
    first.answer([("login", answer::decline())]).await;
    first.retry().state(first.tampered_state()).send().await;

    let rounds = rounds(&sink);
    assert_eq!(rounds.len(), 4, "{rounds:#?}");
    for line in &rounds {
        assert!(line.contains(r#"mcp.method.name="tools/call""#), "{line}");
        assert!(line.contains(r#"gen_ai.tool.name="greet""#), "{line}");
        assert!(line.contains("mrtr.duration_us="), "{line}");
        assert!(
            !line.contains(&state),
            "the token is never in a span: {line}"
        );
    }
    let (asked, done, declined, tampered) = (&rounds[0], &rounds[1], &rounds[2], &rounds[3]);
    assert!(
        asked.contains(r#"mrtr.outcome="input_required""#),
        "{asked}"
    );
    assert!(asked.contains(r#"mrtr.keys="login""#), "{asked}");
    assert!(
        asked.contains("mrtr.round=1") && asked.contains("mrtr.resume=0"),
        "{asked}"
    );
    assert!(done.contains(r#"mrtr.outcome="complete""#), "{done}");
    assert!(done.contains("mrtr.round=2"), "{done}");
    assert!(
        !done.contains("mrtr.resume=0"),
        "a retry resumes at the ask: {done}"
    );
    let flow = |line: &str| {
        line.split("mrtr.flow=")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned)
    };
    assert!(flow(asked).is_some());
    assert_eq!(flow(asked), flow(done), "both rounds belong to one flow");
    assert!(
        declined.contains(r#"mrtr.outcome="tool_error""#),
        "{declined}"
    );
    assert!(tampered.contains(r#"mrtr.outcome="refused""#), "{tampered}");
    assert!(tampered.contains("mrtr.reason=\"-32602"), "{tampered}");
}
