//! Flight booking: a live search runs once and its offers are shown as a choice; the pick is
//! validated against exactly those offers; seat and meal are asked in one round; a
//! confirmation comes last, and the booking call carries the idempotency key.
//!
//! Run it with `cargo run --example flight_booking`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use mrtr::elicit::{self, Pick};
use mrtr::{Answer, Choice, Context, Form, Server, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Trip {
    /// Departure airport (IATA code)
    pub from: String,
    /// Arrival airport (IATA code)
    pub to: String,
    /// Travel date (YYYY-MM-DD)
    pub date: String,
}

/// One fare the airline offered; kept across the asks that follow the search.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Offer {
    pub id: String,
    pub departs: String,
    pub price_eur: u32,
}

#[derive(Choice, Debug, Clone, Copy)]
pub enum Seat {
    #[choice(rename = "window", title = "Window")]
    Window,
    #[choice(rename = "aisle", title = "Aisle")]
    Aisle,
}

#[derive(Choice, Debug, Clone, Copy)]
pub enum Meal {
    #[choice(rename = "standard", title = "Standard")]
    Standard,
    #[choice(rename = "vegetarian", title = "Vegetarian")]
    Vegetarian,
}

#[derive(Form)]
pub struct SeatForm {
    /// Where would you like to sit?
    pub seat: Seat,
}

#[derive(Form)]
pub struct MealForm {
    /// Which meal?
    pub meal: Meal,
}

#[derive(Form)]
pub struct Confirm {
    /// Book it?
    pub ok: bool,
}

/// The airline's API (here: in memory), shared by every request.
#[derive(Default)]
pub struct Airline {
    pub searches: AtomicUsize,
    /// Bookings by idempotency key: a repeated call with the same key books nothing new.
    pub bookings: Mutex<Vec<(String, String)>>,
}

impl Airline {
    pub async fn search(&self, trip: &Trip) -> Vec<Offer> {
        self.searches.fetch_add(1, Ordering::SeqCst);
        let search = self.searches.load(Ordering::SeqCst);
        // Live data: every search returns different fares, so the one shown must be the one validated.
        vec![
            Offer {
                id: format!("{}{}-{search}a", trip.from, trip.to),
                departs: format!("{} 09:10", trip.date),
                price_eur: 120 + search as u32,
            },
            Offer {
                id: format!("{}{}-{search}b", trip.from, trip.to),
                departs: format!("{} 17:45", trip.date),
                price_eur: 95 + search as u32,
            },
        ]
    }

    pub async fn book(
        &self,
        offer: &Offer,
        seat: Seat,
        meal: Meal,
        idempotency_key: &str,
    ) -> Result<String, ToolError> {
        let mut bookings = self
            .bookings
            .lock()
            .map_err(|_| ToolError::new("airline unavailable"))?;
        if let Some((_, reference)) = bookings.iter().find(|(key, _)| key == idempotency_key) {
            return Ok(reference.clone());
        }
        let reference = format!(
            "PNR{:03}-{}-{seat:?}-{meal:?}",
            bookings.len() + 1,
            offer.id
        );
        bookings.push((idempotency_key.to_owned(), reference.clone()));
        Ok(reference)
    }
}

/// Books a flight: searches once, lets the traveller pick a fare, asks seat and meal, confirms.
#[mrtr::tool]
pub async fn book_flight(trip: Trip, cx: &Context) -> Result<String, ToolError> {
    let airline = cx.state::<Airline>();
    let offers = airline.search(&trip).await;
    let fares = offers.iter().map(|offer| {
        Pick::new(&offer.id).title(format!("{} for {} EUR", offer.departs, offer.price_eur))
    });
    let fare = ask!(elicit::choice(
        format!(
            "{} fares from {} to {}: which one?",
            offers.len(),
            trip.from,
            trip.to
        ),
        fares
    ));
    let Answer::Accept(fare) = fare else {
        return Ok("No fare picked, nothing booked.".into());
    };
    let offer = offers
        .into_iter()
        .find(|offer| offer.id == fare)
        .ok_or_else(|| ToolError::new("that fare was not offered"))?;
    let (seat, meal) = ask!(
        seat = elicit::form::<SeatForm>("Seat?"),
        meal = elicit::form::<MealForm>("Meal?")
    );
    let (seat, meal) = (seat.accepted()?.seat, meal.accepted()?.meal);
    let confirm = ask!(elicit::form::<Confirm>(format!(
        "Book {} on {} ({seat:?}, {meal:?}) for {} EUR?",
        offer.id, offer.departs, offer.price_eur
    )));
    if !confirm.accepted()?.ok {
        return Ok("Not confirmed, nothing booked.".into());
    }
    // After the last ask: runs once per accepted state, and the key makes a replay harmless.
    let reference = airline
        .book(&offer, seat, meal, &cx.idempotency_key())
        .await?;
    Ok(format!(
        "Booked {} departing {}: reference {reference}",
        offer.id, offer.departs
    ))
}

pub fn server() -> Result<Server, mrtr::BuildError> {
    Server::builder("flights", "1.0.0")
        .state(Airline::default())
        .tool(book_flight)
        .build()
}

#[allow(dead_code)]
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = server()?;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let mut params = json!({"_meta": meta, "name": "book_flight", "arguments": {"from": "CDG", "to": "LIS", "date": "2026-12-24"}});
    let answers = |result: &Value| -> Value {
        let requests = result["inputRequests"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut responses = serde_json::Map::new();
        for (key, request) in requests {
            let answer = match key.as_str() {
                "fare" => {
                    json!({"fare": request["params"]["requestedSchema"]["properties"]["fare"]["oneOf"][1]["const"]})
                }
                "seat" => json!({"seat": "window"}),
                "meal" => json!({"meal": "vegetarian"}),
                _ => json!({"ok": true}),
            };
            responses.insert(key, json!({"action": "accept", "content": answer}));
        }
        Value::Object(responses)
    };
    for id in 1.. {
        let response = server
            .handle(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
        let result = &response["result"];
        if result["resultType"] != "input_required" {
            println!("round {id}: {}", result["content"][0]["text"]);
            break;
        }
        let keys: Vec<&String> = result["inputRequests"]
            .as_object()
            .map(|requests| requests.keys().collect())
            .unwrap_or_default();
        println!("round {id}: the tool asks {keys:?}");
        params["inputResponses"] = answers(result);
        params["requestState"] = result["requestState"].clone();
    }
    Ok(())
}
