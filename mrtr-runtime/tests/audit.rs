//! Issue 16 (spec audit and security review), probed through `Server::handle` as a client
//! would: each test failed before its fix.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use mrtr_runtime::form::FormField;
use mrtr_runtime::machine::{
    Machine, Outcome, Prompt, PromptDescriptor, Step, StepError, Suspension, Tool, ToolDescriptor,
};
use mrtr_runtime::token::{
    Fingerprint, KeyId, KeyRing, ManualClock, SecretKey, StateCodec, TokenId,
};
use mrtr_runtime::{
    Access, Answer, AnswerError, BoxFuture, CallToolResult, DEFAULT_MAX_ROUNDS, Denied, Form,
    Redemption, ReplayStore, ReplayStoreError, Server, ServerBuilder, ToolOutput, elicit, recheck,
};
use serde_json::{Map, Value, json};
use support::{Client, accept, error_code, keys, result, state, text, within};

struct Name {
    name: String,
}

impl Form for Name {
    fn requested_schema() -> Value {
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    }
    fn from_content(content: &Map<String, Value>) -> Result<Self, AnswerError> {
        Ok(Self {
            name: String::decode(content.get("name"))?,
        })
    }
}

/// What the machines did: steps reached, and a switch the authorization hook reads.
#[derive(Default)]
struct World {
    steps: [AtomicUsize; 3],
    closed: AtomicBool,
}

impl World {
    fn hit(&self, step: usize) {
        self.steps[step].fetch_add(1, Ordering::SeqCst);
    }
    fn count(&self, step: usize) -> usize {
        self.steps[step].load(Ordering::SeqCst)
    }
}

fn done(message: impl Into<String>) -> Result<Outcome, StepError> {
    Ok(Outcome::Complete(
        CallToolResult::text(message).into_tool_result(),
    ))
}

macro_rules! tool {
    ($ty:ident, $name:literal) => {
        impl Tool for $ty {
            fn descriptor(&self) -> ToolDescriptor {
                ToolDescriptor::new($name, json!({"type": "object"}))
            }
        }
    };
}

/// Asks for a name, then greets.
struct Greet;

impl Machine for Greet {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"greet")
    }
    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let world = step.cx.state::<Arc<World>>();
            match step.pc {
                0 => {
                    world.hit(0);
                    Ok(Outcome::Suspend(
                        Suspension::new(1, Value::Null).ask("name", elicit::form::<Name>("Name?")),
                    ))
                }
                _ => {
                    world.hit(1);
                    let name = step.answers.take::<Answer<Name>>("name")?;
                    done(format!(
                        "hello {}",
                        name.ok().map(|n| n.name).unwrap_or_default()
                    ))
                }
            }
        })
    }
}
tool!(Greet, "greet");

/// A form and a URL sign-in in one batch.
struct Signup;

impl Machine for Signup {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"signup")
    }
    fn step<'a>(&'a self, step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            match step.pc {
                0 => Ok(Outcome::Suspend(
                    Suspension::new(1, Value::Null)
                        .ask("name", elicit::form::<Name>("Name?"))
                        .ask("consent", elicit::url("Sign in", "https://example.com/in")),
                )),
                _ => done("signed up"),
            }
        })
    }
}
tool!(Signup, "signup");

/// Sends the user to the URL given in its arguments.
struct Visit;

impl Machine for Visit {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"visit")
    }
    fn step<'a>(&'a self, step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let url = step.arguments["url"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            match step.pc {
                0 => Ok(Outcome::Suspend(
                    Suspension::new(1, Value::Null).ask("go", elicit::url("Open this", url)),
                )),
                _ => done("visited"),
            }
        })
    }
}
tool!(Visit, "visit");

/// Runs step 0, yields to the executor, then runs step 1: a cancellation in between must
/// leave step 1 unrun.
struct Slow;

impl Machine for Slow {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"slow")
    }
    fn step<'a>(&'a self, step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let world = step.cx.state::<Arc<World>>();
            world.hit(0);
            tokio::task::yield_now().await;
            world.hit(1);
            done("finished")
        })
    }
}
tool!(Slow, "slow");

/// Suspends without a question, forever.
struct Forever;

impl Machine for Forever {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"forever")
    }
    fn step<'a>(&'a self, step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            Ok(Outcome::Suspend(
                Suspension::new(step.pc + 1, Value::Null).ask("again", recheck()),
            ))
        })
    }
}
tool!(Forever, "forever");

/// A prompt whose author's code fails (as `ask!(..).accepted()?` does on a decline).
struct Refusing;

impl Machine for Refusing {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"refusing")
    }
    fn step<'a>(&'a self, _: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move { Ok(Outcome::Failed("the user declined the request".into())) })
    }
}

impl Prompt for Refusing {
    fn descriptor(&self) -> PromptDescriptor {
        PromptDescriptor::new("refusing")
    }
}

fn builder(world: &Arc<World>) -> ServerBuilder {
    let ring = KeyRing::with_signing_key(KeyId::new("audit").unwrap(), SecretKey::random());
    let closed = Arc::clone(world);
    Server::builder("audit", "0.1.0")
        .key_ring(ring)
        .state(Arc::clone(world))
        .tool(Greet)
        .tool(Signup)
        .tool(Visit)
        .tool(Slow)
        .tool(Forever)
        .prompt(Refusing)
        .authorize(move |_: Access<'_>| {
            if closed.closed.load(Ordering::SeqCst) {
                Err(Denied("closed for now".into()))
            } else {
                Ok(())
            }
        })
}

fn client_with(build: impl FnOnce(ServerBuilder) -> ServerBuilder) -> (Client, Arc<World>) {
    let world = Arc::new(World::default());
    let server = build(builder(&world)).build().unwrap();
    (Client::new(server), world)
}

fn client() -> (Client, Arc<World>) {
    client_with(|builder| builder)
}

// ---------------------------------------------------------------- protocol

#[tokio::test]
async fn declaring_exactly_the_required_capabilities_of_form_and_url_gets_through() {
    within(async {
        let (mut client, _) = client();
        client.capabilities = json!({});
        let refused = client.call("signup", json!({}), None, None).await;
        assert_eq!(error_code(&refused), -32021);
        let required = refused["error"]["data"]["requiredCapabilities"].clone();
        assert_eq!(required, json!({"elicitation": {"form": {}, "url": {}}}));
        client.capabilities = required;
        let asked = client.call("signup", json!({}), None, None).await;
        assert_eq!(keys(&asked), ["consent", "name"]);
    })
    .await;
}

#[tokio::test]
async fn an_invalid_url_is_never_sent() {
    within(async {
        let (mut client, _) = client();
        client.capabilities = json!({"elicitation": {"url": {}}});
        for bad in ["example.com/sign-in", "", "https://", "not a url"] {
            let response = client.call("visit", json!({"url": bad}), None, None).await;
            let result = result(&response);
            assert_eq!(result["resultType"], "complete", "{response}");
            assert_eq!(result["isError"], true, "{response}");
            assert!(result.get("inputRequests").is_none());
            assert!(text(&response).contains("not a valid URL"), "{response}");
        }
        let good = client
            .call(
                "visit",
                json!({"url": "https://example.com/in"}),
                None,
                None,
            )
            .await;
        assert_eq!(keys(&good), ["go"]);
    })
    .await;
}

#[tokio::test]
async fn a_cancelled_request_stops_its_step_and_gets_no_response() {
    within(async {
        let (client, world) = client();
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": client.meta(), "name": "slow"}});
        let started = Arc::clone(&world);
        let cancelled = async move {
            while started.count(0) == 0 {
                tokio::task::yield_now().await;
            }
        };
        let response = client
            .server
            .handle_until(request.clone(), None, cancelled)
            .await;
        assert_eq!(response, None, "a cancelled request is not answered");
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            (world.count(0), world.count(1)),
            (1, 0),
            "nothing ran after the cancellation point"
        );

        // Without a cancellation, the same request finishes.
        let response = client
            .server
            .handle_until(request, None, std::future::pending())
            .await
            .unwrap();
        assert_eq!(response["result"]["content"][0]["text"], "finished");
    })
    .await;
}

#[tokio::test]
async fn a_prompt_authors_error_is_a_clear_json_rpc_error_with_their_message() {
    within(async {
        let (client, _) = client();
        let response = client
            .raw(
                "prompts/get",
                json!({"_meta": client.meta(), "name": "refusing"}),
            )
            .await;
        assert_eq!(error_code(&response), -32000, "{response}");
        assert_eq!(
            response["error"]["message"],
            "the user declined the request"
        );
        assert_eq!(
            response["error"]["data"]["message"],
            "the user declined the request"
        );
    })
    .await;
}

#[tokio::test]
async fn invalid_requests_are_minus_32600() {
    within(async {
        let (client, _) = client();
        for request in [
            json!("tools/list"),
            json!([1]),
            json!({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 1}),
        ] {
            let response = client.server.handle(request.clone()).await;
            assert_eq!(error_code(&response), -32600, "{request}");
        }
    })
    .await;
}

// ---------------------------------------------------------------- single use

/// A store that is down.
struct Down;

impl ReplayStore for Down {
    fn consume(&self, _: TokenId, _: u64, _: u64) -> BoxFuture<'_, Result<bool, ReplayStoreError>> {
        Box::pin(async { Err(ReplayStoreError::new("connection refused")) })
    }
}

#[tokio::test]
async fn a_failing_single_use_store_is_minus_32603_and_runs_nothing() {
    within(async {
        let (client, world) = client_with(|builder| builder.single_use(true).replay_store(Down));
        let round1 = client.call("greet", json!({}), None, None).await;
        let answer = json!({"name": accept(json!({"name": "Ann"}))});
        let round2 = client
            .call("greet", json!({}), Some(answer), Some(&state(&round1)))
            .await;
        assert_eq!(error_code(&round2), -32603, "{round2}");
        assert!(
            !round2.to_string().contains("connection refused"),
            "{round2}"
        );
        assert_eq!(world.count(1), 0);
    })
    .await;
}

#[tokio::test]
async fn the_server_option_makes_every_tool_single_use() {
    within(async {
        let (client, world) = client_with(|builder| builder.single_use(true));
        let round1 = client.call("greet", json!({}), None, None).await;
        let answer = json!({"name": accept(json!({"name": "Ann"}))});
        let first = client
            .call(
                "greet",
                json!({}),
                Some(answer.clone()),
                Some(&state(&round1)),
            )
            .await;
        assert_eq!(text(&first), "hello Ann");
        let replay = client
            .call("greet", json!({}), Some(answer), Some(&state(&round1)))
            .await;
        assert_eq!(error_code(&replay), -32602, "{replay}");
        assert_eq!(world.count(1), 1);
    })
    .await;
}

#[tokio::test]
async fn a_denied_round_does_not_spend_a_single_use_state() {
    within(async {
        let (client, world) = client_with(|builder| builder.single_use(true));
        let round1 = client.call("greet", json!({}), None, None).await;
        let answer = json!({"name": accept(json!({"name": "Ann"}))});
        world.closed.store(true, Ordering::SeqCst);
        let denied = client
            .call(
                "greet",
                json!({}),
                Some(answer.clone()),
                Some(&state(&round1)),
            )
            .await;
        assert_eq!(result(&denied)["isError"], true);
        assert_eq!(text(&denied), "not authorized: closed for now");
        world.closed.store(false, Ordering::SeqCst);
        let allowed = client
            .call("greet", json!({}), Some(answer), Some(&state(&round1)))
            .await;
        assert_eq!(text(&allowed), "hello Ann", "{allowed}");
    })
    .await;
}

#[tokio::test]
async fn a_single_use_id_is_kept_as_long_as_the_codec_accepts_its_token() {
    within(async {
        let clock = ManualClock::new(1_800_000_000);
        let codec = StateCodec::builder()
            .key_ring(KeyRing::with_signing_key(
                KeyId::new("skew").unwrap(),
                SecretKey::random(),
            ))
            .round_ttl(Duration::from_secs(600))
            .clock_skew(Duration::from_secs(300))
            .clock(clock.clone())
            .build()
            .unwrap();
        let (client, world) = client_with(|builder| builder.codec(codec).single_use(true));
        let round1 = client.call("greet", json!({}), None, None).await;
        let answer = json!({"name": accept(json!({"name": "Ann"}))});
        let first = client
            .call(
                "greet",
                json!({}),
                Some(answer.clone()),
                Some(&state(&round1)),
            )
            .await;
        assert_eq!(text(&first), "hello Ann");
        // Past expiry + 60 s, still inside expiry + skew: the codec would accept the token.
        clock.advance(600 + 200);
        let replay = client
            .call("greet", json!({}), Some(answer), Some(&state(&round1)))
            .await;
        assert_eq!(error_code(&replay), -32602, "redeemed twice: {replay}");
        assert_eq!(world.count(1), 1);
    })
    .await;
}

// ---------------------------------------------------------------- bindings and rounds

#[tokio::test]
async fn an_anonymous_state_is_not_the_empty_principals_and_back() {
    within(async {
        let (mut client, world) = client();
        let answer = json!({"name": accept(json!({"name": "Ann"}))});
        for (minted_by, presented_by) in [(None, Some("")), (Some(""), None)] {
            client.principal = minted_by.map(str::to_owned);
            let round1 = client.call("greet", json!({}), None, None).await;
            client.principal = presented_by.map(str::to_owned);
            let retry = client
                .call(
                    "greet",
                    json!({}),
                    Some(answer.clone()),
                    Some(&state(&round1)),
                )
                .await;
            assert_eq!(
                error_code(&retry),
                -32602,
                "{minted_by:?} → {presented_by:?}"
            );
        }
        assert_eq!(world.count(1), 0);
    })
    .await;
}

#[tokio::test]
async fn the_default_round_cap_is_ten_input_required_rounds() {
    within(async {
        assert_eq!(DEFAULT_MAX_ROUNDS, 10);
        let (client, _) = client();
        let mut response = client.call("forever", json!({}), None, None).await;
        let mut rounds = 0;
        while result(&response)["resultType"] == "input_required" {
            rounds += 1;
            assert!(rounds <= 50, "no cap");
            response = client
                .call("forever", json!({}), None, Some(&state(&response)))
                .await;
        }
        assert_eq!(rounds, DEFAULT_MAX_ROUNDS);
        assert_eq!(result(&response)["isError"], true);
        assert!(
            text(&response).contains("more than 10 rounds"),
            "{response}"
        );
    })
    .await;
}

// ---------------------------------------------------------------- issue 27: what clients learn

#[tokio::test]
async fn a_state_over_the_size_cap_is_an_error_that_names_no_limit_or_size() {
    within(async {
        // An odd cap, so that its digits cannot appear in the message by chance.
        const CAP: usize = 173;
        let ring = KeyRing::with_signing_key(KeyId::new("audit").unwrap(), SecretKey::random());
        let codec = StateCodec::builder()
            .key_ring(ring)
            .audience("audit")
            .max_token_len(CAP)
            .build()
            .unwrap();
        let (client, _) = client_with(|builder| builder.codec(codec));
        let response = client.call("greet", json!({}), None, None).await;
        assert_eq!(error_code(&response), -32603, "{response}");
        // What the client reads: the message and any data (the code is -32603, digits).
        let error = format!(
            "{} {}",
            response["error"]["message"], response["error"]["data"]
        );
        assert!(
            !error.contains(&CAP.to_string()),
            "the cap reaches the client: {error}"
        );
        assert!(
            !error.chars().any(|c| c.is_ascii_digit()),
            "a size reaches the client: {error}"
        );
        assert!(error.contains("server log"), "says where to look: {error}");
    })
    .await;
}

/// What a store was told of one redemption: the principal and the clock-skew allowance.
type Told = (Option<String>, u64);

/// A store that records what the server tells it of each redemption.
#[derive(Clone, Default)]
struct Recording(Arc<std::sync::Mutex<Vec<Told>>>);

impl ReplayStore for Recording {
    fn consume(&self, _: TokenId, _: u64, _: u64) -> BoxFuture<'_, Result<bool, ReplayStoreError>> {
        unreachable!("the server calls redeem")
    }

    fn redeem<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, ReplayStoreError>> {
        let seen = (
            redemption.principal.map(str::to_owned),
            redemption.clock_skew,
        );
        self.0.lock().unwrap().push(seen);
        Box::pin(async { Ok(true) })
    }
}

#[tokio::test]
async fn a_store_learns_the_principal_and_the_codec_clock_skew() {
    within(async {
        let store = Recording::default();
        let ring = KeyRing::with_signing_key(KeyId::new("audit").unwrap(), SecretKey::random());
        let codec = StateCodec::builder()
            .key_ring(ring)
            .audience("audit")
            .clock_skew(Duration::from_secs(45))
            .build()
            .unwrap();
        let (mut client, _) = client_with(|builder| {
            builder
                .codec(codec)
                .single_use(true)
                .replay_store(store.clone())
        });
        client.principal = Some("ana".into());
        let round1 = client.call("greet", json!({}), None, None).await;
        let answer = json!({"name": accept(json!({"name": "Ann"}))});
        let round2 = client
            .call("greet", json!({}), Some(answer), Some(&state(&round1)))
            .await;
        assert_eq!(text(&round2), "hello Ann");
        assert_eq!(*store.0.lock().unwrap(), [(Some("ana".to_owned()), 45)]);
    })
    .await;
}

#[tokio::test]
async fn one_principal_cannot_fill_a_memory_store_for_the_others() {
    within(async {
        // A store of 20 ids: 2 per principal.
        let (mut client, _) = client_with(|builder| {
            builder
                .single_use(true)
                .replay_store(mrtr_runtime::MemoryStore::with_capacity(20))
        });
        client.principal = Some("mallory".into());
        for _ in 0..2 {
            assert_eq!(text(&redeem_greet(&client).await), "hello Ann");
        }
        let refused = redeem_greet(&client).await;
        assert_eq!(error_code(&refused), -32603, "{refused}");
        client.principal = Some("ana".into());
        assert_eq!(text(&redeem_greet(&client).await), "hello Ann");
    })
    .await;
}

/// Runs `greet` to its end: its first round, then the retry that redeems the state.
async fn redeem_greet(client: &Client) -> Value {
    let round1 = client.call("greet", json!({}), None, None).await;
    let answer = json!({"name": accept(json!({"name": "Ann"}))});
    client
        .call("greet", json!({}), Some(answer), Some(&state(&round1)))
        .await
}
