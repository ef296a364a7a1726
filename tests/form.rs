//! `#[derive(Form)]` and `#[derive(Choice)]`: the schemas they produce, the values they decode,
//! and the compile errors for everything outside the flat MCP form grammar.

use mrtr::form::validate_content;
use mrtr::{Choice, Form};
use serde_json::{Value, json};

#[derive(Choice, Debug, PartialEq)]
enum Seat {
    #[choice(rename = "window", title = "Window seat")]
    Window,
    #[choice(rename = "aisle")]
    Aisle,
}

#[derive(Choice, Debug, PartialEq)]
enum Meal {
    Veg,
    Fish,
}

/// Everything the grammar allows, once.
#[derive(Form, Debug)]
struct Everything {
    /// The name on the ticket
    #[form(title = "Name", min_length = 2, max_length = 20, default = "Ann")]
    name: String,
    #[form(format = "email", description = "Where to send it")]
    email: Option<String>,
    #[form(format = "date", rename = "travelDate")]
    travel_date: String,
    #[form(minimum = 1, maximum = 9, default = 2)]
    travellers: u8,
    #[form(minimum = -10.5, maximum = 99.5)]
    budget: f64,
    big: i64,
    #[form(default = true)]
    insurance: bool,
    seat: Seat,
    #[form(min_items = 1, max_items = 2, default = ["Veg"])]
    meals: Vec<Meal>,
    #[form(one_of = ["s", "m", "l"], default = "m")]
    size: Option<String>,
}

#[test]
fn the_schema_is_the_flat_mcp_grammar() {
    assert_eq!(
        Everything::requested_schema(),
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "description": "The name on the ticket",
                         "minLength": 2, "maxLength": 20, "default": "Ann"},
                "email": {"type": "string", "description": "Where to send it", "format": "email"},
                "travelDate": {"type": "string", "format": "date"},
                "travellers": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2},
                "budget": {"type": "number", "minimum": -10.5, "maximum": 99.5},
                "big": {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX},
                "insurance": {"type": "boolean", "default": true},
                "seat": {"type": "string", "oneOf": [
                    {"const": "window", "title": "Window seat"}, {"const": "aisle", "title": "aisle"}]},
                "meals": {"type": "array", "items": {"type": "string", "enum": ["Veg", "Fish"]},
                          "minItems": 1, "maxItems": 2, "default": ["Veg"]},
                "size": {"type": "string", "enum": ["s", "m", "l"], "default": "m"}
            },
            "required": ["name", "travelDate", "travellers", "budget", "big", "insurance", "seat", "meals"]
        })
    );
}

#[test]
fn narrow_integers_advertise_their_range() {
    #[derive(Form)]
    #[allow(dead_code)]
    struct Small {
        level: u8,
        offset: i16,
    }
    let schema = Small::requested_schema();
    assert_eq!(
        schema["properties"]["level"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(schema["properties"]["offset"]["minimum"], -32768);
}

fn decode(content: Value) -> Result<Everything, String> {
    let content = validate_content(&Everything::requested_schema(), &content)?;
    Everything::from_content(&content).map_err(|error| error.to_string())
}

#[test]
fn validated_content_decodes_into_the_struct() {
    let decoded = decode(json!({
        "name": "Ann", "travelDate": "2026-12-24", "travellers": 2.0, "budget": 10,
        "big": 9007199254740993u64, "insurance": false, "seat": "aisle", "meals": ["Fish", "Veg"],
        "unknown": "ignored"
    }))
    .unwrap();
    assert_eq!(decoded.name, "Ann");
    assert_eq!(decoded.travel_date, "2026-12-24");
    assert!(!decoded.insurance);
    assert_eq!(decoded.email, None);
    assert_eq!(decoded.travellers, 2);
    assert_eq!(decoded.budget, 10.0);
    assert_eq!(decoded.big, 9007199254740993);
    assert_eq!(decoded.seat, Seat::Aisle);
    assert_eq!(decoded.meals, vec![Meal::Fish, Meal::Veg]);
    assert_eq!(decoded.size, None);
}

#[test]
fn content_outside_the_schema_is_refused_with_a_reason() {
    let base = json!({"name": "Ann", "travelDate": "2026-12-24", "travellers": 2, "budget": 1,
        "big": 1, "insurance": true, "seat": "window", "meals": ["Veg"]});
    let with = |key: &str, value: Value| {
        let mut content = base.clone();
        content[key] = value;
        decode(content).unwrap_err()
    };
    assert_eq!(
        with("travellers", json!(10)),
        "`travellers` must be at most 9"
    );
    assert_eq!(
        with("seat", json!("Window")),
        "`seat` must be one of window, aisle"
    );
    assert_eq!(
        with("meals", json!([])),
        "`meals` needs at least 1 selections"
    );
    assert_eq!(
        with("travelDate", json!("24/12/2026")),
        "`travelDate` must be a date (YYYY-MM-DD)"
    );
    assert_eq!(with("size", json!("xl")), "`size` must be one of s, m, l");
    assert_eq!(
        with("email", json!("not-an-address")),
        "`email` must be an email address"
    );
    assert!(decode(base).is_ok());
}

#[test]
fn bounds_never_widen_the_type_and_wide_literals_are_kept() {
    #[derive(Form, Debug)]
    struct Bounds {
        #[form(minimum = -5, maximum = 1000)]
        small: u8,
        #[form(maximum = 18446744073709551615)]
        huge: u64,
        #[form(minimum = -9223372036854775808)]
        low: i64,
    }
    let schema = Bounds::requested_schema();
    assert_eq!(
        schema["properties"]["small"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(schema["properties"]["huge"]["maximum"], json!(u64::MAX));
    assert_eq!(schema["properties"]["low"]["minimum"], json!(i64::MIN));
    let content = json!({"small": 255, "huge": u64::MAX, "low": i64::MIN});
    let decoded = Bounds::from_content(&validate_content(&schema, &content).unwrap()).unwrap();
    assert_eq!(
        (decoded.small, decoded.huge, decoded.low),
        (255, u64::MAX, i64::MIN)
    );
}

#[test]
fn an_integer_too_large_to_decode_does_not_validate() {
    let base = json!({"name": "Ann", "travelDate": "2026-12-24", "travellers": 2, "budget": 1,
        "big": 1, "insurance": true, "seat": "window", "meals": ["Veg"]});
    for huge in [json!(1e300), json!(9.3e18), json!(-1e19), json!(1e16)] {
        let mut content = base.clone();
        content["big"] = huge.clone();
        let error = validate_content(&Everything::requested_schema(), &content).unwrap_err();
        assert!(error.starts_with("`big` must be"), "{huge}: {error}");
    }
}

/// A form and a choice kept across later asks, with no serde derives: they encode as the
/// content the client sent.
#[derive(Form, Debug, PartialEq)]
struct Login {
    name: String,
    age: Option<u8>,
    seat: Seat,
    meals: Vec<Meal>,
}

#[test]
fn forms_and_choices_serialize_as_their_content() {
    let login = Login {
        name: "Ann".into(),
        age: None,
        seat: Seat::Window,
        meals: vec![Meal::Fish],
    };
    let kept = serde_json::to_value(&login).unwrap();
    assert_eq!(
        kept,
        json!({"name": "Ann", "seat": "window", "meals": ["Fish"]})
    );
    assert_eq!(serde_json::from_value::<Login>(kept).unwrap(), login);
    assert_eq!(serde_json::to_value(Seat::Aisle).unwrap(), json!("aisle"));
    assert_eq!(
        serde_json::from_value::<Seat>(json!("aisle")).unwrap(),
        Seat::Aisle
    );
    let error = serde_json::from_value::<Seat>(json!("middle")).unwrap_err();
    assert!(
        error.to_string().contains("not one of the options"),
        "{error}"
    );
    assert!(serde_json::from_value::<Login>(json!({"name": 5})).is_err());
}

/// `serde = false` leaves serde to the author's own derives.
#[derive(Form, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
#[form(serde = false)]
#[serde(rename_all = "UPPERCASE")]
struct OwnSerde {
    code: String,
}

#[derive(Choice, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
#[choice(serde = false)]
enum OwnChoice {
    #[choice(rename = "one")]
    One,
}

#[test]
fn serde_false_keeps_the_authors_own_impls() {
    let own = OwnSerde { code: "x".into() };
    assert_eq!(serde_json::to_value(&own).unwrap(), json!({"CODE": "x"}));
    assert_eq!(serde_json::to_value(OwnChoice::One).unwrap(), json!("One"));
    assert_eq!(
        OwnSerde::requested_schema()["properties"]["code"],
        json!({"type": "string"})
    );
}

#[test]
fn every_diagnostic_has_a_compile_fail_case() {
    trybuild::TestCases::new().compile_fail("tests/ui/form/*.rs");
}

/// Issue 12 item 15: a form answer (holding a choice) kept across a later `ask!`, with no
/// serde derive anywhere, round-trips through the sealed state.
#[cfg(feature = "testing")]
mod kept_across_an_ask {
    use super::{Meal, Seat};
    use mrtr::testing::{Harness, answer};
    use mrtr::{Form, ToolError, elicit};
    use serde_json::json;

    #[derive(Form)]
    struct Traveller {
        name: String,
        seat: Seat,
        meals: Vec<Meal>,
    }

    #[derive(Form)]
    struct Confirm {
        ok: bool,
    }

    #[mrtr::tool]
    async fn book() -> Result<String, ToolError> {
        let traveller = ask!(elicit::form::<Traveller>("Who travels?")).accepted()?;
        let confirm = ask!(elicit::form::<Confirm>("Book it?")).accepted()?;
        Ok(format!(
            "{} {:?} {:?} {}",
            traveller.name, traveller.seat, traveller.meals, confirm.ok
        ))
    }

    #[tokio::test]
    async fn a_kept_form_round_trips_without_serde_derives() {
        let harness = Harness::tool(book);
        let first = harness.call(json!({})).await;
        first.assert_asks(["traveller"]);
        let content = json!({"name": "Ann", "seat": "aisle", "meals": ["Fish", "Veg"]});
        let second = first
            .answer([("traveller", answer::accept(content.clone()))])
            .await;
        second.assert_asks(["confirm"]);
        assert!(
            second.kept().to_string().contains("aisle"),
            "kept as its content: {}",
            second.kept()
        );
        let done = second
            .answer([("confirm", answer::accept(json!({"ok": true})))])
            .await;
        assert_eq!(done.text(), "Ann Aisle [Fish, Veg] true");
    }
}
