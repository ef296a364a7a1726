//! The round engine and `Server::handle`, driven with hand-written machines (no macro): every
//! duty of DESIGN §4, JSON in and JSON out.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mrtr_runtime::form::FormField;
use mrtr_runtime::machine::{
    Machine, Outcome, Prompt, PromptDescriptor, Resource, ResourceDescriptor, Step, StepError,
    Suspension, Tool, ToolDescriptor,
};
use mrtr_runtime::token::{Fingerprint, KeyId, KeyRing, SecretKey};
use mrtr_runtime::{
    Access, Answer, AnswerError, BoxFuture, CacheHint, CacheScope, CallToolResult, Denied, Form,
    PromptMessage, PromptOutput, Reply, ResourceContents, ResourceOutput, SampledMessage,
    SamplingRequest, Server, ToolOutput, elicit, recheck, sample,
};
use serde_json::{Map, Value, json};
use support::{Client, accept, error_code, keys, result, state, text};

// ---------------------------------------------------------------- forms, written by hand

struct Name {
    name: String,
}

impl Form for Name {
    fn requested_schema() -> Value {
        json!({"type": "object", "properties": {"name": {"type": "string", "minLength": 2}}, "required": ["name"]})
    }
    fn from_content(content: &Map<String, Value>) -> Result<Self, AnswerError> {
        Ok(Self {
            name: String::decode(content.get("name"))?,
        })
    }
}

struct Meal {
    meal: String,
}

impl Form for Meal {
    fn requested_schema() -> Value {
        json!({"type": "object", "properties": {"meal": {"type": "string", "enum": ["veg", "fish"]}}, "required": ["meal"]})
    }
    fn from_content(content: &Map<String, Value>) -> Result<Self, AnswerError> {
        Ok(Self {
            meal: String::decode(content.get("meal"))?,
        })
    }
}

// ---------------------------------------------------------------- machines, written by hand

/// Counts how often each step of a machine ran: code between two asks must run once.
#[derive(Default)]
struct Effects([AtomicUsize; 4]);

impl Effects {
    fn hit(&self, step: usize) {
        self.0[step].fetch_add(1, Ordering::SeqCst);
    }
    fn counts(&self) -> [usize; 4] {
        self.0.each_ref().map(|count| count.load(Ordering::SeqCst))
    }
}

fn done(message: impl Into<String>) -> Result<Outcome, StepError> {
    Ok(Outcome::Complete(
        CallToolResult::text(message).into_tool_result(),
    ))
}

fn suspend(suspension: Suspension) -> Result<Outcome, StepError> {
    Ok(Outcome::Suspend(suspension))
}

fn no_pc(pc: u32) -> Result<Outcome, StepError> {
    Err(StepError::Internal(format!("no resume point {pc}")))
}

/// name → (seat, meal) in one batch → done. A decline of the name ends early.
struct Booking;

impl Machine for Booking {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"book v1")
    }

    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let effects = step.cx.state::<Arc<Effects>>();
            match step.pc {
                0 => {
                    effects.hit(0);
                    suspend(
                        Suspension::new(1, Value::Null)
                            .ask("name", elicit::form::<Name>("Your name?")),
                    )
                }
                1 => {
                    effects.hit(1);
                    let Answer::Accept(name) = step.answers.take::<Answer<Name>>("name")? else {
                        return done("no booking without a name");
                    };
                    suspend(
                        Suspension::new(2, json!({"name": name.name}))
                            .ask(
                                "seat",
                                elicit::choice("Seat?", [("window", "Window"), ("aisle", "Aisle")]),
                            )
                            .ask("meal", elicit::form::<Meal>("Meal?")),
                    )
                }
                2 => {
                    effects.hit(2);
                    let name = step.frame["name"].as_str().unwrap_or_default().to_owned();
                    let seat = step
                        .answers
                        .take::<Answer<String>>("seat")?
                        .ok()
                        .unwrap_or_default();
                    let meal = step
                        .answers
                        .take::<Answer<Meal>>("meal")?
                        .ok()
                        .map(|m| m.meal)
                        .unwrap_or_default();
                    done(format!("{name}: {seat}, {meal}"))
                }
                pc => no_pc(pc),
            }
        })
    }
}

impl Tool for Booking {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("book", json!({"type": "object", "properties": {}}))
            .description("Books a seat.")
    }
}

/// Asks for a code until it is the right one: a loop whose ask reuses its key.
struct Unlock;

impl Machine for Unlock {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"unlock v1")
    }

    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let effects = step.cx.state::<Arc<Effects>>();
            let tries = step.frame["tries"].as_u64().unwrap_or(0);
            match step.pc {
                0 => {
                    effects.hit(0);
                    suspend(
                        Suspension::new(1, json!({"tries": 0}))
                            .ask("code", elicit::form::<Name>("Code?")),
                    )
                }
                1 => {
                    effects.hit(1);
                    let code = step
                        .answers
                        .take::<Answer<Name>>("code")?
                        .accepted()
                        .map_err(|e| StepError::Internal(e.to_string()))?;
                    if code.name == "open" {
                        return done(format!("unlocked after {} wrong codes", tries));
                    }
                    let again = elicit::form::<Name>("Wrong code, try again");
                    suspend(Suspension::new(1, json!({"tries": tries + 1})).ask("code", again))
                }
                pc => no_pc(pc),
            }
        })
    }
}

impl Tool for Unlock {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("unlock", json!({"type": "object"})).max_rounds(3)
    }
}

/// Degrades to sampling when the client cannot elicit; asks a form otherwise.
struct Capital;

impl Machine for Capital {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"capital v1")
    }

    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            match step.pc {
                0 if !step.cx.capabilities().elicitation_form()
                    && step.cx.capabilities().sampling() =>
                {
                    let question = sample(SamplingRequest::new(50).user("Capital of France?"));
                    suspend(Suspension::new(2, Value::Null).ask("capital", question))
                }
                0 => suspend(
                    Suspension::new(1, Value::Null)
                        .ask("capital", elicit::form::<Name>("Capital of France?")),
                ),
                1 => done(
                    step.answers
                        .take::<Answer<Name>>("capital")?
                        .ok()
                        .map(|n| n.name)
                        .unwrap_or_default(),
                ),
                2 => match step.answers.take::<Reply<SampledMessage>>("capital")? {
                    Reply::Answered(message) => done(message.text()),
                    Reply::Missing => done("the client did not answer"),
                },
                pc => no_pc(pc),
            }
        })
    }
}

impl Tool for Capital {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("capital", json!({"type": "object"}))
    }
}

/// A state-only round, then done; shows the idempotency key of each step.
struct Poll;

impl Machine for Poll {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"poll v1")
    }

    fn step<'a>(&'a self, step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let key = step.cx.idempotency_key();
            match step.pc {
                0 => suspend(Suspension::new(1, json!({"first": key})).ask("unused", recheck())),
                1 => done(format!(
                    "{} {} round {}",
                    step.frame["first"].as_str().unwrap_or_default(),
                    key,
                    step.cx.round()
                )),
                pc => no_pc(pc),
            }
        })
    }
}

impl Tool for Poll {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("poll", json!({"type": "object"}))
    }
}

/// A prompt that asks for a name first.
struct Greeting;

impl Machine for Greeting {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"greeting v1")
    }

    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            match step.pc {
                0 => suspend(
                    Suspension::new(1, Value::Null).ask("name", elicit::form::<Name>("Who?")),
                ),
                1 => {
                    let name = step
                        .answers
                        .take::<Answer<Name>>("name")?
                        .ok()
                        .map(|n| n.name)
                        .unwrap_or_default();
                    let style = step.arguments["style"].as_str().unwrap_or("plain");
                    Ok(Outcome::Complete(
                        PromptMessage::user(format!("Greet {name}, {style}")).into_prompt_result(),
                    ))
                }
                pc => no_pc(pc),
            }
        })
    }
}

impl Prompt for Greeting {
    fn descriptor(&self) -> PromptDescriptor {
        PromptDescriptor::new("greeting")
    }
}

/// A resource whose read asks for a name.
struct Notes;

impl Machine for Notes {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"notes v1")
    }

    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let id = step.arguments["id"].as_str().unwrap_or_default().to_owned();
            match step.pc {
                0 if id == "public" => Ok(Outcome::Complete(
                    ResourceContents::text("hello").into_resource_result("notes://public"),
                )),
                0 => suspend(
                    Suspension::new(1, Value::Null).ask("name", elicit::form::<Name>("Who reads?")),
                ),
                1 => {
                    let name = step
                        .answers
                        .take::<Answer<Name>>("name")?
                        .ok()
                        .map(|n| n.name)
                        .unwrap_or_default();
                    let uri = format!("notes://{id}");
                    Ok(Outcome::Complete(
                        format!("note {id} for {name}").into_resource_result(&uri),
                    ))
                }
                pc => no_pc(pc),
            }
        })
    }
}

impl Resource for Notes {
    fn descriptor(&self) -> ResourceDescriptor {
        let mut descriptor = ResourceDescriptor::new("notes", "notes://{id}");
        descriptor.cache = CacheHint {
            ttl_ms: 5_000,
            scope: CacheScope::Public,
        };
        descriptor
    }
}

fn server(effects: &Arc<Effects>) -> Server {
    let ring = KeyRing::with_signing_key(KeyId::new("test").unwrap(), SecretKey::random());
    Server::builder("engine-test", "0.1.0")
        .key_ring(ring)
        .state(Arc::clone(effects))
        .tool(Booking)
        .tool(Unlock)
        .tool(Capital)
        .tool(Poll)
        .prompt(Greeting)
        .resource(Notes)
        .authorize(|access: Access<'_>| {
            if access
                .arguments
                .get("deny_from_round")
                .and_then(Value::as_u64)
                .is_some_and(|round| u64::from(access.round) >= round)
            {
                return Err(Denied("bookings are closed".into()));
            }
            Ok(())
        })
        .build()
        .unwrap()
}

fn client() -> (Client, Arc<Effects>) {
    let effects = Arc::new(Effects::default());
    (Client::new(server(&effects)), effects)
}

// ---------------------------------------------------------------- flows

#[tokio::test]
async fn a_three_round_flow_with_a_batch_runs_each_step_once() {
    let (client, effects) = client();
    let round1 = client.call("book", json!({}), None, None).await;
    assert_eq!(result(&round1)["resultType"], "input_required");
    assert_eq!(keys(&round1), ["name"]);
    let name_request = &result(&round1)["inputRequests"]["name"];
    assert_eq!(name_request["method"], "elicitation/create");
    assert_eq!(
        name_request["params"]["requestedSchema"]["required"],
        json!(["name"])
    );
    assert!(name_request.get("jsonrpc").is_none() && name_request.get("id").is_none());

    let round2 = client
        .call(
            "book",
            json!({}),
            Some(json!({"name": accept(json!({"name": "Ann"}))})),
            Some(&state(&round1)),
        )
        .await;
    assert_eq!(
        keys(&round2),
        ["meal", "seat"],
        "seat and meal in one round"
    );
    let seat_schema = &result(&round2)["inputRequests"]["seat"]["params"]["requestedSchema"];
    assert_eq!(
        seat_schema["properties"]["seat"]["oneOf"][1],
        json!({"const": "aisle", "title": "Aisle"})
    );

    let answers =
        json!({"seat": accept(json!({"seat": "window"})), "meal": accept(json!({"meal": "veg"}))});
    let round3 = client
        .call("book", json!({}), Some(answers), Some(&state(&round2)))
        .await;
    assert_eq!(text(&round3), "Ann: window, veg");
    assert_eq!(effects.counts(), [1, 1, 1, 0], "each step ran exactly once");
    let meta = &result(&round3)["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(meta, &json!({"name": "engine-test", "version": "0.1.0"}));
    assert_eq!(result(&round3)["isError"], false);
}

#[tokio::test]
async fn a_partly_answered_batch_keeps_the_valid_answer_and_asks_only_the_rest() {
    let (client, effects) = client();
    let round1 = client
        .call(
            "book",
            json!({}),
            Some(json!({"name": accept(json!({"name": "Bo"}))})),
            None,
        )
        .await;
    assert_eq!(keys(&round1), ["meal", "seat"]);

    let partial =
        json!({"seat": accept(json!({"seat": "aisle"})), "meal": accept(json!({"meal": "beef"}))});
    let round2 = client
        .call("book", json!({}), Some(partial), Some(&state(&round1)))
        .await;
    assert_eq!(keys(&round2), ["meal"], "the valid seat is kept");
    let message = result(&round2)["inputRequests"]["meal"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with("Meal?") && message.contains("`meal` must be one of veg, fish"),
        "{message}"
    );

    let round3 = client
        .call(
            "book",
            json!({}),
            Some(json!({"meal": accept(json!({"meal": "fish"}))})),
            Some(&state(&round2)),
        )
        .await;
    assert_eq!(text(&round3), "Bo: aisle, fish");
    assert_eq!(effects.counts(), [1, 1, 1, 0], "re-asking ran no code");
}

#[tokio::test]
async fn a_decline_takes_the_other_path() {
    let (client, _) = client();
    let round1 = client.call("book", json!({}), None, None).await;
    let round2 = client
        .call(
            "book",
            json!({}),
            Some(json!({"name": {"action": "decline"}})),
            Some(&state(&round1)),
        )
        .await;
    assert_eq!(text(&round2), "no booking without a name");
}

#[tokio::test]
async fn an_answer_sent_before_its_question_counts_for_the_first_ask_only() {
    let (client, effects) = client();
    // The same key answered up front satisfies the first suspension and nothing after it.
    let responses =
        json!({"name": accept(json!({"name": "Cy"})), "seat": accept(json!({"seat": "window"}))});
    let round1 = client.call("book", json!({}), Some(responses), None).await;
    assert_eq!(
        keys(&round1),
        ["meal", "seat"],
        "the early seat answer does not count for the second ask"
    );
    assert_eq!(effects.counts(), [1, 1, 0, 0]);
}

#[tokio::test]
async fn a_loop_gets_an_invalid_answer_then_a_wrong_one_then_the_right_one() {
    let (client, effects) = client();
    let round1 = client.call("unlock", json!({}), None, None).await;
    // Invalid for the schema: asked again by the engine, the machine does not run.
    let round2 = client
        .call(
            "unlock",
            json!({}),
            Some(json!({"code": accept(json!({"name": "x"}))})),
            Some(&state(&round1)),
        )
        .await;
    assert_eq!(keys(&round2), ["code"]);
    assert!(
        result(&round2)["inputRequests"]["code"]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("at least 2 characters")
    );
    assert_eq!(effects.counts(), [1, 0, 0, 0]);
    // Valid but wrong: the machine loops and asks again under the same key; the answer is
    // consumed once and does not satisfy the new ask.
    let round3 = client
        .call(
            "unlock",
            json!({}),
            Some(json!({"code": accept(json!({"name": "nope"}))})),
            Some(&state(&round2)),
        )
        .await;
    assert_eq!(keys(&round3), ["code"]);
    assert_eq!(
        result(&round3)["inputRequests"]["code"]["params"]["message"],
        "Wrong code, try again"
    );
    assert_eq!(effects.counts(), [1, 1, 0, 0]);
    let round4 = client
        .call(
            "unlock",
            json!({}),
            Some(json!({"code": accept(json!({"name": "open"}))})),
            Some(&state(&round3)),
        )
        .await;
    assert_eq!(text(&round4), "unlocked after 1 wrong codes");
}

#[tokio::test]
async fn the_round_cap_ends_the_flow_with_a_tool_error() {
    let (client, _) = client();
    let mut response = client.call("unlock", json!({}), None, None).await;
    for round in 2..=3 {
        let wrong = json!({"code": accept(json!({"name": "nope"}))});
        response = client
            .call("unlock", json!({}), Some(wrong), Some(&state(&response)))
            .await;
        assert_eq!(
            result(&response)["resultType"],
            "input_required",
            "round {round}"
        );
    }
    let wrong = json!({"code": accept(json!({"name": "nope"}))});
    let capped = client
        .call("unlock", json!({}), Some(wrong), Some(&state(&response)))
        .await;
    assert_eq!(result(&capped)["isError"], true);
    assert!(text(&capped).contains("more than 3 rounds"), "{capped}");
}

// ---------------------------------------------------------------- inputResponses shapes

#[tokio::test]
async fn malformed_input_responses_are_protocol_errors() {
    let (client, _) = client();
    let round1 = client.call("book", json!({}), None, None).await;
    for malformed in [
        Value::Null,
        json!("name"),
        json!([1]),
        json!(12345),
        json!(true),
    ] {
        let response = client
            .call(
                "book",
                json!({}),
                Some(malformed.clone()),
                Some(&state(&round1)),
            )
            .await;
        assert_eq!(error_code(&response), -32602, "{malformed}");
    }
}

#[tokio::test]
async fn a_non_object_answer_is_asked_again_and_junk_keys_are_ignored() {
    let (client, effects) = client();
    let response = client
        .call("book", json!({}), Some(json!({"name": 12345})), None)
        .await;
    assert_eq!(keys(&response), ["name"], "re-asked, not completed");
    let response = client
        .call("book", json!({}), Some(json!({"name": "Ann"})), None)
        .await;
    assert_eq!(keys(&response), ["name"]);
    let junk =
        json!({"name": accept(json!({"name": "Dee"})), "zzz": {"action": "accept"}, "other": 1});
    let response = client.call("book", json!({}), Some(junk), None).await;
    assert_eq!(keys(&response), ["meal", "seat"]);
    assert_eq!(effects.counts()[1], 1);
}

#[tokio::test]
async fn a_wrong_key_without_state_re_requests_the_question() {
    let (client, _) = client();
    let response = client
        .call(
            "book",
            json!({}),
            Some(json!({"wrong_key": accept(json!({"name": "Ann"}))})),
            None,
        )
        .await;
    assert_eq!(keys(&response), ["name"]);
}

// ---------------------------------------------------------------- _meta and versions

#[tokio::test]
async fn meta_is_required_and_versions_are_checked() {
    let (client, _) = client();
    let discover = |params: Value| client.raw("server/discover", params);
    assert_eq!(error_code(&discover(json!({})).await), -32602);
    let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    assert_eq!(error_code(&discover(no_caps).await), -32602);
    let no_version = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
    assert_eq!(error_code(&discover(no_version).await), -32602);
    let old = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}});
    let response = discover(old).await;
    assert_eq!(error_code(&response), -32022);
    assert_eq!(
        response["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );

    let legacy = client
        .raw(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
        )
        .await;
    assert_eq!(error_code(&legacy), -32601);
    assert!(
        legacy["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2026-07-28")
    );
    assert_eq!(error_code(&client.raw("ping", json!({})).await), -32601);
}

#[tokio::test]
async fn discover_and_lists_carry_result_type_and_cache_fields() {
    let (client, _) = client();
    let discover = client
        .raw("server/discover", json!({"_meta": client.meta()}))
        .await;
    let discover = result(&discover);
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(
        discover["capabilities"],
        json!({"tools": {}, "prompts": {}, "resources": {}})
    );
    for method in [
        "tools/list",
        "prompts/list",
        "resources/templates/list",
        "resources/list",
    ] {
        // inputResponses and requestState mean nothing here and are ignored.
        let params =
            json!({"_meta": client.meta(), "inputResponses": {"x": 1}, "requestState": "junk"});
        let response = client.raw(method, params).await;
        let listed = result(&response);
        assert_eq!(listed["resultType"], "complete", "{method}");
        assert_eq!(listed["ttlMs"], 60_000, "{method}");
        assert_eq!(listed["cacheScope"], "public", "{method}");
        assert!(listed["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    }
    let tools = client
        .raw("tools/list", json!({"_meta": client.meta()}))
        .await;
    assert_eq!(
        result(&tools)["tools"][0],
        json!({"name": "book", "description": "Books a seat.", "inputSchema": {"type": "object", "properties": {}}})
    );
}

// ---------------------------------------------------------------- capabilities

#[tokio::test]
async fn an_undeclared_kind_is_never_sent() {
    let (mut client, _) = client();
    client.capabilities = json!({"sampling": {}});
    let response = client.call("book", json!({}), None, None).await;
    assert_eq!(error_code(&response), -32021);
    let required = response["error"]["data"]["requiredCapabilities"].clone();
    assert_eq!(required, json!({"elicitation": {"form": {}}}));
    // Declaring exactly what was required gets past the check.
    client.capabilities = required;
    assert_eq!(
        keys(&client.call("book", json!({}), None, None).await),
        ["name"]
    );
    client.capabilities = json!({"sampling": {}});

    // A tool that can degrade asks by sampling instead.
    let response = client.call("capital", json!({}), None, None).await;
    assert_eq!(keys(&response), ["capital"]);
    assert_eq!(
        result(&response)["inputRequests"]["capital"]["method"],
        "sampling/createMessage"
    );

    client.capabilities = json!({"elicitation": {"url": {}}});
    assert_eq!(
        error_code(&client.call("book", json!({}), None, None).await),
        -32021,
        "URL mode only is not form mode"
    );
}

#[tokio::test]
async fn a_reask_is_checked_against_the_capabilities_of_the_retry() {
    let (mut client, _) = client();
    let round1 = client.call("book", json!({}), None, None).await;
    client.capabilities = json!({"sampling": {}});
    let round2 = client
        .call("book", json!({}), None, Some(&state(&round1)))
        .await;
    assert_eq!(error_code(&round2), -32021);
}

#[tokio::test]
async fn sampling_left_unanswered_after_one_reask_resolves_as_missing() {
    let (mut client, _) = client();
    client.capabilities = json!({"sampling": {}});
    let round1 = client.call("capital", json!({}), None, None).await;
    let round2 = client
        .call("capital", json!({}), Some(json!({})), Some(&state(&round1)))
        .await;
    assert_eq!(keys(&round2), ["capital"], "re-asked once");
    let round3 = client
        .call("capital", json!({}), Some(json!({})), Some(&state(&round2)))
        .await;
    assert_eq!(text(&round3), "the client did not answer");

    let answer = json!({"capital": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}});
    let round2 = client
        .call("capital", json!({}), Some(answer), Some(&state(&round1)))
        .await;
    assert_eq!(text(&round2), "Paris");
}

// ---------------------------------------------------------------- state, rounds, context

#[tokio::test]
async fn tampered_foreign_or_rebound_states_are_refused_before_any_code_runs() {
    let (mut client, effects) = client();
    let round1 = client.call("book", json!({}), None, None).await;
    let token = state(&round1);
    let answer = Some(json!({"name": accept(json!({"name": "Ann"}))}));
    let tampered = format!("{token}-TAMPERED");
    for (tool, arguments, token) in [
        ("book", json!({}), tampered.as_str()),
        ("unlock", json!({}), token.as_str()),
        ("book", json!({"extra": 1}), token.as_str()),
    ] {
        let response = client
            .call(tool, arguments, answer.clone(), Some(token))
            .await;
        assert_eq!(error_code(&response), -32602, "{tool}");
        assert_eq!(response["error"]["message"], "invalid requestState");
    }
    client.principal = Some("mallory".into());
    assert_eq!(
        error_code(&client.call("book", json!({}), answer, Some(&token)).await),
        -32602
    );
    assert_eq!(
        effects.counts(),
        [1, 0, 0, 0],
        "no step ran on a refused state"
    );
}

#[tokio::test]
async fn a_null_request_state_is_absent() {
    let (client, _) = client();
    let params =
        json!({"_meta": client.meta(), "name": "book", "arguments": {}, "requestState": null});
    assert_eq!(keys(&client.raw("tools/call", params).await), ["name"]);
    let params = json!({"_meta": client.meta(), "name": "book", "requestState": 7});
    assert_eq!(error_code(&client.raw("tools/call", params).await), -32602);
}

#[tokio::test]
async fn a_state_only_round_has_no_input_requests_and_keys_differ_per_step() {
    let (client, _) = client();
    let round1 = client.call("poll", json!({}), None, None).await;
    let first = result(&round1);
    assert_eq!(first["resultType"], "input_required");
    assert!(
        first.get("inputRequests").is_none(),
        "never an empty map: {first}"
    );
    let token = state(&round1);
    let round2 = client.call("poll", json!({}), None, Some(&token)).await;
    let replay = client.call("poll", json!({}), None, Some(&token)).await;
    let words: Vec<String> = text(&round2).split(' ').map(str::to_owned).collect();
    let (first_key, second_key) = (&words[0], &words[1]);
    assert!(
        first_key.ends_with("-0") && second_key.ends_with("-1"),
        "{words:?}"
    );
    assert_eq!(first_key[..32], second_key[..32], "same flow");
    assert_eq!(
        text(&round2),
        text(&replay),
        "a replayed token gets the same key"
    );
    assert!(text(&round2).ends_with("round 2"));
}

#[tokio::test]
async fn the_authorization_hook_runs_every_round() {
    let (client, effects) = client();
    let arguments = json!({"deny_from_round": 2});
    let round1 = client.call("book", arguments.clone(), None, None).await;
    assert_eq!(keys(&round1), ["name"]);
    let answer = json!({"name": accept(json!({"name": "Ann"}))});
    let round2 = client
        .call("book", arguments, Some(answer), Some(&state(&round1)))
        .await;
    assert_eq!(result(&round2)["isError"], true);
    assert_eq!(text(&round2), "not authorized: bookings are closed");
    assert_eq!(
        effects.counts(),
        [1, 0, 0, 0],
        "the flow stopped before resuming"
    );
}

// ---------------------------------------------------------------- prompts and resources

#[tokio::test]
async fn a_prompt_asks_then_completes() {
    let (client, _) = client();
    let params = |extra: Value| {
        let mut params =
            json!({"_meta": client.meta(), "name": "greeting", "arguments": {"style": "warm"}});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        params
    };
    let round1 = client.raw("prompts/get", params(json!({}))).await;
    assert_eq!(keys(&round1), ["name"]);
    let retry = json!({"inputResponses": {"name": accept(json!({"name": "Eve"}))}, "requestState": state(&round1)});
    let round2 = client.raw("prompts/get", params(retry)).await;
    assert_eq!(
        result(&round2)["messages"][0]["content"]["text"],
        "Greet Eve, warm"
    );
    assert_eq!(result(&round2)["resultType"], "complete");
    assert!(
        result(&round2).get("ttlMs").is_none(),
        "prompts are not cacheable results"
    );
}

#[tokio::test]
async fn a_resource_read_after_a_retry_is_not_cacheable() {
    let (client, _) = client();
    let read = |extra: Value| {
        let mut params = json!({"_meta": client.meta(), "uri": "notes://42"});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        client.raw("resources/read", params)
    };
    let round1 = read(json!({})).await;
    assert!(
        result(&round1).get("ttlMs").is_none(),
        "input_required carries no cache hints"
    );
    let round2 = read(json!({"inputResponses": {"name": accept(json!({"name": "Flo"}))}, "requestState": state(&round1)})).await;
    let final_result = result(&round2);
    assert_eq!(
        final_result["contents"][0],
        json!({"uri": "notes://42", "text": "note 42 for Flo"})
    );
    assert_eq!(
        (
            final_result["ttlMs"].clone(),
            final_result["cacheScope"].clone()
        ),
        (json!(0), json!("private"))
    );

    let public = client
        .raw(
            "resources/read",
            json!({"_meta": client.meta(), "uri": "notes://public"}),
        )
        .await;
    assert_eq!(
        (
            result(&public)["ttlMs"].clone(),
            result(&public)["cacheScope"].clone()
        ),
        (json!(5000), json!("public"))
    );
    let unknown = client
        .raw(
            "resources/read",
            json!({"_meta": client.meta(), "uri": "other://1"}),
        )
        .await;
    assert_eq!(error_code(&unknown), -32602);
}
