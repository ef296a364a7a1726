//! `mrtr inspect` against real tokens: sealed by a codec with a known key, and minted by a
//! generated tool through the testing harness.

use std::process::{Command, Output};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mrtr::testing::Harness;
use mrtr::token::{Binding, Fingerprint, KeyId, KeyRing, ManualClock, Mode, SecretKey, StateCodec};
use mrtr::{Form, ToolError, elicit};
use serde_json::{Value, json};

const KEY: &[u8; 32] = b"an inspect test key, 32 bytes ok";

fn keys() -> String {
    format!("ops-1:{}", URL_SAFE_NO_PAD.encode(KEY))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token for `tools/call` of `book` with `{"to": "Oslo"}` by `ana`, sealed at `issued`.
fn token(mode: Mode, issued: u64) -> String {
    let ring = KeyRing::with_signing_key(
        KeyId::new("ops-1").unwrap(),
        SecretKey::from_bytes(KEY.to_vec()).unwrap(),
    );
    let codec = StateCodec::builder()
        .mode(mode)
        .key_ring(ring)
        .audience("travel")
        .round_ttl(Duration::from_secs(600))
        .clock(ManualClock::new(issued))
        .build()
        .unwrap();
    let flow = codec.start_flow(Fingerprint::of_version("tool", "book", 1));
    let arguments = json!({"to": "Oslo"});
    let binding = Binding::new("tools/call", "book", Some(&arguments)).principal(Some("ana"));
    codec
        .seal(&flow, &binding, &json!({"city": "Oslo"}))
        .unwrap()
}

fn mrtr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtr"))
        .args(args)
        .env_remove("MRTR_STATE_KEYS")
        .output()
        .expect("mrtr runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Checks `token` as the request `book {"to": to}` by `principal` would present it.
fn checked(token: &str, tool: &str, to: &str, principal: &str) -> Output {
    let arguments = json!({"to": to}).to_string();
    let keys = keys();
    mrtr(&[
        "inspect",
        token,
        "--keys",
        &keys,
        "--tool",
        tool,
        "--audience",
        "travel",
        "--arguments",
        &arguments,
        "--principal",
        principal,
    ])
}

#[test]
fn an_hmac_token_reads_without_a_key() {
    let output = mrtr(&["inspect", &token(Mode::Hmac, now())]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("HMAC, key \"ops-1\""), "{text}");
    assert!(text.contains("round     1"), "{text}");
    assert!(text.contains(r#"payload   {"city":"Oslo"}"#), "{text}");
    assert!(text.contains("readable and not expired"), "{text}");
}

#[test]
fn an_aead_token_shows_its_header_only_until_the_key_is_given() {
    let token = token(Mode::Aead, now());
    let sealed = mrtr(&["inspect", &token]);
    assert_eq!(sealed.status.code(), Some(0));
    let text = stdout(&sealed);
    assert!(text.contains("AEAD, key \"ops-1\""), "{text}");
    assert!(text.contains("sealed (AEAD): pass --keys"), "{text}");
    assert!(!text.contains("Oslo"), "{text}");

    let opened = mrtr(&["inspect", &token, "--keys", &keys()]);
    assert_eq!(opened.status.code(), Some(0), "{}", stderr(&opened));
    assert!(stdout(&opened).contains(r#"{"city":"Oslo"}"#));
}

#[test]
fn the_request_it_was_sealed_for_is_valid() {
    for mode in [Mode::Aead, Mode::Hmac] {
        let output = checked(&token(mode, now()), "book", "Oslo", "ana");
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(stdout(&output).contains("valid: the server would accept it"));
    }
}

/// The check named in `--json` output, and the exit code.
fn refused_check(output: &Output) -> (Option<i32>, Value) {
    let report: Value = serde_json::from_str(&stdout(output)).expect("JSON");
    (output.status.code(), report["verdict"]["check"].clone())
}

#[test]
fn each_check_that_refuses_is_named() {
    let token = token(Mode::Aead, now());
    let with_json = |mut args: Vec<String>| {
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mrtr(&args)
    };
    let request = |tool: &str, to: &str, principal: &str| -> Vec<String> {
        [
            "inspect",
            &token,
            "--keys",
            &keys(),
            "--tool",
            tool,
            "--audience",
            "travel",
            "--arguments",
            &json!({"to": to}).to_string(),
            "--principal",
            principal,
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let cases = [
        (request("book", "Rome", "ana"), "arguments"),
        (request("book", "Oslo", "bo"), "principal"),
        (request("cancel", "Oslo", "ana"), "target"),
    ];
    for (args, expected) in cases {
        let (code, check) = refused_check(&with_json(args));
        assert_eq!((code, check), (Some(1), json!(expected)));
    }
    let mut other_code = request("book", "Oslo", "ana");
    other_code.extend(["--version".into(), "2".into()]);
    let (code, check) = refused_check(&with_json(other_code));
    assert_eq!((code, check), (Some(1), json!("code")));

    let mut altered = token.clone().into_bytes();
    let middle = altered.len() / 2;
    altered[middle] = if altered[middle] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered).unwrap();
    let output = checked(&altered, "book", "Oslo", "ana");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("refused (altered)"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn an_expired_token_is_refused_even_without_a_request() {
    let old = token(Mode::Hmac, now() - 3600);
    let output = mrtr(&["inspect", &old, "--json"]);
    let (code, check) = refused_check(&output);
    assert_eq!((code, check), (Some(1), json!("expired")));
    let output = checked(&old, "book", "Oslo", "ana");
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("refused (expired)"));
}

#[test]
fn a_key_that_is_not_in_the_ring_is_named() {
    let other = format!("ops-2:{}", URL_SAFE_NO_PAD.encode([7u8; 32]));
    let output = mrtr(&[
        "inspect",
        &token(Mode::Aead, now()),
        "--keys",
        &other,
        "--json",
    ]);
    let (code, check) = refused_check(&output);
    assert_eq!((code, check), (Some(1), json!("unknown_key")));
}

#[test]
fn garbage_and_other_versions_are_unreadable() {
    let garbage = mrtr(&["inspect", "not a token"]);
    assert_eq!(garbage.status.code(), Some(2));
    assert!(
        stderr(&garbage).contains("unreadable"),
        "{}",
        stderr(&garbage)
    );

    let token = token(Mode::Hmac, now());
    let older = format!("m1.{}", &token[3..]);
    let output = mrtr(&["inspect", &older]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("another mrtr version"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn command_lines_that_cannot_run_exit_64() {
    assert_eq!(mrtr(&["inspect"]).status.code(), Some(64));
    let token = token(Mode::Aead, now());
    let without_key = mrtr(&["inspect", &token, "--tool", "book", "--audience", "travel"]);
    assert_eq!(without_key.status.code(), Some(64));
    assert!(stderr(&without_key).contains("needs the key"));
    let without_audience = mrtr(&["inspect", &token, "--keys", &keys(), "--tool", "book"]);
    assert_eq!(without_audience.status.code(), Some(64));
    assert!(stderr(&without_audience).contains("--audience"));
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Trip {
    to: String,
}

#[derive(Form)]
struct Confirm {
    /// Book it?
    ok: bool,
}

#[mrtr::tool]
async fn book(trip: Trip) -> Result<String, ToolError> {
    let nights = 3;
    let sure = ask!(elicit::form::<Confirm>(format!(
        "{nights} nights in {}?",
        trip.to
    )));
    Ok(format!("{} {}", sure.accepted()?.ok, nights))
}

#[tokio::test]
async fn an_engine_state_shows_its_resume_point_kept_values_and_question() {
    let harness = Harness::builder_for_tool(book).mode(Mode::Hmac).build();
    harness.clock().set(now());
    let round = harness.call(json!({"to": "Oslo"})).await;
    let point = mrtr::Machine::resume_points(&book)[0].id;
    let output = mrtr(&["inspect", &round.state(), "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["engine_state"], true);
    assert_eq!(report["resume_point"], format!("{point:08x}"));
    assert_eq!(report["kept"], json!({"nights": 3}));
    assert_eq!(
        report["pending"]["sure"]["params"]["message"],
        "3 nights in Oslo?"
    );
    assert_eq!(report["verdict"]["status"], "unchecked");

    let harness_key = format!(
        "harness:{}",
        URL_SAFE_NO_PAD.encode(b"mrtr testing harness: public key")
    );
    let checked = mrtr(&[
        "inspect",
        &round.state(),
        "--keys",
        &harness_key,
        "--tool",
        "book",
        "--audience",
        "harness",
        "--arguments",
        r#"{"to": "Oslo"}"#,
    ]);
    assert_eq!(checked.status.code(), Some(0), "{}", stdout(&checked));
    let text = stdout(&checked);
    assert!(
        text.contains(&format!("resume    point {point:08x}")),
        "{text}"
    );
    assert!(text.contains("valid"), "{text}");
}
