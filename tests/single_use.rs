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
/// the instances, each on its own task of a multi-thread runtime, released together by a
/// barrier; returns how many were accepted and the step count.
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
    let barrier = Arc::new(tokio::sync::Barrier::new(retries));
    let tasks: Vec<_> = (0..retries)
        .map(|index| {
            let server = instances[index % instances.len()].clone();
            let request = json!({"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": {
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
                "name": tool, "arguments": {}, "inputResponses": answer, "requestState": state}});
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                support::Reply(server.handle(request).await)
            })
        })
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.push(task.await.expect("the retry task did not panic"));
    }
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

/// Fails the test instead of hanging it.
async fn within<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(60), work)
        .await
        .expect("the test did not finish within 60 s")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn in_memory_a_single_use_state_is_redeemed_once() {
    let counters = Arc::new(Counters::default());
    let server = instance(&counters, mrtr::MemoryStore::default());
    let (accepted, steps) = within(race("redeem", &[server], &counters, 32)).await;
    assert_eq!((accepted, steps), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_single_use_every_replay_runs_the_step_again() {
    let counters = Arc::new(Counters::default());
    let servers = [
        instance(&counters, mrtr::MemoryStore::default()),
        instance(&counters, mrtr::MemoryStore::default()),
    ];
    let (accepted, steps) = within(race("redeem_again", &servers, &counters, 50)).await;
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
    let (accepted, steps) = within(race("redeem", &servers, &counters, 50)).await;
    assert_eq!(
        (accepted, steps),
        (1, 1),
        "exactly one of 50 retries accepted, 49 refused with -32602"
    );
}

/// Runs a shell command given in an environment variable (CI's Redis stop and start).
#[cfg(feature = "redis")]
fn run_env_command(variable: &str) {
    let command = std::env::var(variable).unwrap_or_else(|_| panic!("{variable} is not set"));
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .status()
        .expect("sh runs");
    assert!(status.success(), "{variable}: `{command}` failed");
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "restarts a Redis server: .ci/run sets MRTR_TEST_REDIS_URL, MRTR_TEST_REDIS_STOP and MRTR_TEST_REDIS_START"]
async fn a_redis_restart_fails_rounds_closed_and_redeems_nothing_twice() {
    use std::time::Duration;
    let url = std::env::var("MRTR_TEST_REDIS_URL").expect("MRTR_TEST_REDIS_URL");
    let counters = Arc::new(Counters::default());
    let prefix = format!("mrtr-restart-{}:", std::process::id());
    let store = mrtr::RedisStore::connect(&url, prefix)
        .await
        .expect("Redis reachable");
    let server = instance(&counters, store);
    let client = Client::new(server);
    let answer = json!({"confirm": accept(json!({"ok": true}))});
    let retry = |state: String| {
        let (client, answer) = (&client, answer.clone());
        async move {
            client
                .call("redeem", json!({}), Some(answer), Some(&state))
                .await
        }
    };

    // Before: one state redeemed; another minted for later.
    let before = client.call("redeem", json!({}), None, None).await.state();
    let later = client.call("redeem", json!({}), None, None).await.state();
    assert!(retry(before.clone()).await.0.get("result").is_some());
    assert_eq!(counters.get("redeemed"), 1);

    run_env_command("MRTR_TEST_REDIS_STOP");
    // During the outage: rounds fail closed, no code runs.
    let during = within(retry(later.clone())).await;
    assert_eq!(during.error_code(), -32603, "{:?}", during.0);
    assert_eq!(counters.get("redeemed"), 1);

    run_env_command("MRTR_TEST_REDIS_START");
    // After: the connection manager reconnects; the waiting state redeems exactly once.
    let mut redeemed = None;
    for _ in 0..100 {
        let reply = within(retry(later.clone())).await;
        if reply.0.get("error").is_some() && reply.error_code() == -32603 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        redeemed = Some(reply);
        break;
    }
    let redeemed = redeemed.expect("Redis came back within 20 s");
    assert!(redeemed.0.get("result").is_some(), "{:?}", redeemed.0);
    assert_eq!(counters.get("redeemed"), 2);
    // Nothing twice: neither the state redeemed before the restart nor the one after.
    assert_eq!(within(retry(before)).await.error_code(), -32602);
    assert_eq!(within(retry(later)).await.error_code(), -32602);
    assert_eq!(counters.get("redeemed"), 2);
}
