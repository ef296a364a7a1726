//! The `book` flow written with mrtr: one sequential async fn with two `ask!`s. `e2e-mrtr`
//! serves it over HTTP; `examples/round_instructions.rs` drives it in-process.

use mrtr::{Form, ToolError, elicit};
use serde_json::{Value, json};

use crate::offers;

/// The tool's arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Trip {
    /// Destination city
    pub to: String,
}

/// The confirmation the second ask shows.
#[derive(Form)]
pub struct Confirm {
    /// Book it?
    pub ok: bool,
}

/// Book a trip: pick one of five offers, then confirm.
#[mrtr::tool]
pub async fn book(trip: Trip) -> Result<String, ToolError> {
    let offers = offers(&trip.to);
    let listing: Vec<String> = offers
        .iter()
        .map(|offer| format!("{} ({})", offer.id, offer.price))
        .collect();
    let pick = ask!(elicit::choice(
        format!("Pick an offer to {}: {}", trip.to, listing.join(", ")),
        offers.iter().map(|offer| offer.id.as_str())
    ));
    let id = pick.accepted()?;
    let offer = offers
        .into_iter()
        .find(|offer| offer.id == id)
        .ok_or_else(|| ToolError::new("not one of the offers"))?;
    let confirm = ask!(elicit::form::<Confirm>(format!(
        "Book {} to {} for {}?",
        offer.id, trip.to, offer.price
    )));
    if !confirm.accepted()?.ok {
        return Err(ToolError::new("not booked: not confirmed"));
    }
    Ok(format!(
        "booked {} to {} for {}",
        offer.id, trip.to, offer.price
    ))
}

/// The body of one `tools/call book` round as every client of the benchmark sends it: the
/// `arguments`, the previous round's answers and state on a retry, and a 2026-07-28 `_meta`.
pub fn round_body(
    id: u64,
    arguments: Value,
    answers: Option<Value>,
    state: Option<&str>,
) -> Vec<u8> {
    let mut params = json!({
        "name": "book",
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "e2e-load", "version": "0.1.0"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    if let Some(state) = state {
        params["requestState"] = state.into();
    }
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    serde_json::to_vec(&message).expect("JSON")
}
