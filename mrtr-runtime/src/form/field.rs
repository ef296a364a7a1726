//! The field types a form may hold, with their property schema and decoding.

use serde_json::{Map, Value, json};

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
pub trait FormField: Sized {
    /// Whether the field must be present in an accepted answer (`false` for `Option`).
    const REQUIRED: bool = true;

    /// The property schema (`type` and the bounds implied by the type).
    fn property_schema() -> Map<String, Value>;

    /// Decodes the field from validated content (`None`: the field was absent).
    fn decode(value: Option<&Value>) -> Result<Self, String>;
}

fn schema(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("schemas are objects"),
    }
}

fn missing() -> String {
    "required field is missing".to_owned()
}

impl FormField for String {
    fn property_schema() -> Map<String, Value> {
        schema(json!({"type": "string"}))
    }

    fn decode(value: Option<&Value>) -> Result<Self, String> {
        match value {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(format!("expected a string, got {other}")),
            None => Err(missing()),
        }
    }
}

impl FormField for bool {
    fn property_schema() -> Map<String, Value> {
        schema(json!({"type": "boolean"}))
    }

    fn decode(value: Option<&Value>) -> Result<Self, String> {
        match value {
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(format!("expected a boolean, got {other}")),
            None => Err(missing()),
        }
    }
}

/// An integer given as a JSON integer or as a float with no fractional part (clients may send
/// `3.0`).
fn integer(value: Option<&Value>) -> Result<i128, String> {
    let number = match value {
        Some(Value::Number(number)) => number,
        Some(other) => return Err(format!("expected an integer, got {other}")),
        None => return Err(missing()),
    };
    if let Some(integer) = number.as_i64() {
        return Ok(integer.into());
    }
    if let Some(integer) = number.as_u64() {
        return Ok(integer.into());
    }
    match number.as_f64() {
        Some(float) if float.fract() == 0.0 && float.abs() < 9.0e15 => Ok(float as i128),
        _ => Err(format!("expected an integer, got {number}")),
    }
}

macro_rules! integer_field {
    ($($ty:ty => $bounds:expr),* $(,)?) => {$(
        impl FormField for $ty {
            fn property_schema() -> Map<String, Value> {
                let mut schema = schema(json!({"type": "integer"}));
                let (minimum, maximum): (Option<i64>, Option<i64>) = $bounds;
                if let Some(minimum) = minimum {
                    schema.insert("minimum".into(), minimum.into());
                }
                if let Some(maximum) = maximum {
                    schema.insert("maximum".into(), maximum.into());
                }
                schema
            }

            fn decode(value: Option<&Value>) -> Result<Self, String> {
                let integer = integer(value)?;
                <$ty>::try_from(integer)
                    .map_err(|_| format!("{integer} is out of range for {}", stringify!($ty)))
            }
        }
    )*};
}

// Narrow types advertise their range, so the client cannot send a value that would not fit.
integer_field! {
    i8 => (Some(i8::MIN.into()), Some(i8::MAX.into())),
    i16 => (Some(i16::MIN.into()), Some(i16::MAX.into())),
    i32 => (Some(i32::MIN.into()), Some(i32::MAX.into())),
    i64 => (None, None),
    isize => (None, None),
    u8 => (Some(0), Some(u8::MAX.into())),
    u16 => (Some(0), Some(u16::MAX.into())),
    u32 => (Some(0), Some(u32::MAX.into())),
    u64 => (Some(0), None),
    usize => (Some(0), None),
}

macro_rules! float_field {
    ($($ty:ty),*) => {$(
        impl FormField for $ty {
            fn property_schema() -> Map<String, Value> {
                schema(json!({"type": "number"}))
            }

            fn decode(value: Option<&Value>) -> Result<Self, String> {
                match value {
                    Some(Value::Number(number)) => number
                        .as_f64()
                        .map(|float| float as $ty)
                        .ok_or_else(|| format!("expected a number, got {number}")),
                    Some(other) => Err(format!("expected a number, got {other}")),
                    None => Err(missing()),
                }
            }
        }
    )*};
}

float_field!(f32, f64);

impl<T: FormField> FormField for Option<T> {
    const REQUIRED: bool = false;

    fn property_schema() -> Map<String, Value> {
        T::property_schema()
    }

    fn decode(value: Option<&Value>) -> Result<Self, String> {
        match value {
            None | Some(Value::Null) => Ok(None),
            present => T::decode(present).map(Some),
        }
    }
}

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
    fn decode_choice(value: Option<&Value>) -> Result<Self, String> {
        match value {
            Some(Value::String(text)) => {
                Self::from_value(text).ok_or_else(|| format!("{text:?} is not one of the options"))
            }
            Some(other) => Err(format!("expected one of the options, got {other}")),
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

    fn decode(value: Option<&Value>) -> Result<Self, String> {
        match value {
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| T::decode_choice(Some(item)))
                .collect(),
            Some(other) => Err(format!("expected a list of options, got {other}")),
            None => Err(missing()),
        }
    }
}
