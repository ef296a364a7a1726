//! Single use: a state redeemed once, across instances sharing a Redis store; and, for
//! contrast, an ordinary tool whose replayed state runs its step again (which is why the
//! idempotency key exists).

mod support;

use std::sync::Arc;

use mrtr::{Context, Form, ReplayStore, Server, ToolError, elicit};
use serde_json::json;
use support::{Client, Counters, accept};

#[derive(Form)]
struct Confirm {
    ok: bool,
}

/// Redeems a voucher once.
#[mrtr::tool(single_use)]
async fn redeem(cx: &Context) -> Result<String, ToolError> {
    let confirm = ask!(elicit::form::<Confirm>("Redeem the voucher?"));
    cx.state::<Arc<Counters>>().hit("redeemed");
    Ok(format!("redeemed: {}", confirm.accepted()?.ok))
}

/// The same, without single use.
#[mrtr::tool]
async fn redeem_again(cx: &Context) -> Result<String, ToolError> {
    let confirm = ask!(elicit::form::<Confirm>("Redeem the voucher?"));
    cx.state::<Arc<Counters>>().hit("redeemed");
    Ok(format!("redeemed: {}", confirm.accepted()?.ok))
}

fn instance(counters: &Arc<Counters>, store: impl ReplayStore) -> Server {
    Server::builder("vouchers", "1.0.0")
        .key_ring(support::ring(4))
        .state(Arc::clone(counters))
        .replay_store(store)
        .tool(redeem)
        .tool(redeem_again)
        .build()
        .unwrap()
}

/// Round 1 on the first instance, then `retries` concurrent retries of its state spread over
/// the instances; returns how many were accepted and the step count.
async fn race(
    tool: &str,
    instances: &[Server],
    counters: &Counters,
    retries: usize,
) -> (usize, usize) {
    let first = Client::new(instances[0].clone())
        .call(tool, json!({}), None, None)
        .await;
    let state = first.state();
    let answer = json!({"confirm": accept(json!({"ok": true}))});
    let calls = (0..retries).map(|index| {
        let client = Client::new(instances[index % instances.len()].clone());
        let (state, answer) = (state.clone(), answer.clone());
        async move {
            client
                .call(tool, json!({}), Some(answer), Some(&state))
                .await
        }
    });
    let replies = futures_join_all(calls).await;
    let accepted = replies
        .iter()
        .filter(|reply| reply.0.get("result").is_some())
        .count();
    for refused in replies
        .iter()
        .filter(|reply| reply.0.get("error").is_some())
    {
        assert_eq!(refused.error_code(), -32602);
    }
    (accepted, counters.get("redeemed"))
}

/// Polls every future concurrently on the current task (no extra dependency).
async fn futures_join_all<F: std::future::Future>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output> {
    let handles: Vec<_> = futures.map(|future| Box::pin(future)).collect();
    let mut outputs: Vec<Option<F::Output>> = handles.iter().map(|_| None).collect();
    let mut handles: Vec<Option<_>> = handles.into_iter().map(Some).collect();
    std::future::poll_fn(|context| {
        let mut pending = false;
        for (handle, output) in handles.iter_mut().zip(outputs.iter_mut()) {
            if let Some(future) = handle {
                match future.as_mut().poll(context) {
                    std::task::Poll::Ready(value) => {
                        *output = Some(value);
                        *handle = None;
                    }
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs
        .into_iter()
        .map(|output| output.expect("every future completed"))
        .collect()
}

#[tokio::test]
async fn in_memory_a_single_use_state_is_redeemed_once() {
    let counters = Arc::new(Counters::default());
    let server = instance(&counters, mrtr::MemoryStore::default());
    let (accepted, steps) = race("redeem", &[server], &counters, 10).await;
    assert_eq!((accepted, steps), (1, 1));
}

#[tokio::test]
async fn without_single_use_every_replay_runs_the_step_again() {
    let counters = Arc::new(Counters::default());
    let servers = [
        instance(&counters, mrtr::MemoryStore::default()),
        instance(&counters, mrtr::MemoryStore::default()),
    ];
    let (accepted, steps) = race("redeem_again", &servers, &counters, 50).await;
    assert_eq!(
        (accepted, steps),
        (50, 50),
        "all 50 accepted: the step ran 50 times"
    );
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis server: .ci/run starts one and sets MRTR_TEST_REDIS_URL"]
async fn two_instances_sharing_redis_accept_one_of_fifty_concurrent_retries() {
    let url = std::env::var("MRTR_TEST_REDIS_URL")
        .expect("MRTR_TEST_REDIS_URL, e.g. redis://127.0.0.1:6379/");
    let counters = Arc::new(Counters::default());
    let prefix = format!("mrtr-test-{}:", std::process::id());
    let store = |prefix: &str| {
        let (url, prefix) = (url.clone(), prefix.to_owned());
        async move {
            mrtr::RedisStore::connect(&url, prefix)
                .await
                .expect("Redis reachable")
        }
    };
    let servers = [
        instance(&counters, store(&prefix).await),
        instance(&counters, store(&prefix).await),
    ];
    let (accepted, steps) = race("redeem", &servers, &counters, 50).await;
    assert_eq!(
        (accepted, steps),
        (1, 1),
        "exactly one of 50 retries accepted, 49 refused with -32602"
    );
}
