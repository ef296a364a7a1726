//! Rejections are logged with their reason. In its own test binary: tracing caches per-callsite
//! interest, so a scoped subscriber in a multi-threaded test binary can miss events.

use std::sync::{Arc, Mutex};

use mrtr_runtime::token::{
    Binding, Fingerprint, KeyId, KeyRing, ManualClock, SecretKey, StateCodec,
};
use serde_json::json;

#[test]
fn rejections_are_logged_with_their_reason() {
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let clock = ManualClock::new(1_800_000_000);
    let codec = StateCodec::builder()
        .key_ring(KeyRing::with_signing_key(
            KeyId::new("k1").unwrap(),
            SecretKey::random(),
        ))
        .clock(clock.clone())
        .build()
        .unwrap();
    let args = json!({"user": "alice"});
    let binding = Binding::new("tools/call", "t", Some(&args)).principal(Some("alice"));
    let fingerprint = Fingerprint::of(b"t");
    let token = codec
        .seal(&codec.start_flow(fingerprint), &binding, &"kept")
        .unwrap();
    tracing::subscriber::with_default(subscriber, || {
        let mallory = binding.principal(Some("mallory"));
        assert!(codec.open::<String>(&token, &mallory, fingerprint).is_err());
        clock.advance(4000);
        assert!(codec.open::<String>(&token, &binding, fingerprint).is_err());
    });
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("sealed for another principal"), "{log}");
    assert!(log.contains("flow deadline passed"), "{log}");
    assert!(
        !log.contains("alice") && !log.contains("mallory"),
        "no bound values in logs: {log}"
    );
}
