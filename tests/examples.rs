//! The examples' flows, written with the testing harness: accept, decline, cancel, invalid
//! answers, replayed and tampered tokens.

#![allow(dead_code)]

#[path = "../examples/weather.rs"]
mod weather;

#[path = "../examples/flight_booking.rs"]
mod flight_booking;

#[path = "../examples/deploy_wizard.rs"]
mod deploy_wizard;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mrtr::testing::{Harness, answer};
use serde_json::json;

// ---------------------------------------------------------------- weather

fn weather_harness() -> Harness {
    Harness::builder_for_tool(weather::get_weather)
        .state(weather::forecasts())
        .build()
}

#[tokio::test]
async fn weather_asks_for_the_login_and_keeps_the_forecast() {
    let harness = weather_harness();
    let first = harness.call(json!({"location": "Paris"})).await;
    first.assert_asks(["github_login"]);
    assert_eq!(first.request("github_login").method(), "elicitation/create");
    assert_eq!(
        first.request("github_login").schema()["properties"]["name"]["description"],
        "GitHub username"
    );
    assert_eq!(first.kept(), json!({"forecast": "sunny, 21°C"}));

    let done = first
        .answer([("github_login", answer::accept(json!({"name": "octocat"})))])
        .await;
    assert_eq!(done.text(), "Paris: sunny, 21°C (for octocat)");
    for refused in [answer::decline(), answer::cancel()] {
        let other = first.answer([("github_login", refused)]).await;
        assert_eq!(other.text(), "No login given, nothing personalised.");
    }
}

#[tokio::test]
async fn weather_reasks_an_invalid_login_and_refuses_bad_tokens() {
    let harness = weather_harness();
    let first = harness.call(json!({"location": "Lyon"})).await;
    let again = first
        .answer([("github_login", answer::accept(json!({"name": ""})))])
        .await;
    again.assert_asks(["github_login"]);
    assert!(
        again
            .request("github_login")
            .message()
            .contains("at least 1 characters")
    );
    // Not single use: the same token may be replayed and gives the same answer.
    let ok = json!({"name": "ada"});
    let once = first
        .answer([("github_login", answer::accept(ok.clone()))])
        .await;
    let twice = first.answer([("github_login", answer::accept(ok))]).await;
    assert_eq!(once.text(), twice.text());
    assert_eq!(
        first
            .retry()
            .state(first.tampered_state())
            .send()
            .await
            .error_code(),
        -32602
    );
    assert_eq!(
        first
            .retry()
            .arguments(json!({"location": "Paris"}))
            .send()
            .await
            .error_code(),
        -32602
    );
    assert!(
        harness.call(json!({"location": "Oslo"})).await.is_error(),
        "no forecast is a tool error"
    );
}

// ---------------------------------------------------------------- flight booking

fn flight_harness() -> Harness {
    Harness::builder_for_tool(flight_booking::book_flight)
        .state(flight_booking::Airline::default())
        .build()
}

fn airline(harness: &Harness) -> &flight_booking::Airline {
    // The harness's server holds the airline; reach it the way a tool would.
    harness
        .server()
        .app_state::<flight_booking::Airline>()
        .expect("registered")
}

const TRIP: &str = r#"{"from": "CDG", "to": "LIS", "date": "2026-12-24"}"#;

#[tokio::test]
async fn a_flight_is_searched_once_picked_from_the_offers_and_booked_once() {
    let harness = flight_harness();
    let trip: serde_json::Value = serde_json::from_str(TRIP).unwrap();
    let fares = harness.call(trip).await;
    let offered: Vec<String> = fares.request("fare").schema()["properties"]["fare"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|option| option["const"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(offered, ["CDGLIS-1a", "CDGLIS-1b"]);

    // A fare that was not offered is asked again; nothing is searched again.
    let wrong = fares
        .answer([("fare", answer::accept(json!({"fare": "CDGLIS-9z"})))])
        .await;
    wrong.assert_asks(["fare"]);
    assert!(
        wrong
            .request("fare")
            .message()
            .contains("must be one of CDGLIS-1a, CDGLIS-1b")
    );

    let seating = fares
        .answer([("fare", answer::accept(json!({"fare": "CDGLIS-1b"})))])
        .await;
    seating.assert_asks(["meal", "seat"]);
    let confirm = seating
        .answer([
            ("seat", answer::accept(json!({"seat": "aisle"}))),
            ("meal", answer::accept(json!({"meal": "standard"}))),
        ])
        .await;
    assert!(
        confirm
            .request("confirm")
            .message()
            .starts_with("Book CDGLIS-1b on 2026-12-24 17:45 (Aisle, Standard) for 96 EUR?")
    );
    let booked = confirm
        .answer([("confirm", answer::accept(json!({"ok": true})))])
        .await;
    assert!(
        booked
            .text()
            .contains("reference PNR001-CDGLIS-1b-Aisle-Standard"),
        "{}",
        booked.text()
    );

    // The final token replayed: the booking step runs again with the same idempotency key.
    let replayed = confirm
        .answer([("confirm", answer::accept(json!({"ok": true})))])
        .await;
    assert_eq!(replayed.text(), booked.text());
    assert_eq!(
        airline(&harness).bookings.lock().unwrap().len(),
        1,
        "booked once"
    );
    assert_eq!(
        airline(&harness).searches.load(Ordering::SeqCst),
        1,
        "searched once"
    );
}

#[tokio::test]
async fn flight_decline_and_cancel_book_nothing() {
    let harness = flight_harness();
    let fares = harness.call(serde_json::from_str(TRIP).unwrap()).await;
    assert_eq!(
        fares.answer([("fare", answer::decline())]).await.text(),
        "No fare picked, nothing booked."
    );
    let seating = fares
        .answer([("fare", answer::accept(json!({"fare": "CDGLIS-1a"})))])
        .await;
    let cancelled = seating
        .answer([
            ("seat", answer::cancel()),
            ("meal", answer::accept(json!({"meal": "vegetarian"}))),
        ])
        .await;
    assert!(
        cancelled.is_error(),
        "a cancelled seat ends the flow with a tool error"
    );
    let confirm = seating
        .answer([
            ("seat", answer::accept(json!({"seat": "window"}))),
            ("meal", answer::accept(json!({"meal": "vegetarian"}))),
        ])
        .await;
    assert_eq!(
        confirm
            .answer([("confirm", answer::accept(json!({"ok": false})))])
            .await
            .text(),
        "Not confirmed, nothing booked."
    );
    assert_eq!(
        confirm
            .retry()
            .state(confirm.tampered_state())
            .answers([("confirm", answer::accept(json!({"ok": true})))])
            .send()
            .await
            .error_code(),
        -32602
    );
    assert!(airline(&harness).bookings.lock().unwrap().is_empty());
}

// ---------------------------------------------------------------- deploy wizard

fn deploy_harness() -> (
    Harness,
    Arc<deploy_wizard::SignOffs>,
    Arc<deploy_wizard::Deployer>,
) {
    let sign_offs = Arc::new(deploy_wizard::SignOffs::default());
    let deployer = Arc::new(deploy_wizard::Deployer::default());
    let harness = Harness::builder_for_tool(deploy_wizard::deploy)
        .state(Arc::clone(&sign_offs))
        .state(Arc::clone(&deployer))
        .build();
    (harness, sign_offs, deployer)
}

fn version(text: &str) -> serde_json::Value {
    answer::accept(json!({"version": text}))
}

#[tokio::test]
async fn production_deploys_ask_until_valid_wait_for_the_sign_off_and_run_once() {
    let (harness, sign_offs, deployer) = deploy_harness();
    let first = harness
        .call(json!({"service": "billing", "environment": "production"}))
        .await;
    let looped = first.answer([("candidate", version("1.4.x"))]).await;
    looped.assert_asks(["candidate"]);
    let approval = looped.answer([("candidate", version("1.4.2"))]).await;
    approval.assert_asks(["approval"]);
    let consent = approval
        .answer([("approval", answer::accept(json!({"ticket": "CHG-7"})))])
        .await;
    let url = consent.request("consent").params()["url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        url.starts_with("https://deploy.example.com/sign-off/so-"),
        "{url}"
    );
    assert!(
        !url.contains("billing") && !url.contains("token"),
        "no data or credentials in the URL"
    );

    let waiting = consent.answer([("consent", answer::consent())]).await;
    assert!(
        waiting.is_input_required() && waiting.keys().is_empty(),
        "a state-only round while not signed off"
    );
    sign_offs.sign(url.rsplit('/').next().unwrap());
    let done = waiting.retry().send().await;
    assert_eq!(done.text(), "Deployed billing 1.4.2 to production.");

    // Single use: the last state cannot deploy a second time.
    assert_eq!(waiting.retry().send().await.error_code(), -32602);
    assert_eq!(deployer.deployed.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn staging_skips_the_approval_and_refusals_deploy_nothing() {
    let (harness, _, deployer) = deploy_harness();
    let first = harness
        .call(json!({"service": "web", "environment": "staging"}))
        .await;
    let consent = first.answer([("candidate", version("2.0.0"))]).await;
    consent.assert_asks(["consent"]);
    assert_eq!(
        consent
            .answer([("consent", answer::decline())])
            .await
            .text(),
        "Sign-off refused; nothing deployed."
    );

    let production = harness
        .call(json!({"service": "web", "environment": "production"}))
        .await;
    let approval = production.answer([("candidate", version("2.0.0"))]).await;
    assert_eq!(
        approval
            .answer([("approval", answer::accept(json!({"ticket": "JIRA-1"})))])
            .await
            .text(),
        "JIRA-1 is not a change ticket; nothing deployed."
    );

    // Expired: the round's token is refused eleven minutes later.
    let late = harness
        .call(json!({"service": "web", "environment": "staging"}))
        .await;
    harness.clock().advance(11 * 60);
    assert_eq!(
        late.answer([("candidate", version("2.0.1"))])
            .await
            .error_code(),
        -32602
    );
    assert!(deployer.deployed.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_flow_transcript_can_be_snapshotted() {
    let harness = weather_harness();
    let first = harness.call(json!({"location": "Paris"})).await;
    first
        .answer([("github_login", answer::accept(json!({"name": "octocat"})))])
        .await;
    let transcript = harness.transcript();
    assert!(!transcript.contains("m1."), "tokens are masked");
    // A real snapshot: the whole exchange, compared byte for byte. After an intended change,
    // rerun with MRTR_UPDATE_SNAPSHOTS=1 and review the diff of the file.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/weather_transcript.txt"
    );
    if std::env::var_os("MRTR_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(path, &transcript).unwrap();
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        expected == transcript,
        "the transcript changed (MRTR_UPDATE_SNAPSHOTS=1 to accept):\n{transcript}"
    );
}

// ---------------------------------------------------------------- flows

/// The flow each example's tool draws (`Machine::flow`), pinned in `tests/flows/`. After a
/// deliberate change, `UPDATE_FLOWS=1 cargo test --all-features --test examples` rewrites them.
#[test]
fn the_examples_flows_are_pinned() {
    use mrtr::machine::Machine;
    let flows = [
        ("get_weather", weather::get_weather.flowchart()),
        ("book_flight", flight_booking::book_flight.flowchart()),
        ("deploy", deploy_wizard::deploy.flowchart()),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/flows");
    for (name, flow) in flows {
        let flow = flow.expect("a #[mrtr::tool] draws its flow");
        let path = dir.join(format!("{name}.mmd"));
        if std::env::var_os("UPDATE_FLOWS").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, flow).unwrap();
            continue;
        }
        let pinned = std::fs::read_to_string(&path).unwrap_or_else(|error| {
            panic!("{}: {error} (UPDATE_FLOWS=1 writes it)", path.display())
        });
        assert_eq!(
            flow, pinned,
            "the flow of `{name}` changed (UPDATE_FLOWS=1 rewrites it)"
        );
    }
}

/// The README's quick start is `examples/quick_start.rs`, whole.
#[test]
fn the_readme_quick_start_is_the_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/quick_start.rs")).unwrap();
    assert!(
        readme.contains(&format!("```rust\n{example}```")),
        "README's quick start and examples/quick_start.rs differ"
    );
}
