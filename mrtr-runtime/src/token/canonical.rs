//! RFC 8785 (JSON Canonicalization Scheme) serialization, and the argument digest built on it.
//!
//! A retry must be recognised as "the same request" even when the client re-serializes its
//! arguments with other key order or whitespace, so the digest is taken over the canonical form
//! of the parsed value, never over the bytes that arrived.

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

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (index, (name, member)) in sorted.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(out, name);
                out.push(':');
                write_value(out, member);
            }
            out.push('}');
        }
    }
}

fn write_number(out: &mut String, number: &serde_json::Number) {
    if let Some(integer) = number.as_i64() {
        out.push_str(&integer.to_string());
    } else if let Some(integer) = number.as_u64() {
        out.push_str(&integer.to_string());
    } else if let Some(float) = number.as_f64() {
        // serde_json never holds NaN or infinities, so the finite formatter always applies.
        out.push_str(ryu_js::Buffer::new().format_finite(float));
    }
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            control if (control as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", control as u32));
            }
            other => out.push(other),
        }
    }
    out.push('"');
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
        let canonical = match arguments {
            None | Some(Value::Null) => "{}".to_owned(),
            Some(value) => canonical_json(value),
        };
        Self(Sha256::digest(canonical.as_bytes()).into())
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
