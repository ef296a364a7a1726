//! Property tests of the token, in AEAD, HMAC and deflating HMAC: any mutation, truncation or
//! splice of a token is refused, open∘seal is the identity for any payload, and the argument
//! digest is stable under member reordering and changes with any value change.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mrtr_runtime::token::{
    ArgumentsDigest, Binding, Fingerprint, KeyId, KeyRing, Mode, SecretKey, StateCodec,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A codec's mode and compression threshold: AEAD, HMAC, and HMAC deflating every payload
/// that deflate shrinks (the default threshold, 4 KiB, is above every payload generated here).
fn codec((mode, compress_above): (Mode, Option<usize>)) -> StateCodec {
    let ring = KeyRing::with_signing_key(
        KeyId::new("p").unwrap(),
        SecretKey::from_bytes(vec![42; 32]).unwrap(),
    );
    let builder = StateCodec::builder().mode(mode).key_ring(ring);
    let builder = match compress_above {
        Some(threshold) => builder.compress_above(Some(threshold)),
        None => builder,
    };
    builder.build().unwrap()
}

fn mode() -> impl Strategy<Value = (Mode, Option<usize>)> {
    prop_oneof![
        Just((Mode::Aead, None)),
        Just((Mode::Hmac, None)),
        Just((Mode::Hmac, Some(0))),
    ]
}

/// Arbitrary JSON of bounded size.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1.0e9..1.0e9f64).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn seal(codec: &StateCodec, payload: &Value) -> String {
    let binding = Binding::new("tools/call", "t", None);
    codec
        .seal(&codec.start_flow(Fingerprint::of(b"t")), &binding, payload)
        .unwrap()
}

fn opens(codec: &StateCodec, token: &str) -> bool {
    let binding = Binding::new("tools/call", "t", None);
    codec
        .open::<Value>(token, &binding, Fingerprint::of(b"t"))
        .is_ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn open_after_seal_is_the_identity(mode in mode(), payload in json_value()) {
        let codec = codec(mode);
        let token = seal(&codec, &payload);
        let binding = Binding::new("tools/call", "t", None);
        let opened = codec.open::<Value>(&token, &binding, Fingerprint::of(b"t")).unwrap();
        prop_assert_eq!(opened.payload, payload);
    }

    #[test]
    fn any_byte_mutation_is_refused(mode in mode(), payload in json_value(), position in any::<prop::sample::Index>(), flip in 1u8..=255) {
        let codec = codec(mode);
        let token = seal(&codec, &payload);
        let mut bytes = URL_SAFE_NO_PAD.decode(&token[3..]).unwrap();
        let index = position.index(bytes.len());
        bytes[index] ^= flip;
        let mutated = format!("m2.{}", URL_SAFE_NO_PAD.encode(&bytes));
        prop_assert!(!opens(&codec, &mutated));
    }

    #[test]
    fn any_truncation_or_extension_is_refused(mode in mode(), payload in json_value(), cut in any::<prop::sample::Index>(), extra in "[A-Za-z0-9_-]{1,8}") {
        let codec = codec(mode);
        let token = seal(&codec, &payload);
        let cut = cut.index(token.len());
        prop_assert!(!opens(&codec, &token[..cut]));
        let extended = format!("{token}{extra}");
        prop_assert!(!opens(&codec, &extended));
    }

    #[test]
    fn splicing_two_tokens_is_refused(mode in mode(), first in json_value(), second in json_value(), at in any::<prop::sample::Index>()) {
        let codec = codec(mode);
        let (a, b) = (seal(&codec, &first), seal(&codec, &second));
        let at = at.index(a.len().min(b.len()));
        let spliced = format!("{}{}", &a[..at], &b[at..]);
        prop_assume!(spliced != a && spliced != b);
        prop_assert!(!opens(&codec, &spliced));
    }

    #[test]
    fn the_digest_ignores_member_order_and_sees_value_changes(members in prop::collection::btree_map("[a-z]{1,6}", json_value(), 1..6), changed in json_value()) {
        let forward: Map<String, Value> = members.clone().into_iter().collect();
        let reversed: Map<String, Value> = members.clone().into_iter().rev().collect();
        let forward = Value::Object(forward);
        prop_assert_eq!(ArgumentsDigest::of(Some(&forward)), ArgumentsDigest::of(Some(&Value::Object(reversed))));

        let (key, old) = members.iter().next().unwrap();
        prop_assume!(&changed != old);
        let mut other = forward.clone();
        other[key] = changed;
        prop_assert_ne!(ArgumentsDigest::of(Some(&forward)), ArgumentsDigest::of(Some(&other)));
        prop_assert_ne!(ArgumentsDigest::of(Some(&forward)), ArgumentsDigest::of(Some(&json!({"other": forward.clone()}))));
    }
}
