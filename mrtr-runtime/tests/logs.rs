//! What the README promises about logs: the no-key warning, the `mrtr::state` target with
//! the precise reason of every rejection, and no kept value quoted in them.

use std::io::Write;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mrtr_runtime::token::{
    Binding, Fingerprint, KEYS_ENV_VAR, KeyId, KeyRing, ManualClock, Mode, SecretKey, StateCodec,
};
use serde_json::{Value, json};

/// Everything logged while `f` runs on this thread, as fmt's text lines.
fn logged(f: impl FnOnce()) -> String {
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::TRACE)
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    String::from_utf8(sink.0.lock().unwrap().clone()).unwrap()
}

#[test]
fn a_codec_without_keys_warns_that_instances_need_a_shared_key() {
    if std::env::var_os(KEYS_ENV_VAR).is_some() {
        return; // the ring comes from the environment then: no warning is due
    }
    let log = logged(|| {
        StateCodec::builder().build().unwrap();
    });
    assert!(log.contains("WARN"), "{log}");
    assert!(log.contains("mrtr::state"), "{log}");
    assert!(log.contains("no requestState key configured"), "{log}");
    assert!(log.contains(KEYS_ENV_VAR), "{log}");
    // Once per process, not once per codec (rmcp's HTTP service builds one per request).
    assert_eq!(
        logged(|| {
            StateCodec::builder().build().unwrap();
        }),
        ""
    );
}

#[test]
fn every_rejection_is_logged_under_mrtr_state_with_its_reason() {
    let clock = ManualClock::new(1_800_000_000);
    let ring = KeyRing::with_signing_key(
        KeyId::new("k1").unwrap(),
        SecretKey::from_bytes([1; 32]).unwrap(),
    );
    let codec = |mode| {
        StateCodec::builder()
            .mode(mode)
            .key_ring(ring.clone())
            .audience("logs")
            .clock(clock.clone())
            .build()
            .unwrap()
    };
    let (hmac, aead) = (codec(Mode::Hmac), codec(Mode::Aead));
    let other_audience = StateCodec::builder()
        .mode(Mode::Hmac)
        .key_ring(ring.clone())
        .audience("elsewhere")
        .clock(clock.clone())
        .build()
        .unwrap();
    let args = json!({"a": 1});
    let other_args = json!({"a": 2});
    let binding = Binding::new("tools/call", "t", Some(&args)).principal(Some("alice"));
    let fingerprint = Fingerprint::of(b"t");
    let seal = |codec: &StateCodec, payload: &Value| {
        codec
            .seal(&codec.start_flow(fingerprint), &binding, payload)
            .unwrap()
    };
    let sealed = || seal(&hmac, &json!({"kept": "hunter2-secret"}));
    let token = std::cell::RefCell::new(sealed());
    let mut altered = URL_SAFE_NO_PAD.decode(&token.borrow()[3..]).unwrap();
    let last = altered.len() - 1;
    altered[last] ^= 1;
    let altered = format!("m2.{}", URL_SAFE_NO_PAD.encode(&altered));
    let unknown_key = {
        let ring = KeyRing::with_signing_key(KeyId::new("gone").unwrap(), SecretKey::random());
        let codec = StateCodec::builder()
            .mode(Mode::Hmac)
            .key_ring(ring)
            .audience("logs")
            .clock(clock.clone())
            .build()
            .unwrap();
        seal(&codec, &json!(1))
    };

    type Case<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let open = |codec: &StateCodec, token: &str, binding: &Binding<'_>, fingerprint| {
        assert!(codec.open::<Value>(token, binding, fingerprint).is_err());
    };
    let cases: Vec<Case<'_>> = vec![
        (
            "token is",
            Box::new(|| open(&hmac, &"m".repeat(70_000), &binding, fingerprint)),
        ),
        (
            "malformed token: unknown prefix",
            Box::new(|| open(&hmac, "x1.AAAA", &binding, fingerprint)),
        ),
        (
            "sealed in the other mode",
            Box::new(|| open(&aead, &token.borrow(), &binding, fingerprint)),
        ),
        (
            "unknown key id \"gone\"",
            Box::new(|| open(&hmac, &unknown_key, &binding, fingerprint)),
        ),
        (
            "authentication tag mismatch",
            Box::new(|| open(&hmac, &altered, &binding, fingerprint)),
        ),
        (
            "sealed for another audience",
            Box::new(|| open(&other_audience, &token.borrow(), &binding, fingerprint)),
        ),
        (
            "sealed for another method",
            Box::new(|| {
                open(
                    &hmac,
                    &token.borrow(),
                    &Binding::new("prompts/get", "t", Some(&args)).principal(Some("alice")),
                    fingerprint,
                )
            }),
        ),
        (
            "sealed for another tool",
            Box::new(|| {
                open(
                    &hmac,
                    &token.borrow(),
                    &Binding::new("tools/call", "u", Some(&args)).principal(Some("alice")),
                    fingerprint,
                )
            }),
        ),
        (
            "sealed for other arguments",
            Box::new(|| {
                open(
                    &hmac,
                    &token.borrow(),
                    &Binding::new("tools/call", "t", Some(&other_args)).principal(Some("alice")),
                    fingerprint,
                )
            }),
        ),
        (
            "sealed for another principal",
            Box::new(|| {
                open(
                    &hmac,
                    &token.borrow(),
                    &Binding::new("tools/call", "t", Some(&args)).principal(Some("bob")),
                    fingerprint,
                )
            }),
        ),
        (
            "fingerprint mismatch",
            Box::new(|| open(&hmac, &token.borrow(), &binding, Fingerprint::of(b"v2"))),
        ),
        (
            "payload does not decode",
            Box::new(|| {
                assert!(
                    hmac.open::<u32>(&token.borrow(), &binding, fingerprint)
                        .is_err()
                );
            }),
        ),
    ];
    for (reason, case) in &cases {
        // A binding's one-byte hint matches by chance one time in 256 (the log then says the
        // tag did not verify): a fresh token names the binding.
        let mut log = logged(case);
        for _ in 0..2 {
            if log.contains(reason) {
                break;
            }
            token.replace(sealed());
            log = logged(case);
        }
        assert!(log.contains("WARN mrtr::state"), "{reason}: {log}");
        assert!(log.contains("rejected requestState"), "{reason}: {log}");
        assert!(log.contains(reason), "{reason}: {log}");
        assert!(
            !log.contains("hunter2"),
            "a kept value reached the log: {log}"
        );
    }

    // Timing: issued in the future, then expired, then past the flow deadline.
    let future = {
        clock.advance(3600);
        let token = seal(&hmac, &json!(1));
        clock.set(1_800_000_000);
        token
    };
    let log = logged(|| open(&hmac, &future, &binding, fingerprint));
    assert!(log.contains("issued in the future"), "{log}");
    clock.advance(11 * 60);
    let token = token.borrow().clone();
    let log = logged(|| open(&hmac, &token, &binding, fingerprint));
    assert!(log.contains("round expired"), "{log}");
    clock.advance(2 * 3600);
    let log = logged(|| open(&hmac, &token, &binding, fingerprint));
    assert!(log.contains("flow deadline passed"), "{log}");
}
