//! Property: for every kind of form field, an answer that validates against the field's schema
//! always decodes (an answer that could not decode would end the flow with -32603 instead of
//! being asked again). Schemas carry the widest and some narrowed bounds.

use mrtr_runtime::form::{FormField, validate_content};
use mrtr_runtime::{AnswerError, Choice, ChoiceOption};
use proptest::prelude::*;
use serde_json::{Map, Number, Value, json};

#[derive(Debug, PartialEq)]
enum Size {
    Small,
    Large,
}

impl Choice for Size {
    const OPTIONS: &'static [ChoiceOption] = &[
        ChoiceOption {
            value: "s",
            title: Some("Small"),
        },
        ChoiceOption {
            value: "l",
            title: None,
        },
    ];
    fn from_value(value: &str) -> Option<Self> {
        match value {
            "s" => Some(Self::Small),
            "l" => Some(Self::Large),
            _ => None,
        }
    }
    fn to_value(&self) -> &'static str {
        match self {
            Self::Small => "s",
            Self::Large => "l",
        }
    }
}

impl mrtr_runtime::form::__derive::Sealed for Size {}

impl FormField for Size {
    fn property_schema() -> Map<String, Value> {
        Self::single_select_schema()
    }
    fn decode(value: Option<&Value>) -> Result<Self, AnswerError> {
        Self::decode_choice(value)
    }
    fn encode(&self) -> Option<Value> {
        Some(self.to_value().into())
    }
}

/// JSON values a client might send for any field: every number shape that matters.
fn answer() -> impl Strategy<Value = Value> {
    let numbers = prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        (-1000i64..1000).prop_map(|n| json!(n as f64)),
        prop_oneof![
            Just(json!(1e300)),
            Just(json!(-1e300)),
            Just(json!(9.0e15)),
            Just(json!(-9.2e18)),
            Just(json!(1.8446744073709552e19)),
            Just(json!(255.0)),
            Just(json!(256)),
            Just(json!(-1)),
            Just(json!(0.5)),
        ],
    ];
    let leaf = prop_oneof![
        numbers,
        any::<bool>().prop_map(Value::from),
        "[a-z]{0,3}".prop_map(Value::from),
        prop_oneof![Just(json!("s")), Just(json!("l")), Just(Value::Null)],
    ];
    leaf.prop_recursive(1, 4, 3, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(Value::Array)
    })
}

/// Validates `value` as the content of a one-field form with `schema`; if that passes,
/// decoding must too.
fn validates_implies_decodes<T: FormField>(
    schema: Map<String, Value>,
    value: &Value,
) -> Result<(), TestCaseError> {
    let form = json!({"type": "object", "properties": {"f": schema}, "required": ["f"]});
    let content = json!({ "f": value });
    if let Ok(kept) = validate_content(&form, &content) {
        let decoded = T::decode(kept.get("f"));
        prop_assert!(
            decoded.is_ok(),
            "{value} validated against {form} but did not decode: {:?}",
            decoded.err()
        );
    }
    Ok(())
}

/// The type's schema, and the same with a bound narrowed as `#[form(..)]` would.
fn schemas<T: FormField>() -> Vec<Map<String, Value>> {
    let plain = T::property_schema();
    let mut narrowed = plain.clone();
    if narrowed.get("type") == Some(&json!("integer"))
        || narrowed.get("type") == Some(&json!("number"))
    {
        mrtr_runtime::form::__derive::narrow_bound(&mut narrowed, "minimum", json!(-5));
        mrtr_runtime::form::__derive::narrow_bound(&mut narrowed, "maximum", json!(1e30));
    }
    vec![plain, narrowed]
}

macro_rules! check_all {
    ($value:expr; $($ty:ty),* $(,)?) => {$(
        for schema in schemas::<$ty>() {
            validates_implies_decodes::<$ty>(schema, $value)?;
        }
    )*};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn an_answer_that_validates_always_decodes(value in answer()) {
        check_all!(&value;
            String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64,
            Size, Vec<Size>, Option<u8>, Option<i64>, Option<String>, Option<Size>,
            Option<Vec<Size>>,
        );
    }
}
