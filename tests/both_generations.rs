//! The same tools, the same scripted answers, both generations of clients: over MRTR rounds
//! and over a simulated 2025-11-25 session (the machine in process, its asks sent as
//! requests), the harness gets the same results.

#![allow(dead_code)]

#[path = "../examples/both_generations.rs"]
mod both_generations;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use both_generations as tools;
use mrtr::legacy::{ClientFailure, LegacyOptions, LegacySession, RequestToClient};
use mrtr::testing::{Harness, Run, Script, answer};
use mrtr::{
    Access, BoxFuture, ClientCapabilities, Context, Denied, Form, Server, ToolError, elicit,
};
use serde_json::{Value, json};

/// Runs `harness` both ways with `script` and asserts the same result and the same questions.
async fn both(harness: &Harness, arguments: Value, script: &Script) -> (Run, Run) {
    let mrtr = harness.run(arguments.clone(), script).await;
    let legacy = harness.run_legacy(arguments, script).await;
    assert_eq!(mrtr.result(), legacy.result(), "both paths end the same");
    assert_eq!(mrtr.keys(), legacy.keys(), "both paths ask the same keys");
    let messages = |run: &Run| -> Vec<String> {
        run.questions()
            .iter()
            .map(|q| q.message().to_owned())
            .collect()
    };
    assert_eq!(messages(&mrtr), messages(&legacy));
    (mrtr, legacy)
}

#[tokio::test]
async fn a_batch_with_a_choice_and_a_bounded_number_ends_the_same() {
    let script = Script::new()
        .answer(
            "party",
            answer::accept(json!({"guests": 4, "seating": "terrace"})),
        )
        .answer("contact", answer::accept(json!({"name": "Ada"})));
    let (mrtr, legacy) = both(&Harness::tool(tools::book_table), json!({}), &script).await;
    assert_eq!(legacy.text(), "Table for 4 on the terrace, under Ada.");
    assert_eq!(mrtr.rounds(), 2, "one round asks both");
    assert_eq!(legacy.keys(), ["contact", "party"]);
}

#[tokio::test]
async fn an_answer_outside_the_form_is_asked_again_with_the_reason_both_ways() {
    let script = Script::new()
        .answer(
            "party",
            answer::accept(json!({"guests": 40, "seating": "terrace"})),
        )
        .answer(
            "party",
            answer::accept(json!({"guests": 2, "seating": "indoor"})),
        )
        .answer("contact", answer::accept(json!({"name": "Bo"})));
    let (_, legacy) = both(&Harness::tool(tools::book_table), json!({}), &script).await;
    assert_eq!(legacy.text(), "Table for 2 indoors, under Bo.");
    assert_eq!(legacy.keys(), ["contact", "party", "party"]);
    let again = legacy.questions()[2].message();
    assert!(
        again.starts_with("Who is coming?")
            && again.contains("not accepted")
            && again.contains("guests"),
        "{again}"
    );
}

#[tokio::test]
async fn an_ask_until_valid_loop_ends_the_same() {
    let script = Script::new()
        .answer("number", answer::accept(json!({"number": 3})))
        .answer("number", answer::accept(json!({"number": "four"})))
        .answer("number", answer::accept(json!({"number": 8})));
    let (_, legacy) = both(&Harness::tool(tools::pick_even), json!({}), &script).await;
    assert_eq!(legacy.text(), "8 is even (try 2).");
    assert_eq!(legacy.keys(), ["number", "number", "number"]);
}

#[tokio::test]
async fn a_runtime_choice_is_validated_against_what_was_shown_both_ways() {
    let script = Script::new()
        .answer("flight", answer::accept(json!({"flight": "ZZ9"})))
        .answer("flight", answer::accept(json!({"flight": "LH88"})));
    let arguments = json!({"to": "Lisbon"});
    let (_, legacy) = both(&Harness::tool(tools::choose_flight), arguments, &script).await;
    assert_eq!(legacy.text(), "Booked LH88: Lisbon at 11:45, 98 EUR.");
    let schema = &legacy.questions()[0].params["requestedSchema"];
    assert_eq!(
        schema["properties"]["flight"]["oneOf"][1],
        json!({"const": "LH88", "title": "Lisbon at 11:45, 98 EUR"})
    );
}

#[tokio::test]
async fn decline_and_cancel_take_the_same_paths() {
    let harness = Harness::tool(tools::delete_file);
    let arguments = json!({"path": "notes.txt"});
    let declined = Script::new().answer("confirm", answer::decline());
    let (_, legacy) = both(&harness, arguments.clone(), &declined).await;
    assert_eq!(legacy.text(), "Kept notes.txt: the user declined.");
    let cancelled = Script::new().answer("confirm", answer::cancel());
    let (_, legacy) = both(&harness, arguments, &cancelled).await;
    assert_eq!(legacy.text(), "Kept notes.txt: the user cancelled.");
}

#[tokio::test]
async fn sampling_and_roots_answered_or_failed_end_the_same() {
    let harness = Harness::tool(tools::haiku_and_roots);
    let answered = Script::new()
        .answer("haiku", answer::sampled("files at rest"))
        .answer("client_roots", answer::roots(&["file:///a", "file:///b"]));
    let (_, legacy) = both(&harness, json!({}), &answered).await;
    assert_eq!(legacy.text(), "files at rest / 2 root(s)");
    // A client error over a session, a left-out key over MRTR: Reply::Missing both ways, and
    // the failed request is not sent again.
    let failed = Script::new()
        .fail("haiku", "no model configured")
        .answer("client_roots", answer::roots(&["file:///a"]));
    let (mrtr, legacy) = both(&harness, json!({}), &failed).await;
    assert_eq!(legacy.text(), "no haiku / 1 root(s)");
    assert_eq!(legacy.keys(), ["client_roots", "haiku"]);
    assert_eq!(mrtr.rounds(), 3, "one re-ask round before Missing");
}

#[tokio::test]
async fn the_official_clients_give_up_an_mrtr_call_whose_callback_refuses() {
    let harness = Harness::tool(tools::haiku_and_roots);
    let refused = Script::new()
        .refuse("haiku", "sampling is not supported")
        .answer("client_roots", answer::roots(&["file:///a"]));
    // 2026-07-28: the Python and TypeScript clients fail the whole tools/call; the tool never
    // gets Reply::Missing, and no retry reaches the server.
    let mrtr = harness.run(json!({}), &refused).await;
    assert!(mrtr.ended_by_client());
    assert_eq!(
        mrtr.error(),
        Some(&json!({"code": -32603, "message": "sampling is not supported"}))
    );
    assert_eq!(mrtr.rounds(), 1, "the client sent no retry");
    assert!(mrtr.keys().contains(&"haiku"));
    // 2025-11-25: the same clients answer the request with the error, and the tool falls back.
    let legacy = harness.run_legacy(json!({}), &refused).await;
    assert!(!legacy.ended_by_client());
    assert_eq!(legacy.text(), "no haiku / 1 root(s)");
}

#[tokio::test]
async fn a_url_elicitation_carries_an_id_and_its_completion_is_announced() {
    let harness = Harness::builder_for_tool(tools::sign_in)
        .state(Arc::new(tools::SignIns::default()))
        .build();
    let script = Script::new().answer("consent", answer::consent());
    let legacy = harness.run_legacy(json!({}), &script).await;
    assert_eq!(legacy.text(), "Signed in.");
    let asked = &legacy.questions()[0];
    assert_eq!(asked.params["mode"], "url");
    let id = asked.params["elicitationId"].as_str().unwrap();
    assert_eq!(id.len(), 32, "{id}");
    assert_eq!(
        legacy.notifications(),
        [(
            "notifications/elicitation/complete".to_owned(),
            json!({"elicitationId": id})
        )]
    );
    // Over MRTR the same tool asks without an id (the field is retired there).
    let mrtr = Harness::builder_for_tool(tools::sign_in)
        .state(Arc::new(tools::SignIns::default()))
        .build()
        .run(json!({}), &script)
        .await;
    assert_eq!(mrtr.result(), legacy.result());
    assert!(mrtr.questions()[0].params.get("elicitationId").is_none());
    assert_eq!(mrtr.rounds(), 3, "consent, one recheck, done");
}

#[tokio::test]
async fn a_declined_url_elicitation_is_not_announced_complete() {
    let harness = Harness::builder_for_tool(tools::sign_in)
        .state(Arc::new(tools::SignIns::default()))
        .build();
    let script = Script::new().answer("consent", answer::decline());
    let legacy = harness.run_legacy(json!({}), &script).await;
    assert_eq!(legacy.text(), "Not signed in.");
    assert!(legacy.notifications().is_empty());
}

#[tokio::test]
async fn an_undeclared_kind_is_never_sent_and_ends_the_call_with_the_mrtr_message() {
    let harness = Harness::builder_for_tool(tools::haiku_and_roots)
        .capabilities(json!({"elicitation": {}}))
        .build();
    let legacy = harness.run_legacy(json!({}), &Script::new()).await;
    assert!(legacy.is_error());
    assert!(legacy.questions().is_empty(), "nothing was sent");
    let mrtr = harness.call(json!({})).await;
    assert_eq!(mrtr.error_code(), -32021);
    assert_eq!(
        legacy.text(),
        mrtr.response()["error"]["message"].as_str().unwrap()
    );
    assert!(legacy.text().contains("sampling"), "{}", legacy.text());
}

#[tokio::test]
async fn a_prompt_runs_both_ways() {
    let harness = Harness::prompt(tools::plan_trip);
    let script = Script::new().answer("destination", answer::accept(json!({"city": "Porto"})));
    let (_, legacy) = both(&harness, json!({}), &script).await;
    assert_eq!(legacy.text(), "Plan three days in Porto.");
}

#[tokio::test]
async fn a_resource_read_runs_both_ways_and_loses_its_cache_hints_on_a_session() {
    let harness = Harness::resource(tools::notes, "notes://ada");
    let script = Script::new().answer("list", answer::accept(json!({"list": "ideas"})));
    let (mrtr, legacy) = both(&harness, json!({}), &script).await;
    assert_eq!(legacy.text(), "ada's ideas list is empty.");
    assert_eq!(mrtr.rounds(), 2);
    let last = harness
        .call_with_answers(
            json!({}),
            [("list", answer::accept(json!({"list": "todo"})))],
        )
        .await;
    assert_eq!(
        last.response()["result"]["ttlMs"],
        0,
        "MRTR marks a retried read"
    );
    assert!(legacy.result().get("ttlMs").is_none());
}

#[tokio::test]
async fn a_prompt_the_user_declines_ends_with_the_same_error() {
    let harness = Harness::prompt(tools::plan_trip);
    let script = Script::new().answer("destination", answer::decline());
    let mrtr = harness.run(json!({}), &script).await;
    let legacy = harness.run_legacy(json!({}), &script).await;
    assert_eq!(mrtr.error(), legacy.error());
    assert_eq!(legacy.error().unwrap()["code"], -32000);
}

#[tokio::test]
async fn an_elicitation_the_client_fails_ends_a_legacy_call_with_a_tool_error() {
    let script = Script::new().fail("confirm", "the dialog crashed");
    let legacy = Harness::tool(tools::delete_file)
        .run_legacy(json!({"path": "a"}), &script)
        .await;
    assert!(legacy.is_error());
    assert!(
        legacy.text().contains("elicitation/create")
            && legacy.text().contains("the dialog crashed"),
        "{}",
        legacy.text()
    );
}

// ------------------------------------------------ the same guarantees as retried rounds

#[derive(Form)]
struct Word {
    word: String,
}

#[derive(Default)]
struct Steps {
    before: AtomicU32,
    between: AtomicU32,
    keys: std::sync::Mutex<Vec<String>>,
}

/// Two asks; counts each step and records the idempotency key each step saw.
#[mrtr::tool(single_use)]
async fn two_words(cx: &Context) -> Result<String, ToolError> {
    let steps = cx.state::<Arc<Steps>>();
    steps.before.fetch_add(1, Ordering::SeqCst);
    steps.keys.lock().unwrap().push(cx.idempotency_key());
    let first = ask!(elicit::form::<Word>("First word?")).accepted()?.word;
    steps.between.fetch_add(1, Ordering::SeqCst);
    steps.keys.lock().unwrap().push(cx.idempotency_key());
    let second = ask!(elicit::form::<Word>("Second word?")).accepted()?.word;
    steps.keys.lock().unwrap().push(cx.idempotency_key());
    Ok(format!("{first} {second}"))
}

/// Asks forever.
#[mrtr::tool(max_rounds = 3)]
async fn endless() -> Result<String, ToolError> {
    loop {
        let word = ask!(elicit::form::<Word>("Another word?")).accepted()?;
        drop(word);
    }
}

/// A client that accepts every form with `{"word": "w<n>"}` and records what it was sent.
#[derive(Default)]
struct Client {
    capabilities: ClientCapabilities,
    sent: std::sync::Mutex<Vec<RequestToClient>>,
}

impl Client {
    fn forms() -> Self {
        Self {
            capabilities: ClientCapabilities::from_object(
                json!({"elicitation": {}}).as_object().unwrap().clone(),
            ),
            ..Self::default()
        }
    }
}

impl LegacySession for Client {
    fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    fn request(
        &self,
        request: RequestToClient,
        _: std::time::Duration,
    ) -> BoxFuture<'_, Result<Value, ClientFailure>> {
        let mut sent = self.sent.lock().unwrap();
        sent.push(request);
        let answer = answer::accept(json!({"word": format!("w{}", sent.len())}));
        Box::pin(std::future::ready(Ok(answer)))
    }

    fn notify(&self, _: &str, _: Value) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }

    fn pause(&self, _: std::time::Duration) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}

fn call(name: &str) -> Value {
    json!({"name": name, "arguments": {}, "_meta": {"progressToken": 7}})
}

#[tokio::test]
async fn each_step_runs_once_with_its_own_idempotency_key_and_single_use_holds() {
    let steps = Arc::new(Steps::default());
    let rounds = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&rounds);
    let server = Server::builder("legacy", "1")
        .state(Arc::clone(&steps))
        .authorize(move |access: Access<'_>| {
            seen.lock().unwrap().push(access.round);
            Ok(())
        })
        .tool(two_words)
        .build()
        .unwrap();
    let client = Client::forms();
    let result = server
        .handle_legacy(
            "tools/call",
            call("two_words"),
            None,
            &client,
            &LegacyOptions::new(),
        )
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "w1 w2");
    assert!(result.get("resultType").is_none() && result.get("_meta").is_none());
    assert_eq!(steps.before.load(Ordering::SeqCst), 1);
    assert_eq!(steps.between.load(Ordering::SeqCst), 1);
    assert_eq!(*rounds.lock().unwrap(), [1, 2, 3], "authorized every round");
    let keys = steps.keys.lock().unwrap().clone();
    let suffixes: Vec<&str> = keys
        .iter()
        .map(|key| key.rsplit('-').next().unwrap())
        .collect();
    assert_eq!(suffixes, ["0", "1", "2"], "{keys:?}");
    let flow = keys[0].rsplit_once('-').unwrap().0;
    assert!(
        keys.iter().all(|key| key.starts_with(flow)),
        "one flow: {keys:?}"
    );
}

#[tokio::test]
async fn authorization_refused_mid_flow_ends_the_call() {
    let server = Server::builder("legacy", "1")
        .state(Arc::new(Steps::default()))
        .authorize(|access: Access<'_>| {
            if access.round >= 2 {
                return Err(Denied("the grant was revoked".into()));
            }
            Ok(())
        })
        .tool(two_words)
        .build()
        .unwrap();
    let client = Client::forms();
    let result = server
        .handle_legacy(
            "tools/call",
            call("two_words"),
            None,
            &client,
            &LegacyOptions::new(),
        )
        .await
        .unwrap();
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "not authorized: the grant was revoked"
    );
    assert_eq!(
        client.sent.lock().unwrap().len(),
        1,
        "one question, then refused"
    );
}

#[tokio::test]
async fn the_round_cap_ends_a_legacy_call_like_an_mrtr_flow() {
    let server = Server::builder("legacy", "1")
        .tool(endless)
        .build()
        .unwrap();
    let client = Client::forms();
    let result = server
        .handle_legacy(
            "tools/call",
            call("endless"),
            None,
            &client,
            &LegacyOptions::new(),
        )
        .await
        .unwrap();
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("more than 3 rounds"), "{text}");
    assert_eq!(client.sent.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn the_legacy_path_never_takes_answers_or_state_from_the_request() {
    let server = Server::builder("legacy", "1")
        .state(Arc::new(Steps::default()))
        .tool(two_words)
        .build()
        .unwrap();
    let client = Client::forms();
    let mut params = call("two_words");
    params["inputResponses"] = json!({"first": answer::accept(json!({"word": "injected"}))});
    params["requestState"] = json!("forged");
    let result = server
        .handle_legacy("tools/call", params, None, &client, &LegacyOptions::new())
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "w1 w2");
}

#[tokio::test]
async fn list_results_lose_the_2026_fields() {
    let server = tools::server().unwrap();
    let client = Client::forms();
    let tools = server
        .handle_legacy(
            "tools/list",
            json!({}),
            None,
            &client,
            &LegacyOptions::new(),
        )
        .await
        .unwrap();
    assert!(tools["tools"].as_array().unwrap().len() >= 4);
    for field in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(tools.get(field).is_none(), "{field} in {tools}");
    }
}
