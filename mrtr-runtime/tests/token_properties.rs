//! Property tests of the token, in AEAD, HMAC and deflating HMAC: any mutation, truncation or
//! splice of a token is refused, open∘seal is the identity for any payload, the argument
//! digest is stable under member reordering and changes with any value change, and a token
//! opens only for the very principal, arguments, target and audience it was sealed for.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mrtr_runtime::token::{
    ArgumentsDigest, Binding, Fingerprint, KeyId, KeyRing, Mode, SecretKey, StateCodec,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A codec's mode and compression threshold: AEAD, HMAC, and HMAC deflating every payload
/// that deflate shrinks (the default threshold, 4 KiB, is above every payload generated here).
fn codec(mode: (Mode, Option<usize>)) -> StateCodec {
    codec_for_audience(mode, "mrtr")
}

/// The same codec (same key) bound to another audience.
fn codec_for_audience((mode, compress_above): (Mode, Option<usize>), audience: &str) -> StateCodec {
    let ring = KeyRing::with_signing_key(
        KeyId::new("p").unwrap(),
        SecretKey::from_bytes(vec![42; 32]).unwrap(),
    );
    let builder = StateCodec::builder()
        .mode(mode)
        .key_ring(ring)
        .audience(audience);
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

// ---------------------------------------------------------------- bindings (issue 30)

/// One of the values a token is bound to, which a request presents again on every retry.
#[derive(Clone, Copy, Debug)]
enum Bound {
    Principal,
    Arguments,
    Target,
    Audience,
}

const EVERY_BINDING: [Bound; 4] = [
    Bound::Principal,
    Bound::Arguments,
    Bound::Target,
    Bound::Audience,
];

/// A token sealed with `sealed_as` as the bound value, opened with `presented_as` in its place
/// (every other binding equal): whether the codec accepts it.
fn opens_for(
    mode: (Mode, Option<usize>),
    bound: Bound,
    sealed_as: &str,
    presented_as: &str,
) -> bool {
    let fingerprint = Fingerprint::of(b"t");
    let payload = json!({"pc": 1});
    let seal_and_open =
        |sealer: &StateCodec, opener: &StateCodec, seal: Binding<'_>, open: Binding<'_>| {
            let token = sealer
                .seal(&sealer.start_flow(fingerprint), &seal, &payload)
                .unwrap();
            opener.open::<Value>(&token, &open, fingerprint).is_ok()
        };
    let plain = codec(mode);
    match bound {
        Bound::Principal => seal_and_open(
            &plain,
            &plain,
            Binding::new("tools/call", "t", None).principal(Some(sealed_as)),
            Binding::new("tools/call", "t", None).principal(Some(presented_as)),
        ),
        Bound::Arguments => {
            let (sealed, presented) = (json!({"who": sealed_as}), json!({"who": presented_as}));
            seal_and_open(
                &plain,
                &plain,
                Binding::new("tools/call", "t", Some(&sealed)),
                Binding::new("tools/call", "t", Some(&presented)),
            )
        }
        Bound::Target => seal_and_open(
            &plain,
            &plain,
            Binding::new("tools/call", sealed_as, None),
            Binding::new("tools/call", presented_as, None),
        ),
        Bound::Audience => seal_and_open(
            &codec_for_audience(mode, sealed_as),
            &codec_for_audience(mode, presented_as),
            Binding::new("tools/call", "t", None),
            Binding::new("tools/call", "t", None),
        ),
    }
}

/// A printable ASCII value with at least one letter, so it has another case.
fn value() -> impl Strategy<Value = String> {
    "[ -~]{0,7}[a-zA-Z][ -~]{0,16}"
}

/// Every ASCII letter in the other case.
fn other_case(value: &str) -> String {
    value
        .chars()
        .map(|c| match c {
            'a'..='z' => c.to_ascii_uppercase(),
            'A'..='Z' => c.to_ascii_lowercase(),
            c => c,
        })
        .collect()
}

/// `value` with the byte at `at` replaced by another printable one, `shift` places on.
fn one_byte_changed(value: &str, at: prop::sample::Index, shift: u8) -> String {
    let mut bytes = value.as_bytes().to_vec();
    let at = at.index(bytes.len());
    bytes[at] = b' ' + (bytes[at] - b' ' + shift) % 95;
    String::from_utf8(bytes).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The near misses a lax comparison would let through: another value of the same length,
    /// the same value in another case, and the same value with one byte changed.
    #[test]
    fn a_token_is_refused_for_any_near_miss_of_a_bound_value(
        mode in mode(),
        value in value(),
        filler in "[ -~]{24}",
        at in any::<prop::sample::Index>(),
        shift in 1u8..95,
    ) {
        let same_length = &filler[..value.len()];
        let misses = [same_length.to_owned(), other_case(&value), one_byte_changed(&value, at, shift)];
        for bound in EVERY_BINDING {
            prop_assert!(opens_for(mode, bound, &value, &value), "the value it was sealed for opens it");
            for miss in misses.iter().filter(|miss| **miss != value) {
                prop_assert_eq!(miss.len(), value.len());
                prop_assert!(!opens_for(mode, bound, &value, miss), "{:?} sealed for {:?} opened for {:?}", bound, value, miss);
            }
        }
    }

    #[test]
    fn a_token_is_refused_for_any_other_value_of_a_binding(
        mode in mode(),
        sealed_as in ".{0,16}",
        presented_as in ".{0,16}",
    ) {
        prop_assume!(sealed_as != presented_as);
        for bound in EVERY_BINDING {
            prop_assert!(!opens_for(mode, bound, &sealed_as, &presented_as), "{:?} sealed for {:?} opened for {:?}", bound, sealed_as, presented_as);
        }
    }

    #[test]
    fn a_token_sealed_without_a_principal_is_refused_with_one_and_the_reverse(
        mode in mode(),
        principal in ".{0,16}",
    ) {
        let codec = codec(mode);
        let fingerprint = Fingerprint::of(b"t");
        let anonymous = Binding::new("tools/call", "t", None);
        let named = anonymous.principal(Some(&principal));
        for (seal, open) in [(anonymous, named), (named, anonymous)] {
            let token = codec.seal(&codec.start_flow(fingerprint), &seal, &json!(1)).unwrap();
            prop_assert!(codec.open::<Value>(&token, &open, fingerprint).is_err());
        }
    }
}
