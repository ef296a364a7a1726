//! Selects built at run time: `elicit::choice` with a named field, and the multi-select
//! `elicit::choices` with bounds, validated against exactly the options shown. A select's one
//! property is named after its ask key unless `.field(..)` names it.

use mrtr::testing::{Harness, answer};
use mrtr::{Answer, ToolError, elicit};
use serde_json::json;

#[mrtr::tool]
async fn pick_flight() -> Result<String, ToolError> {
    let offers = [("AF1", "Paris 09:10"), ("LH8", "Paris 11:45")];
    let flight = ask!(pick = elicit::choice("Which flight?", offers).field("flight"));
    Ok(match flight {
        Answer::Accept(id) => format!("booked {id}"),
        _ => "nothing booked".to_owned(),
    })
}

#[mrtr::tool]
async fn toppings() -> Result<String, ToolError> {
    let menu = vec!["cheese".to_owned(), "olives".to_owned(), "basil".to_owned()];
    let chosen = ask!(
        elicit::choices("Which toppings?", menu)
            .min_items(1)
            .max_items(2)
    );
    Ok(match chosen {
        Answer::Accept(toppings) => toppings.join("+"),
        Answer::Decline => "declined".to_owned(),
        Answer::Cancel => "cancelled".to_owned(),
    })
}

#[tokio::test]
async fn a_choice_names_its_field() {
    // Asked under the key `pick`, the property is the one `.field(..)` names.
    let first = Harness::tool(pick_flight).call(json!({})).await;
    let schema = first.request("pick").schema().clone();
    assert_eq!(schema["required"], json!(["flight"]));
    assert_eq!(
        schema["properties"]["flight"]["oneOf"],
        json!([{"const": "AF1", "title": "Paris 09:10"}, {"const": "LH8", "title": "Paris 11:45"}])
    );
    assert_eq!(schema["properties"].as_object().unwrap().len(), 1);
    let done = first
        .answer([("pick", answer::accept(json!({"flight": "LH8"})))])
        .await;
    assert_eq!(done.text(), "booked LH8");
    // An option that was not shown, or the default field name, is asked again with the reason.
    let again = first
        .answer([("pick", answer::accept(json!({"flight": "BA1"})))])
        .await;
    again.assert_asks(["pick"]);
    assert!(
        again.request("pick").message().contains("`flight`"),
        "{}",
        again.request("pick").message()
    );
    for other_name in ["choice", "pick"] {
        let again = first
            .answer([("pick", answer::accept(json!({other_name: "LH8"})))])
            .await;
        again.assert_asks(["pick"]);
    }
}

#[tokio::test]
async fn a_multi_select_offers_exactly_its_options_within_its_bounds() {
    let first = Harness::tool(toppings).call(json!({})).await;
    let schema = first.request("chosen").schema().clone();
    // No `.field(..)`: the property is named after the ask key, `chosen`.
    assert_eq!(schema["required"], json!(["chosen"]));
    assert_eq!(
        schema["properties"]["chosen"],
        json!({"type": "array", "items": {"type": "string", "enum": ["cheese", "olives", "basil"]}, "minItems": 1, "maxItems": 2})
    );
    let accept =
        |values: serde_json::Value| [("chosen", answer::accept(json!({ "chosen": values })))];
    assert_eq!(
        first
            .answer(accept(json!(["basil", "cheese"])))
            .await
            .text(),
        "basil+cheese"
    );
    for invalid in [
        json!([]),
        json!(["cheese", "olives", "basil"]),
        json!(["ham"]),
        json!("cheese"),
    ] {
        let again = first.answer(accept(invalid.clone())).await;
        again.assert_asks(["chosen"]);
        assert!(
            again
                .request("chosen")
                .message()
                .starts_with("Which toppings?"),
            "{invalid}: {}",
            again.request("chosen").message()
        );
    }
    assert_eq!(
        first.answer([("chosen", answer::decline())]).await.text(),
        "declined"
    );
}

#[test]
fn titled_multi_select_options_use_any_of() {
    let question = elicit::choices("Which?", [("a", "Apple"), ("b", "Banana")]).field("fruit");
    let schema = &question.request().expect("a select sends a request").params["requestedSchema"];
    assert_eq!(schema["required"], json!(["fruit"]));
    assert_eq!(
        schema["properties"]["fruit"]["items"]["anyOf"],
        json!([{"const": "a", "title": "Apple"}, {"const": "b", "title": "Banana"}])
    );
}
