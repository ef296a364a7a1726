//! Validation of accepted form content against the `requestedSchema` that was sent.
//!
//! The client's answer is attacker-controlled; nothing reaches the tool's code unless it fits
//! the schema the user was shown. Numbers may arrive as floats (`3.0` for an integer), as the
//! spec's JSON Schema and its TypeScript source disagree on that point.

use serde_json::{Map, Value};

/// Checks `content` against a restricted elicitation schema and returns the content reduced to
/// the schema's properties (unknown members are dropped, as the spec asks servers to ignore
/// them). The error says, for the user, what is wrong with the first offending field.
pub fn validate_content(schema: &Value, content: &Value) -> Result<Map<String, Value>, String> {
    let Value::Object(content) = content else {
        return Err("the answer's content must be an object".to_owned());
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut kept = Map::new();
    for (name, property) in properties.into_iter().flatten() {
        match content.get(name) {
            None | Some(Value::Null) if required.contains(&name.as_str()) => {
                return Err(format!("`{name}` is required"));
            }
            None | Some(Value::Null) => {}
            Some(value) => {
                check_property(property, value).map_err(|why| format!("`{name}` {why}"))?;
                kept.insert(name.clone(), value.clone());
            }
        }
    }
    Ok(kept)
}

fn check_property(schema: &Value, value: &Value) -> Result<(), String> {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => check_string(schema, value),
        Some("integer") => check_number(schema, value, true),
        Some("number") => check_number(schema, value, false),
        Some("boolean") => value
            .is_boolean()
            .then_some(())
            .ok_or_else(|| "must be true or false".to_owned()),
        Some("array") => check_multi_select(schema, value),
        _ => Err("has a type this server cannot validate".to_owned()),
    }
}

/// The values a select offers: `enum`, or the `const`s of `oneOf` / `anyOf`.
fn options(schema: &Value) -> Option<Vec<&str>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().filter_map(Value::as_str).collect());
    }
    ["oneOf", "anyOf"].iter().find_map(|keyword| {
        let entries = schema.get(*keyword)?.as_array()?;
        Some(
            entries
                .iter()
                .filter_map(|entry| entry.get("const")?.as_str())
                .collect(),
        )
    })
}

fn check_string(schema: &Value, value: &Value) -> Result<(), String> {
    let Value::String(text) = value else {
        return Err("must be text".to_owned());
    };
    if let Some(allowed) = options(schema) {
        return if allowed.contains(&text.as_str()) {
            Ok(())
        } else {
            Err(format!("must be one of {}", allowed.join(", ")))
        };
    }
    let length = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && length < min
    {
        return Err(format!("must be at least {min} characters long"));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && length > max
    {
        return Err(format!("must be at most {max} characters long"));
    }
    match schema.get("format").and_then(Value::as_str) {
        Some("email") if !is_email(text) => Err("must be an email address".to_owned()),
        Some("uri") if !is_uri(text) => Err("must be a URI".to_owned()),
        Some("date") if !is_date(text) => Err("must be a date (YYYY-MM-DD)".to_owned()),
        Some("date-time") if !is_date_time(text) => {
            Err("must be a date and time (RFC 3339, e.g. 2026-12-02T10:00:00Z)".to_owned())
        }
        _ => Ok(()),
    }
}

fn check_number(schema: &Value, value: &Value, integer: bool) -> Result<(), String> {
    let whole = || "must be a whole number".to_owned();
    let Value::Number(number) = value else {
        return Err(if integer {
            whole()
        } else {
            "must be a number".to_owned()
        });
    };
    if integer {
        // The same reading as decoding: what passes here always decodes.
        let Some(exact) = super::field::exact_integer(number) else {
            return Err(whole());
        };
        let bound = |key: &str| {
            schema
                .get(key)
                .and_then(|b| integer_bound(b, key == "minimum"))
        };
        if let Some(minimum) = bound("minimum")
            && exact < minimum
        {
            return Err(format!("must be at least {}", schema["minimum"]));
        }
        if let Some(maximum) = bound("maximum")
            && exact > maximum
        {
            return Err(format!("must be at most {}", schema["maximum"]));
        }
        return Ok(());
    }
    let Some(number) = number.as_f64() else {
        return Err("must be a number".to_owned());
    };
    if let Some(minimum) = schema.get("minimum").and_then(Value::as_f64)
        && number < minimum
    {
        return Err(format!("must be at least {}", schema["minimum"]));
    }
    if let Some(maximum) = schema.get("maximum").and_then(Value::as_f64)
        && number > maximum
    {
        return Err(format!("must be at most {}", schema["maximum"]));
    }
    Ok(())
}

/// An integer schema's bound as an exact integer; a fractional bound (a hand-written schema)
/// is rounded inward: up for a minimum, down for a maximum.
fn integer_bound(bound: &Value, minimum: bool) -> Option<i128> {
    let Value::Number(number) = bound else {
        return None;
    };
    super::field::exact_integer(number).or_else(|| {
        let float = number.as_f64().filter(|float| float.is_finite())?;
        Some(if minimum { float.ceil() } else { float.floor() } as i128)
    })
}

fn check_multi_select(schema: &Value, value: &Value) -> Result<(), String> {
    let Value::Array(items) = value else {
        return Err("must be a list of options".to_owned());
    };
    let allowed = schema.get("items").and_then(options).unwrap_or_default();
    for item in items {
        match item.as_str() {
            Some(text) if allowed.contains(&text) => {}
            _ => return Err(format!("may only contain {}", allowed.join(", "))),
        }
    }
    let count = items.len() as u64;
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
        && count < min
    {
        return Err(format!("needs at least {min} selections"));
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && count > max
    {
        return Err(format!("allows at most {max} selections"));
    }
    Ok(())
}

fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.is_empty()
        && !domain.contains('@')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !text.chars().any(char::is_whitespace)
}

fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn digits(text: &str) -> Option<u32> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok())?
}

fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [year, month, day] = parts[..] else {
        return false;
    };
    if year.len() != 4 || month.len() != 2 || day.len() != 2 {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(year), digits(month), digits(day)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days_in_month).contains(&day)
}

fn is_time(text: &str) -> bool {
    let (clock, offset) = if let Some(clock) = text.strip_suffix(['Z', 'z']) {
        (clock, None)
    } else {
        match text.rfind(['+', '-']) {
            Some(index) => (&text[..index], Some(&text[index + 1..])),
            None => return false,
        }
    };
    let clock = clock.split_once('.').map_or(clock, |(whole, fraction)| {
        if digits(fraction).is_some() {
            whole
        } else {
            "invalid"
        }
    });
    let valid_clock = matches!(clock.split(':').collect::<Vec<_>>()[..],
        [h, m, s] if h.len() == 2 && m.len() == 2 && s.len() == 2
            && digits(h).is_some_and(|h| h < 24)
            && digits(m).is_some_and(|m| m < 60)
            && digits(s).is_some_and(|s| s < 61));
    let valid_offset = offset.is_none_or(|offset| {
        matches!(offset.split(':').collect::<Vec<_>>()[..],
            [h, m] if h.len() == 2 && m.len() == 2
                && digits(h).is_some_and(|h| h < 24)
                && digits(m).is_some_and(|m| m < 60))
    });
    valid_clock && valid_offset
}

fn is_date_time(text: &str) -> bool {
    match text.split_once(['T', 't']) {
        Some((date, time)) => is_date(date) && is_time(time),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2, "maxLength": 5},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "ratio": {"type": "number", "minimum": 0.5},
                "ok": {"type": "boolean"},
                "seat": {"type": "string", "oneOf": [{"const": "w", "title": "Window"}]},
                "size": {"type": "string", "enum": ["s", "m"]},
                "meals": {"type": "array", "items": {"type": "string", "enum": ["veg", "fish"]}, "maxItems": 1},
                "when": {"type": "string", "format": "date-time"}
            },
            "required": ["name"]
        })
    }

    #[test]
    fn accepts_valid_content_and_drops_unknown_members() {
        let content = json!({"name": "Ann", "age": 30.0, "ratio": 0.5, "ok": true, "seat": "w",
            "size": "m", "meals": ["veg"], "email": "a@b.c", "when": "2026-12-02T10:00:00.5+01:00",
            "extra": "ignored"});
        let kept = validate_content(&schema(), &content).unwrap();
        assert!(!kept.contains_key("extra"));
        assert_eq!(kept.len(), 9);
    }

    #[test]
    fn explains_the_first_problem() {
        let cases = [
            (json!({}), "`name` is required"),
            (
                json!({"name": "A"}),
                "`name` must be at least 2 characters long",
            ),
            (
                json!({"name": "Annabel"}),
                "`name` must be at most 5 characters long",
            ),
            (json!({"name": 5}), "`name` must be text"),
            (
                json!({"name": "Ann", "age": 2.5}),
                "`age` must be a whole number",
            ),
            (
                json!({"name": "Ann", "age": 151}),
                "`age` must be at most 150",
            ),
            (
                json!({"name": "Ann", "ratio": 0.1}),
                "`ratio` must be at least 0.5",
            ),
            (
                json!({"name": "Ann", "ok": "yes"}),
                "`ok` must be true or false",
            ),
            (
                json!({"name": "Ann", "seat": "aisle"}),
                "`seat` must be one of w",
            ),
            (
                json!({"name": "Ann", "meals": ["veg", "fish"]}),
                "`meals` allows at most 1 selections",
            ),
            (
                json!({"name": "Ann", "meals": ["beef"]}),
                "`meals` may only contain veg, fish",
            ),
            (
                json!({"name": "Ann", "email": "nope"}),
                "`email` must be an email address",
            ),
        ];
        for (content, expected) in cases {
            assert_eq!(
                validate_content(&schema(), &content).unwrap_err(),
                expected,
                "{content}"
            );
        }
        assert!(validate_content(&schema(), &json!("text")).is_err());
    }

    #[test]
    fn formats() {
        assert!(is_date("2024-02-29") && !is_date("2023-02-29") && !is_date("2024-13-01"));
        assert!(is_date_time("2026-12-02T23:59:60Z") && !is_date_time("2026-12-02 10:00:00Z"));
        assert!(!is_date_time("2026-12-02T10:00:00") && is_date_time("2026-12-02t10:00:00-05:30"));
        assert!(is_uri("https://example.com/x") && is_uri("urn:isbn:1") && !is_uri("no scheme"));
        assert!(!is_email("a@") && !is_email("a b@c.d") && is_email("octocat@github.com"));
    }
}
