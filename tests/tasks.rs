//! Tasks (SEP-2663): one tool, written once, served to a task client, an MRTR-only client and
//! a 2025-era session; the task lifecycle (cancel, partial and invalid answers, another
//! principal's id); and several instances sharing one store (a step runs once; a step whose
//! instance died is taken over when its lease expires).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use mrtr::task::{MemoryTaskStore, TaskStore};
use mrtr::testing::{Harness, Script, answer};
use mrtr::token::{KeyId, KeyRing, SecretKey};
use mrtr::{Answer, Context, Form, Server, TaskOptions, ToolError, elicit, handoff};
use serde_json::{Value, json};

#[derive(Form)]
struct Name {
    /// Your name
    name: String,
}

#[derive(Form)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Runs of the code between the hand-off and the task's ask.
static RENAME_MIDDLE: AtomicU32 = AtomicU32::new(0);

/// Asks a name by MRTR, hands off, then asks a confirmation inside the task.
#[mrtr::tool(task = "optional")]
async fn rename() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("Who are you?"));
    let name = user_name.accepted()?.name;
    ask!(handoff());
    RENAME_MIDDLE.fetch_add(1, Ordering::SeqCst);
    let confirm = ask!(elicit::form::<Confirm>(format!(
        "Rename everything for {name}?"
    )));
    match confirm {
        Answer::Accept(Confirm { ok: true }) => Ok(format!("renamed for {name}")),
        _ => Ok(format!("left alone for {name}")),
    }
}

fn rename_script() -> Script {
    Script::new()
        .answer("user_name", answer::accept(json!({"name": "Alice"})))
        .answer("confirm", answer::accept(json!({"ok": true})))
}

#[tokio::test]
async fn a_task_client_gets_a_task_that_names_the_mrtr_answer() {
    let harness = Harness::tool(rename);
    let run = harness.run_task(json!({}), &rename_script()).await;
    let created = run.created().expect("the hand-off created a task");
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert!(created.get("requestState").is_none());
    assert!(created["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0));
    assert_eq!(run.rounds(), 2, "one MRTR round asked the name");
    assert_eq!(run.status(), Some("completed"));
    assert_eq!(run.text(), "renamed for Alice");
    let keys: Vec<&str> = run.questions().iter().map(|q| q.key.as_str()).collect();
    assert_eq!(keys, ["user_name", "confirm"]);
    assert_eq!(run.updates(), 1);
}

#[tokio::test]
async fn an_mrtr_only_client_gets_the_whole_body_over_rounds() {
    let harness = Harness::tool(rename);
    let run = harness.run(json!({}), &rename_script()).await;
    assert_eq!(run.text(), "renamed for Alice");
    assert_eq!(run.rounds(), 3, "the hand-off costs no round");
}

#[tokio::test]
async fn a_2025_session_runs_it_all() {
    let harness = Harness::tool(rename);
    let run = harness.run_legacy(json!({}), &rename_script()).await;
    assert_eq!(run.text(), "renamed for Alice");
}

/// Counts the runs of its body.
static REQUIRED_RUNS: AtomicU32 = AtomicU32::new(0);

/// Runs only as a task.
#[mrtr::tool(task = "required")]
async fn only_as_task() -> Result<String, ToolError> {
    REQUIRED_RUNS.fetch_add(1, Ordering::SeqCst);
    Ok("done".into())
}

#[tokio::test]
async fn a_required_tool_refuses_other_clients_before_its_code_runs() {
    let harness = Harness::tool(only_as_task);
    let round = harness.call(json!({})).await;
    assert_eq!(round.error_code(), -32021);
    assert_eq!(
        round.response()["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    assert_eq!(REQUIRED_RUNS.load(Ordering::SeqCst), 0);
    let run = harness.run_task(json!({}), &Script::new()).await;
    assert_eq!(run.text(), "done");
    assert_eq!(REQUIRED_RUNS.load(Ordering::SeqCst), 1);
}

/// Runs of the body of a task-only tool that asks, before and after its hand-off point.
static REQUIRED_ASKING_RUNS: AtomicU32 = AtomicU32::new(0);

/// Runs only as a task for 2026-07-28 clients; asks once before and once after the hand-off.
#[mrtr::tool(task = "required")]
async fn required_rename() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("Who are you?"));
    let name = user_name.accepted()?.name;
    ask!(handoff());
    REQUIRED_ASKING_RUNS.fetch_add(1, Ordering::SeqCst);
    let confirm = ask!(elicit::form::<Confirm>("Go ahead?"));
    Ok(format!(
        "{name}: {}",
        matches!(confirm, Answer::Accept(Confirm { ok: true }))
    ))
}

#[tokio::test]
async fn a_2025_session_runs_a_task_only_tool_whole_even_declaring_the_extension() {
    // The session's `initialize` declared the extension (a 2026-aware client library may):
    // still no task, no -32021, the whole body with its asks as requests to the client.
    let declaring = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    for capabilities in [json!({"elicitation": {}}), declaring] {
        let harness = Harness::builder_for_tool(required_rename)
            .capabilities(capabilities)
            .build();
        let before = REQUIRED_ASKING_RUNS.load(Ordering::SeqCst);
        let run = harness.run_legacy(json!({}), &rename_script()).await;
        assert!(run.error().is_none(), "{:?}", run.error());
        assert_eq!(run.text(), "Alice: true");
        assert_eq!(run.keys(), ["user_name", "confirm"]);
        assert_eq!(REQUIRED_ASKING_RUNS.load(Ordering::SeqCst), before + 1);
    }
    // The same tool still refuses an MRTR-only request before any code runs.
    let harness = Harness::tool(required_rename);
    assert_eq!(harness.call(json!({})).await.error_code(), -32021);
}

#[tokio::test]
async fn a_2025_session_lists_no_task_support() {
    let harness = Harness::tool(rename);
    let listed = harness
        .server()
        .handle_legacy(
            "tools/list",
            json!({}),
            None,
            &NoClient,
            &mrtr::legacy::LegacyOptions::default(),
        )
        .await
        .expect("tools/list answers on a session");
    assert_eq!(listed["tools"][0]["name"], "rename");
    assert!(listed["tools"][0].get("execution").is_none(), "{listed}");
}

/// A session whose client is never asked anything (listing only).
struct NoClient;

impl mrtr::legacy::LegacySession for NoClient {
    fn capabilities(&self) -> &mrtr::ClientCapabilities {
        static NONE: std::sync::OnceLock<mrtr::ClientCapabilities> = std::sync::OnceLock::new();
        NONE.get_or_init(|| mrtr::ClientCapabilities::from_object(Default::default()))
    }

    fn request(
        &self,
        _: mrtr::legacy::RequestToClient,
        _: Duration,
    ) -> mrtr::BoxFuture<'_, Result<Value, mrtr::legacy::ClientFailure>> {
        unreachable!("listing asks nothing")
    }

    fn notify(&self, _: &str, _: Value) -> mrtr::BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }

    fn pause(&self, _: Duration) -> mrtr::BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}

#[tokio::test]
async fn tools_list_and_discover_show_task_support() {
    let harness = Harness::tool(rename);
    let listed = harness.task_request("tools/list", json!({})).await;
    assert_eq!(
        listed["result"]["tools"][0]["execution"],
        json!({"taskSupport": "optional"})
    );
    let discovered = harness.task_request("server/discover", json!({})).await;
    assert_eq!(
        discovered["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
}

/// Counts how far a slow body got.
static SLOW_FINISHED: AtomicU32 = AtomicU32::new(0);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SlowArgs {
    millis: u64,
}

/// Sleeps, then finishes.
#[mrtr::tool(task = "optional")]
async fn slow(args: SlowArgs) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(args.millis)).await;
    SLOW_FINISHED.fetch_add(1, Ordering::SeqCst);
    Ok("slept".into())
}

async fn create(harness: &Harness, arguments: Value) -> String {
    let run = harness.task_request(
        "tools/call",
        json!({"name": harness.server().tools().next().unwrap().name, "arguments": arguments}),
    );
    let created = run.await;
    created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {created}"))
        .to_owned()
}

async fn get(harness: &Harness, id: &str) -> Value {
    harness
        .task_request("tasks/get", json!({"taskId": id}))
        .await
}

async fn wait_for(harness: &Harness, id: &str, status: &str) -> Value {
    for _ in 0..2000 {
        let got = get(harness, id).await;
        if got["result"]["status"] == status {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!(
        "task {id} never reached {status}: {}",
        get(harness, id).await
    );
}

#[tokio::test]
async fn cancel_stops_a_running_step_and_is_idempotent() {
    let harness = Harness::tool(slow);
    let id = create(&harness, json!({"millis": 300})).await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    let ack = harness
        .task_request("tasks/cancel", json!({"taskId": id}))
        .await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("status").is_none());
    let task = wait_for(&harness, &id, "cancelled").await;
    assert!(task.get("result").is_none());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        SLOW_FINISHED.load(Ordering::SeqCst),
        0,
        "the step was dropped"
    );
    assert_eq!(get(&harness, &id).await["result"]["status"], "cancelled");
    let again = harness
        .task_request("tasks/cancel", json!({"taskId": id}))
        .await;
    assert_eq!(again["result"]["resultType"], "complete");
}

/// Answers at once.
#[mrtr::tool(task = "optional")]
async fn quick() -> Result<String, ToolError> {
    Ok("quick".into())
}

#[tokio::test]
async fn another_principals_task_reads_as_unknown() {
    let owner = Harness::builder_for_tool(quick).principal("alice").build();
    let other = Harness::builder_for_tool(quick)
        .principal("mallory")
        .build();
    let id = create(&owner, json!({})).await;
    wait_for(&owner, &id, "completed").await;
    // The same store and keys: `other` is the same server seen by another principal.
    let stranger = other
        .server()
        .handle_as(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": id, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}}}),
            Some("mallory"),
        )
        .await;
    let foreign = owner
        .server()
        .handle_as(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": id, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}}}),
            Some("mallory"),
        )
        .await;
    let unknown = get(&owner, &"0".repeat(32)).await;
    let malformed = get(&owner, "not-a-task").await;
    for refused in [&stranger, &foreign, &unknown, &malformed] {
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }
    assert_eq!(foreign["error"], unknown["error"], "indistinguishable");
    assert_eq!(malformed["error"], unknown["error"]);
    let without = owner
        .server()
        .handle_as(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": id, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}),
            Some("alice"),
        )
        .await;
    assert_eq!(without["error"]["code"], -32021);
}

/// Asks two questions at once inside the task.
#[mrtr::tool(task = "optional")]
async fn pair() -> Result<String, ToolError> {
    let (first, second) = ask!(
        first = elicit::form::<Name>("First?"),
        second = elicit::form::<Name>("Second?"),
    );
    Ok(format!(
        "{} and {}",
        first.accepted()?.name,
        second.accepted()?.name
    ))
}

#[tokio::test]
async fn partial_answers_are_kept_and_only_pending_keys_stay_listed() {
    let harness = Harness::tool(pair);
    let id = create(&harness, json!({})).await;
    let task = wait_for(&harness, &id, "input_required").await;
    let mut keys: Vec<&String> = task["inputRequests"].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["first", "second"]);
    let ack = harness
        .task_request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"first": answer::accept(json!({"name": "Ann"})), "nope": {}}}),
        )
        .await;
    assert_eq!(
        ack["result"],
        json!({"resultType": "complete", "_meta": ack["result"]["_meta"]})
    );
    let task = get(&harness, &id).await["result"].clone();
    assert_eq!(task["status"], "input_required");
    let keys: Vec<&String> = task["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["second"]);
    // An answer to a key already answered is ignored.
    harness
        .task_request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"first": answer::accept(json!({"name": "Zed"})),
                "second": answer::accept(json!({"name": "Bob"}))}}),
        )
        .await;
    let task = wait_for(&harness, &id, "completed").await;
    assert_eq!(task["result"]["content"][0]["text"], "Ann and Bob");
}

#[derive(Form)]
struct Count {
    /// How many
    #[form(minimum = 1, maximum = 9)]
    n: i64,
}

/// Asks a bounded number inside the task, then asks again in a later step (same ask key).
#[mrtr::tool(task = "optional")]
async fn counted() -> Result<String, ToolError> {
    let mut total = 0;
    for _ in 0..2 {
        let count = ask!(elicit::form::<Count>("How many?"));
        total += count.accepted()?.n;
    }
    Ok(format!("total {total}"))
}

#[tokio::test]
async fn an_invalid_answer_is_asked_again_with_the_reason_under_a_fresh_key() {
    let harness = Harness::tool(counted);
    let id = create(&harness, json!({})).await;
    wait_for(&harness, &id, "input_required").await;
    harness
        .task_request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"count": answer::accept(json!({"n": 42}))}}),
        )
        .await;
    let task = get(&harness, &id).await["result"].clone();
    assert_eq!(task["status"], "input_required");
    let requests = task["inputRequests"].as_object().unwrap();
    let (key, question) = requests.iter().next().unwrap();
    assert_eq!(
        key, "count_2",
        "a fresh key: keys are unique over the task's life"
    );
    let message = question["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("How many?") && message.len() > "How many?".len(),
        "{message}"
    );
    harness
        .task_request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"count_2": answer::accept(json!({"n": 2}))}}),
        )
        .await;
    let task = wait_for(&harness, &id, "input_required").await;
    let keys: Vec<&String> = task["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["count_3"],
        "the second ask of `count` gets its own key"
    );
    harness
        .task_request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"count_3": answer::accept(json!({"n": 3}))}}),
        )
        .await;
    let task = wait_for(&harness, &id, "completed").await;
    assert_eq!(task["result"]["content"][0]["text"], "total 5");
}

/// Fails as a tool, or panics.
#[mrtr::tool(task = "optional")]
async fn failing(args: SlowArgs) -> Result<String, ToolError> {
    if args.millis == 0 {
        return Err(ToolError::new("no luck"));
    }
    panic!("boom")
}

#[tokio::test]
async fn a_tool_error_completes_and_a_panic_fails() {
    let harness = Harness::tool(failing);
    let id = create(&harness, json!({"millis": 0})).await;
    let task = wait_for(&harness, &id, "completed").await;
    assert_eq!(task["result"]["isError"], true);
    let id = create(&harness, json!({"millis": 1})).await;
    let task = wait_for(&harness, &id, "failed").await;
    assert_eq!(task["error"]["code"], -32603);
    assert!(task.get("result").is_none());
}

// Two instances: two servers with the same keys and one store.

/// Steps that ran.
static STEPS: AtomicU32 = AtomicU32::new(0);

/// Counts its runs; the first run on a "dying" instance never ends.
#[mrtr::tool(task = "optional")]
async fn counted_once(args: SlowArgs) -> Result<String, ToolError> {
    let run = STEPS.fetch_add(1, Ordering::SeqCst);
    if args.millis > 0 && run == 0 {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    Ok(format!("ran {}", run + 1))
}

fn keys() -> KeyRing {
    KeyRing::with_signing_key(
        KeyId::new("shared").unwrap(),
        SecretKey::from_bytes(vec![7u8; 32]).unwrap(),
    )
}

fn instance(store: &Arc<dyn TaskStore>, lease: Duration) -> Server {
    Server::builder("tasks", "1")
        .key_ring(keys())
        .tasks(
            TaskOptions::new()
                .shared_store(Arc::clone(store))
                .lease(lease),
        )
        .tool(counted_once)
        .build()
        .unwrap()
}

fn request(method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

async fn status(server: &Server, id: &str) -> Value {
    server
        .handle(request("tasks/get", json!({"taskId": id})))
        .await["result"]
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_racing_run_a_step_once_and_a_dead_instances_step_is_taken_over() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    // Racing: both instances poll the new task at once; the lease lets one step run.
    let a = instance(&store, Duration::from_secs(30));
    let b = instance(&store, Duration::from_secs(30));
    let created = a
        .handle(request(
            "tools/call",
            json!({"name": "counted_once", "arguments": {"millis": 0}}),
        ))
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let polls = (0..20).map(|n| {
        let server = if n % 2 == 0 { a.clone() } else { b.clone() };
        let id = id.clone();
        tokio::spawn(async move { status(&server, &id).await })
    });
    for poll in polls {
        poll.await.unwrap();
    }
    let mut done = Value::Null;
    for _ in 0..400 {
        done = status(&b, &id).await;
        if done["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(done["result"]["content"][0]["text"], "ran 1");
    assert_eq!(STEPS.load(Ordering::SeqCst), 1, "the step ran once");

    // Takeover: instance C runs a step on a runtime that then dies; D reads the task once
    // C's lease has expired and runs the step again.
    STEPS.store(0, Ordering::SeqCst);
    let lease = Duration::from_millis(300);
    let dying = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let c = instance(&store, lease);
    let call = request(
        "tools/call",
        json!({"name": "counted_once", "arguments": {"millis": 1}}),
    );
    let id = std::thread::spawn(move || {
        let created = dying.block_on(async {
            let created = c.handle(call).await;
            // Let the step start and take its lease.
            tokio::time::sleep(Duration::from_millis(50)).await;
            created
        });
        // The instance dies: its step stops where it stands, and its lease is not renewed.
        drop(dying);
        created["result"]["taskId"].as_str().unwrap().to_owned()
    })
    .join()
    .unwrap();
    assert_eq!(STEPS.load(Ordering::SeqCst), 1, "C's step started");
    let d = instance(&store, lease);
    assert_eq!(status(&d, &id).await["status"], "working");
    let mut done = Value::Null;
    for _ in 0..400 {
        done = status(&d, &id).await;
        if done["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(done["status"], "completed", "D took the task over");
    assert_eq!(done["result"]["content"][0]["text"], "ran 2");
}

#[tokio::test]
async fn the_context_sees_the_mrtr_round_in_the_task() {
    // The flow's id and round carry into the task: `cx` is rebuilt for each step.
    #[mrtr::tool(task = "optional")]
    async fn rounds(cx: &Context) -> Result<String, ToolError> {
        let before = cx.flow_id().to_string();
        ask!(handoff());
        Ok(format!("{}", before == cx.flow_id().to_string()))
    }
    let run = Harness::tool(rounds)
        .run_task(json!({}), &Script::new())
        .await;
    assert_eq!(run.text(), "true");
}
