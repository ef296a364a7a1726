//! A tour of what mrtr does today: seal a round's state, hand it to the "client", and watch the
//! server refuse every altered, re-bound or expired copy of it.
//!
//! Run it with `cargo run --example token_tour`.

use mrtr::token::{Binding, Fingerprint, KeyId, KeyRing, ManualClock, Mode, SecretKey, StateCodec};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let clock = ManualClock::new(1_800_000_000);
    let keys = KeyRing::with_signing_key(KeyId::new("2026-12")?, SecretKey::random());
    let args = json!({"location": "Paris"});
    let binding = Binding::new("tools/call", "get_weather", Some(&args)).principal(Some("alice"));
    let fingerprint = Fingerprint::of(b"get_weather, compiled");
    // What the machine keeps between rounds: where it stopped, the values it still needs and
    // the question it asked.
    let state = json!({
        "pc": 1,
        "slots": {"forecast": "sunny, 21°C"},
        "pending": {"github_login": {"method": "elicitation/create"}}
    });

    for mode in [Mode::Aead, Mode::Hmac] {
        let codec = StateCodec::builder()
            .mode(mode)
            .key_ring(keys.clone())
            .audience("weather-demo")
            .clock(clock.clone())
            .build()?;
        let token = codec.seal(&codec.start_flow(fingerprint), &binding, &state)?;
        println!("{mode:?} requestState ({} bytes):\n  {token}", token.len());

        let opened = codec.open::<serde_json::Value>(&token, &binding, fingerprint)?;
        println!(
            "  echoed unchanged -> resumes at pc {}",
            opened.payload["pc"]
        );

        let mut tampered = token.clone().into_bytes();
        let last = tampered.len() - 5;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered)?;
        let other_args = json!({"location": "Lyon"});
        let attempts = [
            ("one character changed", tampered.as_str(), binding),
            (
                "presented by bob",
                token.as_str(),
                binding.principal(Some("bob")),
            ),
            (
                "replayed on other arguments",
                token.as_str(),
                Binding::new("tools/call", "get_weather", Some(&other_args))
                    .principal(Some("alice")),
            ),
        ];
        for (what, candidate, presented_with) in attempts {
            let error = codec.open::<serde_json::Value>(candidate, &presented_with, fingerprint);
            let error = error.expect_err("must be refused");
            println!(
                "  {what:<28} -> client sees {:?}, log says: {}",
                error.to_string(),
                error.reason()
            );
        }
        clock.advance(11 * 60);
        let error = codec
            .open::<serde_json::Value>(&token, &binding, fingerprint)
            .unwrap_err();
        println!(
            "  {:<28} -> client sees {:?}, log says: {}\n",
            "eleven minutes later",
            error.to_string(),
            error.reason()
        );
        clock.set(1_800_000_000);
    }
    Ok(())
}
