//! RFC 8785 (JSON Canonicalization Scheme) serialization, and the argument digest built on it.
//!
//! A retry must be recognised as "the same request" even when the client re-serializes its
//! arguments with other key order or whitespace, so the digest is taken over the canonical form
//! of the parsed value, never over the bytes that arrived.

use std::fmt::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Writes `value` in RFC 8785 canonical form.
///
/// Object members are sorted by the UTF-16 code units of their names, strings use the minimal
/// escapes of the RFC, and floating-point numbers use the ECMAScript shortest round-trip form
/// (`1.0` is written `1`, `1e21` is written `1e+21`).
///
/// One deliberate departure: integers outside ±2^53 are written with all their digits instead of
/// being rounded through an IEEE double, so two distinct large integers never share a digest.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// The digest's input goes straight into the hash, not through a `String` first.
struct Hashing(Sha256);

impl Write for Hashing {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.update(text.as_bytes());
        Ok(())
    }
}

// Writing into a `String` or a hash cannot fail: the `fmt::Result`s below are always `Ok`.
fn write_value(out: &mut impl Write, value: &Value) {
    match value {
        Value::Null => _ = out.write_str("null"),
        Value::Bool(true) => _ = out.write_str("true"),
        Value::Bool(false) => _ = out.write_str("false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            _ = out.write_char('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    _ = out.write_char(',');
                }
                write_value(out, item);
            }
            _ = out.write_char(']');
        }
        Value::Object(members) => {
            let by_utf16 = |a: &str, b: &str| a.encode_utf16().cmp(b.encode_utf16());
            _ = out.write_char('{');
            // Members usually arrive in order already; only the others are sorted (a copy).
            if members.keys().is_sorted_by(|a, b| by_utf16(a, b).is_le()) {
                write_members(out, members.iter());
            } else {
                let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
                sorted.sort_by(|(a, _), (b, _)| by_utf16(a, b));
                write_members(out, sorted.into_iter());
            }
            _ = out.write_char('}');
        }
    }
}

fn write_members<'a>(out: &mut impl Write, members: impl Iterator<Item = (&'a String, &'a Value)>) {
    for (index, (name, member)) in members.enumerate() {
        if index > 0 {
            _ = out.write_char(',');
        }
        write_string(out, name);
        _ = out.write_char(':');
        write_value(out, member);
    }
}

fn write_number(out: &mut impl Write, number: &serde_json::Number) {
    if let Some(integer) = number.as_i64() {
        _ = write!(out, "{integer}");
    } else if let Some(integer) = number.as_u64() {
        _ = write!(out, "{integer}");
    } else if let Some(float) = number.as_f64() {
        // serde_json never holds NaN or infinities, so the finite formatter always applies.
        _ = out.write_str(ryu_js::Buffer::new().format_finite(float));
    }
}

fn write_string(out: &mut impl Write, text: &str) {
    _ = out.write_char('"');
    for character in text.chars() {
        _ = match character {
            '"' => out.write_str("\\\""),
            '\\' => out.write_str("\\\\"),
            '\u{8}' => out.write_str("\\b"),
            '\t' => out.write_str("\\t"),
            '\n' => out.write_str("\\n"),
            '\u{c}' => out.write_str("\\f"),
            '\r' => out.write_str("\\r"),
            control if (control as u32) < 0x20 => write!(out, "\\u{:04x}", control as u32),
            other => out.write_char(other),
        };
    }
    _ = out.write_char('"');
}

/// SHA-256 of the canonical JSON of a request's arguments.
///
/// Absent arguments and JSON `null` digest as the empty object `{}`, so a client that omits
/// `arguments` on one round and sends `{}` on the next is still making the same request.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArgumentsDigest([u8; 32]);

impl ArgumentsDigest {
    /// Digests `arguments` (absent or `null` count as `{}`).
    pub fn of(arguments: Option<&Value>) -> Self {
        let mut hashing = Hashing(Sha256::new());
        match arguments {
            None | Some(Value::Null) => _ = hashing.write_str("{}"),
            Some(value) => write_value(&mut hashing, value),
        }
        Self(hashing.0.finalize().into())
    }

    /// The 32 digest bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl std::fmt::Debug for ArgumentsDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ArgumentsDigest({})", crate::bytes::hex(&self.0[..8]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_members_by_utf16_code_units() {
        // U+E000 sorts before U+1F600 in UTF-8 but after it in UTF-16 (surrogates are 0xD8xx).
        let value = json!({"\u{e000}": 1, "\u{1f600}": 2, "b": 3, "a": {"z": 1, "y": 2}});
        assert_eq!(
            canonical_json(&value),
            "{\"a\":{\"y\":2,\"z\":1},\"b\":3,\"\u{1f600}\":2,\"\u{e000}\":1}"
        );
    }

    #[test]
    fn formats_numbers_like_ecmascript() {
        let value = json!([1.0, 0.5, 1e21, -0.0, 123456789, 1e-7, u64::MAX]);
        assert_eq!(
            canonical_json(&value),
            "[1,0.5,1e+21,0,123456789,1e-7,18446744073709551615]"
        );
    }

    #[test]
    fn escapes_only_what_the_rfc_requires() {
        let value = json!("a\"b\\c\n\u{1}/é\u{7f}");
        assert_eq!(canonical_json(&value), "\"a\\\"b\\\\c\\n\\u0001/é\u{7f}\"");
    }

    #[test]
    fn digest_ignores_member_order_and_notices_value_changes() {
        let a: Value = serde_json::from_str(r#"{"city":"Paris","days":3}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{ "days": 3, "city": "Paris" }"#).unwrap();
        let c: Value = serde_json::from_str(r#"{"city":"Paris","days":4}"#).unwrap();
        assert_eq!(ArgumentsDigest::of(Some(&a)), ArgumentsDigest::of(Some(&b)));
        assert_ne!(ArgumentsDigest::of(Some(&a)), ArgumentsDigest::of(Some(&c)));
    }

    #[test]
    fn digest_is_the_sha256_of_the_canonical_form() {
        let values = [
            json!({"a": 1, "b": {"c": [1.5, "x\n"], "d": null}}),
            json!({"b": {"d": null, "c": [1.5, "x\n"]}, "a": 1}),
            json!({"\u{1f600}": true, "\u{e000}": u64::MAX, "n": -3, "s": "\u{1}"}),
        ];
        for value in values {
            let expected: [u8; 32] = Sha256::digest(canonical_json(&value).as_bytes()).into();
            assert_eq!(ArgumentsDigest::of(Some(&value)).as_bytes(), &expected);
        }
    }

    #[test]
    fn absent_and_null_arguments_digest_as_empty_object() {
        let empty = json!({});
        assert_eq!(ArgumentsDigest::of(None), ArgumentsDigest::of(Some(&empty)));
        assert_eq!(
            ArgumentsDigest::of(Some(&Value::Null)),
            ArgumentsDigest::of(None)
        );
        assert_ne!(
            ArgumentsDigest::of(None),
            ArgumentsDigest::of(Some(&json!([])))
        );
    }
}
