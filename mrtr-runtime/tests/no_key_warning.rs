//! A server started without a state key says so on stderr, once, whatever tracing subscriber
//! is (or is not) installed, and names the fix. Each case runs this test binary again as a
//! child process, so that the process-wide key and its warning start fresh.

use std::process::Command;

use mrtr_runtime::Server;

/// Set in the child: which case to play.
const CHILD: &str = "MRTR_NO_KEY_WARNING_CHILD";

/// The child's part: start two servers the way an author's `main` does (no subscriber).
#[test]
fn child_starts_two_servers() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    for name in ["first", "second"] {
        Server::builder(name, "1.0.0")
            .build()
            .expect("a server without tools builds");
    }
}

/// Runs [`child_starts_two_servers`] in a fresh process; returns its stderr.
fn child_stderr(keys: Option<&str>) -> String {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([
            "--exact",
            "child_starts_two_servers",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env_remove("RUST_LOG");
    match keys {
        Some(keys) => command.env("MRTR_STATE_KEYS", keys),
        None => command.env_remove("MRTR_STATE_KEYS"),
    };
    let output = command.output().expect("the child runs");
    assert!(output.status.success(), "the child failed: {output:?}");
    String::from_utf8(output.stderr).expect("UTF-8 stderr")
}

#[test]
fn without_a_key_one_line_names_the_fix() {
    let stderr = child_stderr(None);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("mrtr"))
        .collect();
    assert_eq!(lines.len(), 1, "one line for two servers: {stderr:?}");
    let line = lines[0];
    for needed in [
        "no requestState key configured",
        "mrtr keygen",
        "MRTR_STATE_KEYS",
    ] {
        assert!(line.contains(needed), "{needed:?} missing from {line:?}");
    }
}

#[test]
fn with_a_key_nothing_is_printed() {
    // 32 bytes of zeros in base64: a valid key for this check.
    let stderr = child_stderr(Some("test:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"));
    assert!(
        !stderr.contains("requestState key"),
        "a configured key needs no warning: {stderr:?}"
    );
}
