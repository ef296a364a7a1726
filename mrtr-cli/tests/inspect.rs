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

/// A keys file, readable by its owner only, removed when dropped.
struct KeysFile(std::path::PathBuf);

impl KeysFile {
    fn new(name: &str, contents: &str) -> Self {
        let path = std::env::temp_dir().join(format!("mrtr-{name}-{}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        Self(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for KeysFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
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

/// Checks `token` as the request `book {"to": to}` by `principal` would present it, with the
/// keys in the environment.
fn checked(token: &str, tool: &str, to: &str, principal: &str) -> Output {
    let arguments = json!({"to": to}).to_string();
    mrtr_with_env_keys(
        &[
            "inspect",
            token,
            "--tool",
            tool,
            "--audience",
            "travel",
            "--arguments",
            &arguments,
            "--principal",
            principal,
        ],
        &keys(),
    )
}

#[test]
fn an_hmac_token_reads_without_a_key() {
    let output = mrtr(&["inspect", &token(Mode::Hmac, now())]);
    assert_eq!(
        output.status.code(),
        Some(UNVERIFIED),
        "{}",
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(text.contains("HMAC, key \"ops-1\""), "{text}");
    assert!(text.contains("body      UNAUTHENTICATED"), "{text}");
    assert!(text.contains("round     1"), "{text}");
    assert!(text.contains(r#"payload   {"city":"Oslo"}"#), "{text}");
    assert!(text.contains("not verified: give the keys"), "{text}");
}

#[test]
fn an_aead_token_shows_its_header_only_until_the_key_is_given() {
    let token = token(Mode::Aead, now());
    let sealed = mrtr(&["inspect", &token]);
    assert_eq!(sealed.status.code(), Some(UNVERIFIED));
    let text = stdout(&sealed);
    assert!(text.contains("AEAD, key \"ops-1\""), "{text}");
    assert!(text.contains("sealed (AEAD): give the keys"), "{text}");
    assert!(!text.contains("Oslo"), "{text}");

    let opened = mrtr_with_env_keys(&["inspect", &token], &keys());
    assert_eq!(
        opened.status.code(),
        Some(UNVERIFIED),
        "{}",
        stderr(&opened)
    );
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
    let keys_file = KeysFile::new("refusals", &keys());
    let with_json = |mut args: Vec<String>| {
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mrtr(&args)
    };
    let request = |tool: &str, to: &str, principal: &str| -> Vec<String> {
        [
            "inspect",
            &token,
            "--keys-file",
            keys_file.path(),
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
    let output = mrtr_with_env_keys(&["inspect", &token(Mode::Aead, now()), "--json"], &other);
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
    let without_audience = mrtr_with_env_keys(&["inspect", &token, "--tool", "book"], &keys());
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
    let point = mrtr::machine::Machine::resume_points(&book)[0].id;
    let output = mrtr(&["inspect", &round.state(), "--json"]);
    assert_eq!(
        output.status.code(),
        Some(UNVERIFIED),
        "{}",
        stderr(&output)
    );
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
    let checked = mrtr_with_env_keys(
        &[
            "inspect",
            &round.state(),
            "--tool",
            "book",
            "--audience",
            "harness",
            "--arguments",
            r#"{"to": "Oslo"}"#,
        ],
        &harness_key,
    );
    assert_eq!(checked.status.code(), Some(0), "{}", stdout(&checked));
    let text = stdout(&checked);
    assert!(
        text.contains(&format!("resume    point {point:08x}")),
        "{text}"
    );
    assert!(text.contains("valid"), "{text}");
}

// ---------------------------------------------------------------- issue 27

/// Characters that would act on the terminal instead of showing: ESC (and with it every
/// escape sequence), BEL, DEL, the C1 CSI, a right-to-left override.
const HOSTILE: [char; 5] = ['\u{1b}', '\u{7}', '\u{7f}', '\u{9b}', '\u{202e}'];

fn assert_terminal_safe(output: &Output) {
    for text in [stdout(output), stderr(output)] {
        for c in HOSTILE {
            assert!(!text.contains(c), "{c:?} reaches the terminal: {text:?}");
        }
    }
}

/// `token` with the bytes `from` replaced by `to`, of the same length, wherever they occur
/// (an HMAC token's tag is only checked with its key and request).
fn tampered(token: &str, from: &[u8], to: &[u8]) -> String {
    assert_eq!(from.len(), to.len());
    let mut bytes = URL_SAFE_NO_PAD.decode(&token[3..]).unwrap();
    let mut found = false;
    for start in 0..=bytes.len() - from.len() {
        if &bytes[start..start + from.len()] == from {
            bytes[start..start + from.len()].copy_from_slice(to);
            found = true;
        }
    }
    assert!(found, "{from:?} is in the token");
    format!("m2.{}", URL_SAFE_NO_PAD.encode(bytes))
}

#[test]
fn control_characters_in_a_payload_are_escaped() {
    let ring = KeyRing::with_signing_key(
        KeyId::new("ops-1").unwrap(),
        SecretKey::from_bytes(KEY.to_vec()).unwrap(),
    );
    let codec = StateCodec::builder()
        .mode(Mode::Hmac)
        .key_ring(ring)
        .audience("travel")
        .build()
        .unwrap();
    let flow = codec.start_flow(Fingerprint::of_version("tool", "book", 1));
    let binding = Binding::new("tools/call", "book", None);
    let hostile: String = HOSTILE.iter().collect();
    let payload = json!({"city": format!("Oslo{hostile}[2J"), format!("{hostile}key"): 1});
    let token = codec.seal(&flow, &binding, &payload).unwrap();

    let human = mrtr(&["inspect", &token]);
    assert_terminal_safe(&human);
    let text = stdout(&human);
    assert!(text.contains(r"\u001b"), "ESC shows as an escape: {text}");
    assert!(text.contains(r"\u202e"), "so does the override: {text}");

    let as_json = mrtr(&["inspect", &token, "--json"]);
    assert_terminal_safe(&as_json);
    let report: Value = serde_json::from_str(&stdout(&as_json)).expect("still JSON");
    assert_eq!(report["payload"], payload, "the same data, escaped");
}

#[tokio::test]
async fn control_characters_in_an_engine_state_are_escaped() {
    let harness = Harness::builder_for_tool(book).mode(Mode::Hmac).build();
    harness.clock().set(now());
    let round = harness.call(json!({"to": "Oslo"})).await;
    // A pending key that clears the screen, a kept name that reverses the line.
    let token = tampered(&round.state(), b"sure", b"\x1b[2J");
    let token = tampered(&token, b"nights", "\u{202e}abc".as_bytes());
    for args in [vec!["inspect", &token], vec!["inspect", &token, "--json"]] {
        let output = mrtr(&args);
        assert_terminal_safe(&output);
        assert!(stdout(&output).contains("2J"), "{}", stdout(&output));
    }
    let report: Value =
        serde_json::from_str(&stdout(&mrtr(&["inspect", &token, "--json"]))).unwrap();
    assert_eq!(report["kept"], json!({"\u{202e}abc": 3}));
    assert!(report["pending"].get("\u{1b}[2J").is_some(), "{report}");
}

#[test]
fn a_key_id_with_control_characters_is_escaped() {
    let token = tampered(&token(Mode::Hmac, now()), b"ops-1", b"\x1b[31m");
    for args in [
        vec!["inspect", &token],
        vec!["inspect", &token, "--json"],
        vec!["inspect", &token, "--keys", &keys()],
    ] {
        assert_terminal_safe(&mrtr(&args));
    }
}

/// Runs `mrtr` with `MRTR_STATE_KEYS` set to `keys`.
fn mrtr_with_env_keys(args: &[&str], keys: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtr"))
        .args(args)
        .env("MRTR_STATE_KEYS", keys)
        .output()
        .expect("mrtr runs")
}

/// The exit code of a token that reads but whose tag was not checked.
const UNVERIFIED: i32 = 3;

#[test]
fn content_whose_tag_was_not_checked_is_labelled_and_never_exits_0() {
    let hmac = token(Mode::Hmac, now());
    let without_key = mrtr(&["inspect", &hmac]);
    assert_eq!(without_key.status.code(), Some(UNVERIFIED));
    assert!(
        stdout(&without_key)
            .to_lowercase()
            .contains("unauthenticated"),
        "{}",
        stdout(&without_key)
    );
    let report: Value =
        serde_json::from_str(&stdout(&mrtr(&["inspect", &hmac, "--json"]))).unwrap();
    assert_eq!(report["authenticated"], false);
    assert_eq!(report["verdict"]["status"], "unchecked");

    // With the key but no request, the tag (which covers the request) still is not checked.
    let aead = token(Mode::Aead, now());
    for token in [&hmac, &aead] {
        let with_key = mrtr_with_env_keys(&["inspect", token], &keys());
        assert_eq!(
            with_key.status.code(),
            Some(UNVERIFIED),
            "{}",
            stdout(&with_key)
        );
        assert!(
            stdout(&with_key).to_lowercase().contains("unauthenticated"),
            "{}",
            stdout(&with_key)
        );
    }
    let sealed = mrtr(&["inspect", &aead]);
    assert_eq!(sealed.status.code(), Some(UNVERIFIED));

    // Checked against the key and the request: authenticated, and valid.
    let checked = checked(&aead, "book", "Oslo", "ana");
    assert_eq!(checked.status.code(), Some(0));
    assert!(
        stdout(&checked).contains("authenticated"),
        "{}",
        stdout(&checked)
    );
    assert!(
        !stdout(&checked).to_lowercase().contains("unauthenticated"),
        "{}",
        stdout(&checked)
    );
}

#[test]
fn an_aead_token_whose_body_does_not_open_is_altered() {
    let token = token(Mode::Aead, now());
    let mut bytes = URL_SAFE_NO_PAD.decode(&token[3..]).unwrap();
    // The last byte of the ciphertext, just before the 16-byte tag: the payload's closing `}`.
    let last = bytes.len() - 17;
    bytes[last] ^= 1;
    let altered = format!("m2.{}", URL_SAFE_NO_PAD.encode(bytes));
    let output = mrtr_with_env_keys(&["inspect", &altered, "--json"], &keys());
    let (code, check) = refused_check(&output);
    assert_eq!(
        (code, check),
        (Some(1), json!("altered")),
        "{}",
        stdout(&output)
    );
}

#[test]
fn keys_come_from_a_file_or_the_environment_and_the_command_line_warns() {
    let aead = token(Mode::Aead, now());
    // One entry a line, as a secrets mount may hold them.
    let other = format!("ops-0:{}", URL_SAFE_NO_PAD.encode([9u8; 32]));
    let file = KeysFile::new("keys-file", &format!("{other}\n{}\n", keys()));
    let request = [
        "--tool",
        "book",
        "--audience",
        "travel",
        "--arguments",
        r#"{"to":"Oslo"}"#,
        "--principal",
        "ana",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["inspect".to_owned(), aead.clone()];
        args.extend(extra.iter().chain(&request).map(|arg| (*arg).to_owned()));
        args
    };
    let run = |args: Vec<String>, env: Option<&str>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        match env {
            Some(keys) => mrtr_with_env_keys(&args, keys),
            None => mrtr(&args),
        }
    };

    let from_file = run(with(&["--keys-file", file.path()]), None);
    assert_eq!(from_file.status.code(), Some(0), "{}", stderr(&from_file));
    assert_eq!(stderr(&from_file), "");

    let from_env = run(with(&[]), Some(&keys()));
    assert_eq!(from_env.status.code(), Some(0), "{}", stderr(&from_env));
    assert_eq!(stderr(&from_env), "");

    let keys = keys();
    let from_argument = run(with(&["--keys", &keys]), None);
    assert_eq!(from_argument.status.code(), Some(0));
    let warning = stderr(&from_argument);
    assert!(
        warning.contains("warning") && warning.contains("--keys-file"),
        "{warning}"
    );

    let both = mrtr(&[
        "inspect",
        &aead,
        "--keys",
        &keys,
        "--keys-file",
        file.path(),
    ]);
    assert_eq!(both.status.code(), Some(64));
    let absent = format!("{}-absent", file.path());
    let missing = mrtr(&["inspect", &aead, "--keys-file", &absent]);
    assert_eq!(missing.status.code(), Some(64));
    assert!(
        stderr(&missing).contains("--keys-file"),
        "{}",
        stderr(&missing)
    );

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let shared = KeysFile::new("shared-keys", &keys);
        std::fs::set_permissions(&shared.0, std::fs::Permissions::from_mode(0o644)).unwrap();
        let warned = run(with(&["--keys-file", shared.path()]), None);
        assert_eq!(warned.status.code(), Some(0));
        assert!(stderr(&warned).contains("chmod 600"), "{}", stderr(&warned));
    }
}
