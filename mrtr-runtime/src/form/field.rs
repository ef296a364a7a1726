//! The field types a form may hold, with their property schema and decoding.

use serde_json::{Map, Number, Value, json};

use super::__derive::Sealed;
use super::AnswerError;

/// A type that can be one field of a [`Form`](super::Form).
///
/// Implemented for `String`, `bool`, the integer and float primitives, `Option<T>` of those
/// (an optional field), types deriving [`Choice`] (a single-select) and `Vec<T: Choice>` (a
/// multi-select).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a flat form field",
    note = "MCP forms are flat: use String, bool, an integer or float, a `#[derive(mrtr::Choice)]` \
            enum, `Vec` of such an enum (multi-select), or `Option` of any of these"
)]
///
/// The trait is sealed: only the types above and `#[derive(mrtr::Choice)]` implement it, so
/// every form's schema stays inside the flat grammar MCP allows.
pub trait FormField: Sized + super::__derive::Sealed {
    /// Whether the field must be present in an accepted answer (`false` for `Option`).
    const REQUIRED: bool = true;

    /// The property schema (`type` and the bounds implied by the type).
    fn property_schema() -> Map<String, Value>;

    /// Decodes the field from validated content (`None`: the field was absent).
    fn decode(value: Option<&Value>) -> Result<Self, AnswerError>;

    /// Encodes the field as form content, the inverse of [`FormField::decode`] (`None`: leave
    /// the field out). Used to keep a form answer across a later `ask!`.
    fn encode(&self) -> Option<Value>;
}

fn schema(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("schemas are objects"),
    }
}

fn missing() -> AnswerError {
    AnswerError::new("required field is missing")
}

impl FormField for String {
    fn property_schema() -> Map<String, Value> {
        schema(json!({"type": "string"}))
    }

    fn decode(value: Option<&Value>) -> Result<Self, AnswerError> {
        match value {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(AnswerError::new(format!("expected a string, got {other}"))),
            None => Err(missing()),
        }
    }

    fn encode(&self) -> Option<Value> {
        Some(Value::String(self.clone()))
    }
}

impl Sealed for String {}
impl Sealed for bool {}

impl FormField for bool {
    fn property_schema() -> Map<String, Value> {
        schema(json!({"type": "boolean"}))
    }

    fn decode(value: Option<&Value>) -> Result<Self, AnswerError> {
        match value {
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(AnswerError::new(format!("expected a boolean, got {other}"))),
            None => Err(missing()),
        }
    }

    fn encode(&self) -> Option<Value> {
        Some(Value::Bool(*self))
    }
}

/// An integer given as a JSON integer or as a float with no fractional part (clients may send
/// `3.0`); floats are only taken below 2^53, where they are exact. Validation uses the same
/// reading, so an answer that validates always decodes.
pub(crate) fn exact_integer(number: &Number) -> Option<i128> {
    if let Some(integer) = number.as_i64() {
        return Some(integer.into());
    }
    if let Some(integer) = number.as_u64() {
        return Some(integer.into());
    }
    match number.as_f64() {
        Some(float) if float.fract() == 0.0 && float.abs() < 9.0e15 => Some(float as i128),
        _ => None,
    }
}

fn integer(value: Option<&Value>) -> Result<i128, AnswerError> {
    match value {
        Some(Value::Number(number)) => exact_integer(number)
            .ok_or_else(|| AnswerError::new(format!("expected an integer, got {number}"))),
        Some(other) => Err(AnswerError::new(format!(
            "expected an integer, got {other}"
        ))),
        None => Err(missing()),
    }
}

/// An integer as a JSON number (every Rust integer type fits `i64` or `u64`).
pub(crate) fn integer_value(integer: i128) -> Value {
    match (i64::try_from(integer), u64::try_from(integer)) {
        (Ok(signed), _) => signed.into(),
        (_, Ok(unsigned)) => unsigned.into(),
        _ => Value::Null,
    }
}

macro_rules! integer_field {
    ($($ty:ty),* $(,)?) => {$(
        // Every integer type advertises its range: a client cannot send a value that would
        // validate and then not fit.
        impl FormField for $ty {
            fn property_schema() -> Map<String, Value> {
                let mut schema = schema(json!({"type": "integer"}));
                schema.insert("minimum".into(), integer_value(<$ty>::MIN as i128));
                schema.insert("maximum".into(), integer_value(<$ty>::MAX as i128));
                schema
            }

            fn decode(value: Option<&Value>) -> Result<Self, AnswerError> {
                let integer = integer(value)?;
                <$ty>::try_from(integer)
                    .map_err(|_| AnswerError::new(format!("{integer} is out of range for {}", stringify!($ty))))
            }

            fn encode(&self) -> Option<Value> {
                Some(integer_value(*self as i128))
            }
        }

        impl Sealed for $ty {}
    )*};
}

integer_field!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_field {
    ($($ty:ty),*) => {$(
        impl FormField for $ty {
            fn property_schema() -> Map<String, Value> {
                schema(json!({"type": "number"}))
            }

            fn decode(value: Option<&Value>) -> Result<Self, AnswerError> {
                match value {
                    Some(Value::Number(number)) => number
                        .as_f64()
                        .map(|float| float as $ty)
                        .ok_or_else(|| AnswerError::new(format!("expected a number, got {number}"))),
                    // Only a kept value reads these: a client's answer is validated as a
                    // number first.
                    Some(Value::String(marker)) => non_finite(marker)
                        .map(|float| float as $ty)
                        .ok_or_else(|| AnswerError::new(format!("expected a number, got {marker:?}"))),
                    Some(other) => Err(AnswerError::new(format!("expected a number, got {other}"))),
                    None => Err(missing()),
                }
            }

            fn encode(&self) -> Option<Value> {
                let float = f64::from(*self);
                // JSON has no infinity: a number beyond the type's range decodes to one (as
                // `1e39` does for an `f32`), and a kept form must come back as it was.
                Some(if float.is_finite() {
                    Value::from(float)
                } else {
                    Value::from(non_finite_marker(float))
                })
            }
        }

        impl Sealed for $ty {}
    )*};
}

float_field!(f32, f64);

/// How a kept non-finite float is written in form content.
fn non_finite_marker(float: f64) -> &'static str {
    if float.is_nan() {
        "NaN"
    } else if float > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// The float a [`non_finite_marker`] stands for.
fn non_finite(marker: &str) -> Option<f64> {
    match marker {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

impl<T: FormField> FormField for Option<T> {
    const REQUIRED: bool = false;

    fn property_schema() -> Map<String, Value> {
        T::property_schema()
    }

    fn decode(value: Option<&Value>) -> Result<Self, AnswerError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            present => T::decode(present).map(Some),
        }
    }

    fn encode(&self) -> Option<Value> {
        self.as_ref().and_then(T::encode)
    }
}

impl<T: FormField> Sealed for Option<T> {}

/// One option of a single- or multi-select: the value sent back, and an optional title shown
/// to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChoiceOption {
    /// The value the client sends back.
    pub value: &'static str,
    /// What the user sees, if different from the value.
    pub title: Option<&'static str>,
}

/// A unit-only enum offered as a single-select (or, in a `Vec`, a multi-select).
///
/// Implement it with `#[derive(mrtr::Choice)]`, which also implements [`FormField`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `Choice` enum, so it cannot be the options of a select",
    label = "not a Choice",
    note = "a multi-select is `Vec<E>` where `E` is a unit enum deriving `mrtr::Choice`; for free \
            text use a `String` field"
)]
pub trait Choice: Sized + 'static {
    /// The options, in the order they are shown.
    const OPTIONS: &'static [ChoiceOption];

    /// The variant for a value the client sent back.
    fn from_value(value: &str) -> Option<Self>;

    /// The value this variant is sent and kept as.
    fn to_value(&self) -> &'static str;

    /// The single-select property schema: `enum` when no option has a title, `oneOf` with
    /// `const`/`title` otherwise.
    fn single_select_schema() -> Map<String, Value> {
        let mut schema = schema(json!({"type": "string"}));
        if Self::OPTIONS.iter().any(|option| option.title.is_some()) {
            schema.insert("oneOf".into(), titled(Self::OPTIONS));
        } else {
            schema.insert(
                "enum".into(),
                Self::OPTIONS.iter().map(|option| option.value).collect(),
            );
        }
        schema
    }

    /// Decodes one selected value.
    fn decode_choice(value: Option<&Value>) -> Result<Self, AnswerError> {
        match value {
            Some(Value::String(text)) => Self::from_value(text)
                .ok_or_else(|| AnswerError::new(format!("{text:?} is not one of the options"))),
            Some(other) => Err(AnswerError::new(format!(
                "expected one of the options, got {other}"
            ))),
            None => Err(missing()),
        }
    }
}

fn titled(options: &[ChoiceOption]) -> Value {
    options
        .iter()
        .map(|option| json!({"const": option.value, "title": option.title.unwrap_or(option.value)}))
        .collect()
}

impl<T: Choice> FormField for Vec<T> {
    fn property_schema() -> Map<String, Value> {
        let mut schema = schema(json!({"type": "array"}));
        let items = if T::OPTIONS.iter().any(|option| option.title.is_some()) {
            json!({"anyOf": titled(T::OPTIONS)})
        } else {
            json!({"type": "string", "enum": T::OPTIONS.iter().map(|o| o.value).collect::<Vec<_>>()})
        };
        schema.insert("items".into(), items);
        schema
    }

    fn decode(value: Option<&Value>) -> Result<Self, AnswerError> {
        match value {
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| T::decode_choice(Some(item)))
                .collect(),
            Some(other) => Err(AnswerError::new(format!(
                "expected a list of options, got {other}"
            ))),
            None => Err(missing()),
        }
    }

    fn encode(&self) -> Option<Value> {
        Some(
            self.iter()
                .map(|choice| Value::from(choice.to_value()))
                .collect(),
        )
    }
}

impl<T: Choice> Sealed for Vec<T> {}

/// Whether `value` is one of `options` (for the derive's compile-time check of a `default`).
pub const fn has_option(options: &[ChoiceOption], value: &str) -> bool {
    let mut index = 0;
    while index < options.len() {
        if bytes_equal(options[index].value.as_bytes(), value.as_bytes()) {
            return true;
        }
        index += 1;
    }
    false
}

const fn bytes_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut index = 0;
    while index < a.len() {
        if a[index] != b[index] {
            return false;
        }
        index += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_non_finite_float_comes_back_and_a_finite_one_stays_a_number() {
        for float in [f64::INFINITY, f64::NEG_INFINITY, 1.5, -0.25] {
            let kept = float.encode().unwrap();
            assert_eq!(f64::decode(Some(&kept)), Ok(float), "{kept}");
        }
        assert!(
            f64::decode(Some(&f64::NAN.encode().unwrap()))
                .unwrap()
                .is_nan()
        );
        assert_eq!(1.5f32.encode(), Some(json!(1.5)));
        let overflow = f32::decode(Some(&json!(1e39))).unwrap();
        assert_eq!(overflow, f32::INFINITY);
        assert_eq!(
            f32::decode(Some(&overflow.encode().unwrap())),
            Ok(f32::INFINITY)
        );
        assert!(f64::decode(Some(&json!("Infinite"))).is_err());
    }

    #[test]
    fn a_client_cannot_answer_a_number_with_a_marker() {
        let schema = json!({"type": "object", "properties": {"value": {"type": "number"}},
            "required": ["value"]});
        let refused = crate::form::validate_content(&schema, &json!({"value": "Infinity"}));
        assert!(refused.is_err(), "{refused:?}");
    }
}
