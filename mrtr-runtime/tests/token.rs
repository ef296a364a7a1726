//! Acceptance tests of the sealed `requestState` token, run in both modes.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mrtr_runtime::token::{
    Binding, Fingerprint, KeyId, KeyRing, ManualClock, Mode, Rejection, SealError, SecretKey,
    StateCodec,
};
use serde_json::{Value, json};

const T0: u64 = 1_800_000_000;
const MODES: [Mode; 2] = [Mode::Aead, Mode::Hmac];

fn kid(id: &str) -> KeyId {
    KeyId::new(id).unwrap()
}

fn ring(id: &str, byte: u8) -> KeyRing {
    KeyRing::with_signing_key(kid(id), SecretKey::from_bytes(vec![byte; 32]).unwrap())
}

struct Fixture {
    codec: StateCodec,
    clock: ManualClock,
    args: Value,
    fingerprint: Fingerprint,
}

impl Fixture {
    fn new(mode: Mode) -> Self {
        Self::with_ring(mode, ring("k1", 7))
    }

    fn with_ring(mode: Mode, ring: KeyRing) -> Self {
        let clock = ManualClock::new(T0);
        let codec = StateCodec::builder()
            .mode(mode)
            .key_ring(ring)
            .audience("weather-prod")
            .clock(clock.clone())
            .build()
            .unwrap();
        Self {
            codec,
            clock,
            args: json!({"location": "Paris", "days": 3}),
            fingerprint: Fingerprint::of(b"get_weather"),
        }
    }

    fn binding(&self) -> Binding<'_> {
        Binding::new("tools/call", "get_weather", Some(&self.args)).principal(Some("alice"))
    }

    fn seal(&self, payload: &Value) -> String {
        let flow = self.codec.start_flow(self.fingerprint);
        self.codec.seal(&flow, &self.binding(), payload).unwrap()
    }

    fn open(&self, token: &str) -> Result<Value, Rejection> {
        self.open_with(token, &self.binding())
    }

    fn open_with(&self, token: &str, binding: &Binding<'_>) -> Result<Value, Rejection> {
        self.codec
            .open::<Value>(token, binding, self.fingerprint)
            .map(|opened| opened.payload)
            .map_err(|error| {
                assert_eq!(error.to_string(), "invalid requestState", "opaque message");
                error.reason().clone()
            })
    }
}

fn payload() -> Value {
    json!({"pc": 2, "slots": {"forecast": "sunny", "count": 3}, "pending": null})
}

#[test]
fn open_after_seal_is_the_identity() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let flow = fixture.codec.start_flow(fixture.fingerprint).next_round();
        let token = fixture
            .codec
            .seal(&flow, &fixture.binding(), &payload())
            .unwrap();
        let opened = fixture
            .codec
            .open::<Value>(&token, &fixture.binding(), fixture.fingerprint)
            .unwrap();
        assert_eq!(opened.payload, payload(), "{mode:?}");
        assert_eq!(opened.claims.flow(), flow, "{mode:?}");
        assert_eq!(opened.claims.issued_at(), T0);
        assert_eq!(opened.claims.expires_at(), T0 + 600);
        assert!(token.starts_with("m2."));
    }
}

#[test]
fn every_token_gets_a_fresh_id_and_flows_keep_theirs() {
    let fixture = Fixture::new(Mode::Aead);
    let flow = fixture.codec.start_flow(fixture.fingerprint);
    let open = |token: &str| {
        fixture
            .codec
            .open::<Value>(token, &fixture.binding(), fixture.fingerprint)
            .unwrap()
            .claims
    };
    let first = open(
        &fixture
            .codec
            .seal(&flow, &fixture.binding(), &payload())
            .unwrap(),
    );
    let second = open(
        &fixture
            .codec
            .seal(&flow, &fixture.binding(), &payload())
            .unwrap(),
    );
    assert_ne!(first.token_id(), second.token_id());
    assert_eq!(first.flow().id(), second.flow().id());
    assert_ne!(
        flow.id(),
        fixture.codec.start_flow(fixture.fingerprint).id()
    );
}

#[test]
fn every_single_character_change_is_rejected() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/";
        for position in 0..token.len() {
            for &replacement in alphabet {
                let mut bytes = token.clone().into_bytes();
                if bytes[position] == replacement {
                    continue;
                }
                bytes[position] = replacement;
                let altered = String::from_utf8(bytes).unwrap();
                assert!(
                    fixture.open(&altered).is_err(),
                    "{mode:?}: changing char {position} to {:?} was accepted",
                    replacement as char
                );
            }
        }
    }
}

#[test]
fn every_single_byte_change_of_the_decoded_token_is_rejected() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());
        let bytes = URL_SAFE_NO_PAD.decode(&token[3..]).unwrap();
        for position in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut altered = bytes.clone();
                altered[position] ^= flip;
                let altered = format!("m2.{}", URL_SAFE_NO_PAD.encode(&altered));
                let reason = fixture.open(&altered).unwrap_err();
                if position >= HEADER_LEN {
                    // Past the header (key id and binding hints), only the tag can catch it.
                    assert_eq!(reason, Rejection::BadTag, "{mode:?} byte {position}");
                }
            }
        }
    }
}

#[test]
fn every_truncation_is_rejected() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());
        for len in 0..token.len() {
            assert!(
                fixture.open(&token[..len]).is_err(),
                "{mode:?}: prefix of {len} accepted"
            );
        }
        let bytes = URL_SAFE_NO_PAD.decode(&token[3..]).unwrap();
        for len in 0..bytes.len() {
            let truncated = format!("m2.{}", URL_SAFE_NO_PAD.encode(&bytes[..len]));
            assert!(
                fixture.open(&truncated).is_err(),
                "{mode:?}: {len} bytes accepted"
            );
        }
    }
}

#[test]
fn timing_claims_are_enforced_with_a_skew_allowance() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());
        fixture.clock.set(T0 + 600 + 30);
        assert!(
            fixture.open(&token).is_ok(),
            "{mode:?}: within skew after expiry"
        );
        fixture.clock.set(T0 + 600 + 31);
        assert_eq!(fixture.open(&token), Err(Rejection::Expired), "{mode:?}");

        // Minted by an instance whose clock runs ahead.
        fixture.clock.set(T0 + 30);
        let ahead_within_skew = fixture.seal(&payload());
        fixture.clock.set(T0 + 31);
        let ahead_beyond_skew = fixture.seal(&payload());
        fixture.clock.set(T0);
        assert!(fixture.open(&ahead_within_skew).is_ok(), "{mode:?}");
        assert_eq!(
            fixture.open(&ahead_beyond_skew),
            Err(Rejection::IssuedInFuture),
            "{mode:?}"
        );
    }
}

#[test]
fn the_flow_deadline_caps_every_round() {
    let clock = ManualClock::new(T0);
    let codec = StateCodec::builder()
        .key_ring(ring("k1", 7))
        .clock(clock.clone())
        .flow_ttl(Duration::from_secs(900))
        .clock_skew(Duration::ZERO)
        .build()
        .unwrap();
    let binding = Binding::new("tools/call", "t", None);
    let fingerprint = Fingerprint::of(b"t");
    let flow = codec.start_flow(fingerprint);
    clock.set(T0 + 800);
    let late_round = codec.seal(&flow.next_round(), &binding, &1).unwrap();
    let opened = codec
        .open::<u8>(&late_round, &binding, fingerprint)
        .unwrap();
    assert_eq!(
        opened.claims.expires_at(),
        T0 + 900,
        "round expiry clipped to the deadline"
    );
    clock.set(T0 + 901);
    let error = codec
        .open::<u8>(&late_round, &binding, fingerprint)
        .unwrap_err();
    assert_eq!(error.reason(), &Rejection::FlowExpired);
}

#[test]
fn bindings_are_checked_and_each_mismatch_has_its_own_reason() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());
        let args = fixture.args.clone();
        let other_args = json!({"location": "Lyon", "days": 3});
        let cases = [
            (
                Binding::new("prompts/get", "get_weather", Some(&args)),
                Rejection::WrongMethod,
            ),
            (
                Binding::new("tools/call", "get_forecast", Some(&args)),
                Rejection::WrongTarget,
            ),
            (
                Binding::new("tools/call", "get_weather", Some(&other_args)),
                Rejection::WrongArguments,
            ),
            (
                Binding::new("tools/call", "get_weather", None),
                Rejection::WrongArguments,
            ),
        ];
        // Each binding has a one-byte hint that matches by chance one time in 256; the tag
        // then fails without a named binding, never with the wrong one. A fresh token names it.
        let named = |binding: &Binding<'_>, expected: Rejection| {
            let mut token = token.clone();
            for _ in 0..3 {
                let reason = fixture.open_with(&token, binding).unwrap_err();
                if reason == expected {
                    return;
                }
                assert_eq!(reason, Rejection::BadTag, "{mode:?}: not {expected:?}");
                token = fixture.seal(&payload());
            }
            panic!("{mode:?}: {expected:?} never named");
        };
        for (binding, expected) in cases {
            named(&binding.principal(Some("alice")), expected);
        }
        for principal in [Some("bob"), Some("alice "), None] {
            named(
                &fixture.binding().principal(principal),
                Rejection::WrongPrincipal,
            );
        }
    }
}

#[test]
fn reordered_arguments_are_the_same_request() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());
        let reordered: Value =
            serde_json::from_str(r#"{ "days": 3.0, "location": "Paris" }"#).unwrap();
        let binding = Binding::new("tools/call", "get_weather", Some(&reordered));
        assert_eq!(
            fixture.open_with(&token, &binding.principal(Some("alice"))),
            Ok(payload())
        );
    }
}

/// Asserts that `open` names `expected` for a fresh token: a binding's one-byte hint matches by
/// chance one time in 256, and the tag then fails without a named binding (never with the
/// wrong one); another fresh token names it.
fn named_with_fresh_tokens(
    fixture: &Fixture,
    open: impl Fn(&str) -> Rejection,
    expected: Rejection,
) {
    for _ in 0..3 {
        let reason = open(&fixture.seal(&payload()));
        if reason == expected {
            return;
        }
        assert_eq!(reason, Rejection::BadTag, "not {expected:?}");
    }
    panic!("{expected:?} never named");
}

#[test]
fn another_audience_fingerprint_or_key_is_refused() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());

        let other_audience = StateCodec::builder()
            .mode(mode)
            .key_ring(ring("k1", 7))
            .audience("weather-staging")
            .clock(fixture.clock.clone())
            .build()
            .unwrap();
        let audience = |token: &str| {
            let error =
                other_audience.open::<Value>(token, &fixture.binding(), fixture.fingerprint);
            error.unwrap_err().reason().clone()
        };
        named_with_fresh_tokens(&fixture, audience, Rejection::WrongAudience);

        let deployed_later = Fingerprint::of(b"get_weather, edited");
        let fingerprint = |token: &str| {
            let error = fixture
                .codec
                .open::<Value>(token, &fixture.binding(), deployed_later);
            error.unwrap_err().reason().clone()
        };
        named_with_fresh_tokens(&fixture, fingerprint, Rejection::WrongFingerprint);

        let unknown_kid = Fixture::with_ring(mode, ring("k9", 7));
        assert_eq!(
            unknown_kid.open(&token),
            Err(Rejection::UnknownKeyId("k1".into())),
            "{mode:?}"
        );

        let same_kid_other_secret = Fixture::with_ring(mode, ring("k1", 8));
        assert_eq!(
            same_kid_other_secret.open(&token),
            Err(Rejection::BadTag),
            "{mode:?}"
        );

        let other_mode = Fixture::with_ring(
            if mode == Mode::Aead {
                Mode::Hmac
            } else {
                Mode::Aead
            },
            ring("k1", 7),
        );
        assert_eq!(
            other_mode.open(&token),
            Err(Rejection::WrongMode),
            "{mode:?}"
        );
    }
}

#[test]
fn non_canonical_base64_and_padding_are_rejected() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        // Grow the payload until the decoded length leaves unused bits in the last character.
        let (token, mut chars) = (0..3)
            .map(|extra| fixture.seal(&json!({"pad": "x".repeat(extra)})))
            .map(|token| {
                let chars = token.clone().into_bytes();
                (token, chars)
            })
            .find(|(token, _)| URL_SAFE_NO_PAD.decode(&token[3..]).unwrap().len() % 3 == 1)
            .unwrap();
        assert!(fixture.open(&token).is_ok());
        let last = chars.len() - 1;
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let value = alphabet.iter().position(|&c| c == chars[last]).unwrap();
        chars[last] = alphabet[value | 1]; // same data bits, non-zero trailing bits
        let non_canonical = String::from_utf8(chars).unwrap();
        assert_eq!(
            fixture.open(&non_canonical),
            Err(Rejection::Malformed(
                "not canonical base64url without padding"
            )),
            "{mode:?}"
        );
        assert!(matches!(
            fixture.open(&format!("{token}==")),
            Err(Rejection::Malformed(_))
        ));
        let standard_alphabet = token.replace('-', "+").replace('_', "/");
        if standard_alphabet != token {
            assert!(matches!(
                fixture.open(&standard_alphabet),
                Err(Rejection::Malformed(_))
            ));
        }
    }
}

#[test]
fn oversized_tokens_are_refused_before_decoding_and_never_minted() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let huge = format!("m2.{}", "A".repeat(64 * 1024));
        assert_eq!(
            fixture.open(&huge),
            Err(Rejection::Oversized {
                len: huge.len(),
                max: 64 * 1024
            }),
            "{mode:?}"
        );
        let small_cap = StateCodec::builder()
            .mode(mode)
            .key_ring(ring("k1", 7))
            .max_token_len(300)
            .compress_above(None)
            .build()
            .unwrap();
        let flow = small_cap.start_flow(fixture.fingerprint);
        let result = small_cap.seal(&flow, &fixture.binding(), &"v".repeat(400));
        assert!(
            matches!(result, Err(SealError::TooLarge { max: 300, .. })),
            "{mode:?}"
        );
    }
}

#[test]
fn rotation_demoted_keys_verify_and_retired_keys_do_not() {
    for mode in MODES {
        let keys = ring("old", 1);
        let fixture = Fixture::with_ring(mode, keys.clone());
        let sealed_with_old = fixture.seal(&payload());

        keys.add(kid("new"), SecretKey::from_bytes(vec![2; 32]).unwrap())
            .unwrap();
        assert!(
            fixture.open(&sealed_with_old).is_ok(),
            "{mode:?}: verify-only key added"
        );
        keys.promote(&kid("new")).unwrap();
        let sealed_with_new = fixture.seal(&payload());
        assert!(
            fixture.open(&sealed_with_old).is_ok(),
            "{mode:?}: demoted key still verifies"
        );
        assert!(fixture.open(&sealed_with_new).is_ok(), "{mode:?}");

        keys.retire(&kid("old")).unwrap();
        assert_eq!(
            fixture.open(&sealed_with_old),
            Err(Rejection::UnknownKeyId("old".into()))
        );
        assert!(fixture.open(&sealed_with_new).is_ok(), "{mode:?}");
    }
}

#[test]
fn aead_tokens_reveal_none_of_the_payload_and_hmac_tokens_do() {
    let secret = json!({"card": "4111-1111-1111-1111", "note": "hunter2-hunter2", "pin": 987654});
    let needles: [&[u8]; 3] = [b"4111-1111", b"hunter2", b"987654"];
    let contains =
        |haystack: &[u8], needle: &[u8]| haystack.windows(needle.len()).any(|w| w == needle);

    let aead = Fixture::new(Mode::Aead).seal(&secret);
    let aead_bytes = URL_SAFE_NO_PAD.decode(&aead[3..]).unwrap();
    for needle in needles {
        assert!(
            !contains(&aead_bytes, needle),
            "AEAD leaks {:?}",
            String::from_utf8_lossy(needle)
        );
        assert!(!contains(aead.as_bytes(), needle));
    }

    let hmac = Fixture::new(Mode::Hmac).seal(&secret);
    let hmac_bytes = URL_SAFE_NO_PAD.decode(&hmac[3..]).unwrap();
    assert!(
        needles.iter().all(|needle| contains(&hmac_bytes, needle)),
        "HMAC is readable"
    );
}

#[test]
fn hmac_mode_compresses_large_payloads_and_aead_never_does() {
    let large = json!({"rows": vec!["the same row of text, over and over"; 256]});
    let hmac = Fixture::new(Mode::Hmac);
    let compressed = hmac.seal(&large);
    let raw_len = serde_json::to_vec(&large).unwrap().len();
    assert!(
        compressed.len() < raw_len / 4,
        "{} vs raw {raw_len}",
        compressed.len()
    );
    assert_eq!(hmac.open(&compressed), Ok(large.clone()));

    let aead = Fixture::new(Mode::Aead);
    let sealed = aead.seal(&large);
    assert!(sealed.len() > raw_len * 4 / 3, "AEAD must not compress");
    assert_eq!(aead.open(&sealed), Ok(large));
}

#[test]
fn a_payload_of_another_type_is_refused() {
    let fixture = Fixture::new(Mode::Hmac);
    let token = fixture.seal(&json!({"pc": "not a number"}));
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Machine {
        pc: u32,
    }
    let error = fixture
        .codec
        .open::<Machine>(&token, &fixture.binding(), fixture.fingerprint);
    assert!(matches!(
        error.unwrap_err().reason(),
        Rejection::BadPayload(_)
    ));
}

#[test]
fn codecs_built_without_keys_share_the_process_key() {
    // SAFETY of the assumption: CI does not set MRTR_STATE_KEYS; if it did, both codecs would
    // read the same ring, and the property still holds.
    let first = StateCodec::builder().build().unwrap();
    let second = StateCodec::builder().build().unwrap();
    let binding = Binding::new("tools/call", "t", None);
    let fingerprint = Fingerprint::of(b"t");
    let token = first
        .seal(&first.start_flow(fingerprint), &binding, &"kept")
        .unwrap();
    let opened = second
        .open::<String>(&token, &binding, fingerprint)
        .unwrap();
    assert_eq!(opened.payload, "kept");
}

#[test]
fn the_process_key_has_a_random_id() {
    if std::env::var_os(mrtr_runtime::token::KEYS_ENV_VAR).is_some() {
        return; // the ring comes from the environment then
    }
    let codec = StateCodec::builder().build().unwrap();
    let id = codec.key_ring().signing_key_id().unwrap();
    let suffix = id
        .as_str()
        .strip_prefix("process-")
        .expect("named process-…");
    assert_eq!(suffix.len(), 16, "{id}");
    assert!(suffix.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    // Another instance (another random key and id) sees an unknown key, not a forgery.
    let other = Fixture::new(Mode::Aead);
    let binding = Binding::new("tools/call", "t", None);
    let token = codec
        .seal(&codec.start_flow(other.fingerprint), &binding, &"kept")
        .unwrap();
    let error = other
        .codec
        .open::<String>(&token, &binding, other.fingerprint)
        .unwrap_err();
    assert_eq!(error.reason(), &Rejection::UnknownKeyId(id.to_string()));
}

#[test]
fn a_payload_over_the_open_limit_is_refused_at_seal() {
    // Highly compressible: the deflated token is small, the payload is not.
    let large = json!({"rows": "x".repeat(2 * 1024 * 1024)});
    let fixture = Fixture::new(Mode::Hmac);
    let flow = fixture.codec.start_flow(fixture.fingerprint);
    let error = fixture
        .codec
        .seal(&flow, &fixture.binding(), &large)
        .unwrap_err();
    assert!(
        matches!(error, SealError::PayloadTooLarge { max, .. } if max == 1024 * 1024),
        "{error}"
    );

    // With the limit raised, the same payload seals and opens.
    let codec = StateCodec::builder()
        .mode(Mode::Hmac)
        .key_ring(ring("k1", 7))
        .max_payload_len(4 * 1024 * 1024)
        .build()
        .unwrap();
    let flow = codec.start_flow(fixture.fingerprint);
    let token = codec.seal(&flow, &fixture.binding(), &large).unwrap();
    let opened = codec
        .open::<Value>(&token, &fixture.binding(), fixture.fingerprint)
        .unwrap();
    assert_eq!(opened.payload, large);
}

#[test]
fn a_payload_that_does_not_decode_is_reported_without_its_values() {
    let fixture = Fixture::new(Mode::Aead);
    let token = fixture.seal(&json!({"pc": "hunter2-secret"}));
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Machine {
        pc: u32,
    }
    let error = fixture
        .codec
        .open::<Machine>(&token, &fixture.binding(), fixture.fingerprint)
        .unwrap_err();
    let reason = error.reason().to_string();
    assert!(matches!(error.reason(), Rejection::BadPayload(_)));
    assert!(!reason.contains("hunter2"), "{reason}");
    let inspected = fixture.codec.inspect(&format!("{token}x"));
    assert!(inspected.is_err());
}

/// Length of the header of a decoded token with key id `k1`: mode and flags, key id length,
/// key id, six one-byte binding hints.
const HEADER_LEN: usize = 2 + 2 + 6;

#[test]
fn bindings_are_not_stored_and_their_hints_do_not_link_tokens() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let contains =
            |haystack: &[u8], needle: &[u8]| haystack.windows(needle.len()).any(|w| w == needle);
        let first = URL_SAFE_NO_PAD
            .decode(&fixture.seal(&json!(1))[3..])
            .unwrap();
        let second = URL_SAFE_NO_PAD
            .decode(&fixture.seal(&json!(1))[3..])
            .unwrap();
        for bound in [
            &b"alice"[..],
            b"get_weather",
            b"tools/call",
            b"Paris",
            b"weather-prod",
            fixture.fingerprint.as_bytes(),
        ] {
            assert!(
                !contains(&first, bound),
                "{mode:?}: {:?} is stored",
                String::from_utf8_lossy(bound)
            );
        }
        // Same principal, method, tool, arguments and audience in two flows: unrelated hints.
        let hints = |token: &[u8]| token[HEADER_LEN - 6..HEADER_LEN].to_vec();
        assert_ne!(hints(&first), hints(&second), "{mode:?}");
    }
}

#[test]
fn deflate_starts_above_4_kib() {
    let fixture = Fixture::new(Mode::Hmac);
    let flags = |token: &str| URL_SAFE_NO_PAD.decode(&token[3..]).unwrap()[0] & 0x0f;
    // The serialized payload is the string plus its two quotes.
    let at_threshold = json!("a".repeat(4096 - 2));
    let above = json!("a".repeat(4096 - 1));
    assert_eq!(
        flags(&fixture.seal(&at_threshold)),
        0,
        "4096 bytes are sent as they are"
    );
    assert_eq!(flags(&fixture.seal(&above)), 1, "4097 bytes are deflated");
}

/// The digest is taken over RFC 8785 text, whatever order the members arrived in. Under
/// serde_json's default `Map` (a BTreeMap) parsing already sorts them, so this checks the
/// canonical text itself; if any crate in a build turns on serde_json's `preserve_order`,
/// the members below really are held in arrival order and the canonical sort is what makes
/// the two requests one.
#[test]
fn the_digest_is_over_canonical_text_whatever_the_arrival_order() {
    use mrtr_runtime::token::{ArgumentsDigest, canonical_json};
    let arrived: Value =
        serde_json::from_str(r#"{"z": {"y": 2, "b": [3, {"d": 1, "c": 2}]}, "a": 1.0, "m": "x"}"#)
            .unwrap();
    let mut reversed = serde_json::Map::new();
    for (key, value) in arrived.as_object().unwrap().iter().rev() {
        reversed.insert(key.clone(), value.clone());
    }
    let reversed = Value::Object(reversed);
    let canonical = r#"{"a":1,"m":"x","z":{"b":[3,{"c":2,"d":1}],"y":2}}"#;
    assert_eq!(canonical_json(&arrived), canonical);
    assert_eq!(canonical_json(&reversed), canonical);
    assert_eq!(
        ArgumentsDigest::of(Some(&arrived)),
        ArgumentsDigest::of(Some(&reversed))
    );
    let parsed_canonical: Value = serde_json::from_str(canonical).unwrap();
    assert_eq!(
        ArgumentsDigest::of(Some(&arrived)),
        ArgumentsDigest::of(Some(&parsed_canonical))
    );
}

#[test]
fn a_token_of_the_previous_layout_is_refused_cleanly() {
    for mode in MODES {
        let fixture = Fixture::new(mode);
        let token = fixture.seal(&payload());
        let old = format!("m1.{}", &token[3..]);
        assert_eq!(
            fixture.open(&old),
            Err(Rejection::Malformed("unknown prefix")),
            "{mode:?}"
        );
    }
}
