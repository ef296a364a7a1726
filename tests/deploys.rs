//! Deploys: a state minted by one build resumes on another wherever its resume point is
//! unchanged, and is refused (`-32602`) where it changed. Each module below is one build of
//! the same `plan` tool; a state is carried from one to the other as a rolling deploy would.
//!
//! The `plan` flow asks a city (keeping nothing but the arguments), then the nights (keeping
//! `city`), then, for long stays, a confirmation inside an `if`. The `route` flow (at the end)
//! asks with one key in both arms of an `if … else` and in two `match` arms.

use mrtr::machine::Machine;
use mrtr::testing::{GoldenStates, Harness, Round, answer};
use mrtr::{Form, ToolError, elicit};
use serde_json::{Value, json};

#[derive(Form)]
pub struct City {
    city: String,
}

#[derive(Form)]
pub struct Nights {
    nights: u8,
}

#[derive(Form)]
pub struct Sure {
    sure: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct PlanArgs {
    traveller: String,
}

/// The build everything starts from.
mod v1 {
    use super::*;

    #[mrtr::tool]
    pub async fn plan(args: PlanArgs) -> Result<String, ToolError> {
        let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
        let nights = ask!(elicit::form::<Nights>("How many nights?"))
            .accepted()?
            .nights;
        if nights > 7 {
            let sure = ask!(elicit::form::<Sure>("A long stay. Sure?"))
                .accepted()?
                .sure;
            if !sure {
                return Ok("cancelled".into());
            }
        }
        Ok(format!(
            "{} goes to {city} for {nights} nights",
            args.traveller
        ))
    }
}

/// Messages edited, code added before the first ask and after the last, the result built
/// another way: every resume point is unchanged.
mod edited {
    use super::*;

    #[mrtr::tool]
    pub async fn plan(args: PlanArgs) -> Result<String, ToolError> {
        let greeting = format!("Hello {}", args.traveller);
        let city = ask!(elicit::form::<City>(format!("{greeting}! Which city?")))
            .accepted()?
            .city;
        let nights = ask!(elicit::form::<Nights>(format!("Nights in {city}?")))
            .accepted()?
            .nights;
        if nights > 7 {
            let sure = ask!(elicit::form::<Sure>("That is more than a week: sure?"))
                .accepted()?
                .sure;
            if !sure {
                return Ok("cancelled".into());
            }
        }
        let summary = [args.traveller.as_str(), "goes to", city.as_str()].join(" ");
        Ok(format!("{summary} for {nights} nights"))
    }
}

/// `city` kept as another type at the nights question (and so at the confirmation): states
/// waiting there are refused; states waiting at the city question are not.
mod retyped {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    pub struct Place(String);

    #[mrtr::tool]
    pub async fn plan(args: PlanArgs) -> Result<String, ToolError> {
        let city = Place(ask!(elicit::form::<City>("Where to?")).accepted()?.city);
        let nights = ask!(elicit::form::<Nights>("How many nights?"))
            .accepted()?
            .nights;
        if nights > 7 {
            let sure = ask!(elicit::form::<Sure>("A long stay. Sure?"))
                .accepted()?
                .sure;
            if !sure {
                return Ok("cancelled".into());
            }
        }
        Ok(format!(
            "{} goes to {} for {nights} nights",
            args.traveller, city.0
        ))
    }
}

/// The confirmation moved out of its `if` (and renamed): only states waiting at it are
/// refused.
mod restructured {
    use super::*;

    #[mrtr::tool]
    pub async fn plan(args: PlanArgs) -> Result<String, ToolError> {
        let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
        let nights = ask!(elicit::form::<Nights>("How many nights?"))
            .accepted()?
            .nights;
        let sure = ask!(elicit::form::<Sure>("Sure?")).accepted()?.sure;
        if nights > 7 && !sure {
            return Ok("cancelled".into());
        }
        Ok(format!(
            "{} goes to {city} for {nights} nights",
            args.traveller
        ))
    }
}

/// The same code with `version = 2`: every state in flight is refused.
mod bumped {
    use super::*;

    #[mrtr::tool(version = 2)]
    pub async fn plan(args: PlanArgs) -> Result<String, ToolError> {
        let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
        let nights = ask!(elicit::form::<Nights>("How many nights?"))
            .accepted()?
            .nights;
        if nights > 7 {
            let sure = ask!(elicit::form::<Sure>("A long stay. Sure?"))
                .accepted()?
                .sure;
            if !sure {
                return Ok("cancelled".into());
            }
        }
        Ok(format!(
            "{} goes to {city} for {nights} nights",
            args.traveller
        ))
    }
}

/// The nights form asked with its type inferred: this build does not declare `Nights` as a
/// known form (`Machine::known_forms`), as a build whose `Nights` type asks other fields
/// would not. States waiting for it are refused; the others resume.
mod undeclared {
    use super::*;

    #[mrtr::tool]
    pub async fn plan(args: PlanArgs) -> Result<String, ToolError> {
        let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
        let nights: Nights = ask!(elicit::form("How many nights?")).accepted()?;
        let nights = nights.nights;
        if nights > 7 {
            let sure = ask!(elicit::form::<Sure>("A long stay. Sure?"))
                .accepted()?
                .sure;
            if !sure {
                return Ok("cancelled".into());
            }
        }
        Ok(format!(
            "{} goes to {city} for {nights} nights",
            args.traveller
        ))
    }
}

fn city() -> Value {
    answer::accept(json!({"city": "Lisbon"}))
}

fn nights(n: u8) -> Value {
    answer::accept(json!({"nights": n}))
}

/// The states `v1` mints at each of its three resume points.
async fn v1_states() -> [Round; 3] {
    let harness = Harness::tool(v1::plan);
    let at_city = harness.call(json!({"traveller": "ana"})).await;
    let at_nights = at_city.answer([("city", city())]).await;
    let at_sure = at_nights.answer([("nights", nights(9))]).await;
    at_sure.assert_asks(["sure"]);
    [at_city, at_nights, at_sure]
}

/// Resumes each state on `build` with the answer it waits for.
async fn resume_on(build: &Harness, [at_city, at_nights, at_sure]: &[Round; 3]) -> [Round; 3] {
    [
        at_city
            .retry()
            .to(build)
            .answers([("city", city())])
            .send()
            .await,
        at_nights
            .retry()
            .to(build)
            .answers([("nights", nights(9))])
            .send()
            .await,
        at_sure
            .retry()
            .to(build)
            .answers([("sure", answer::accept(json!({"sure": true})))])
            .send()
            .await,
    ]
}

#[tokio::test]
async fn edits_that_keep_every_resume_point_resume_every_state() {
    let states = v1_states().await;
    let build = Harness::tool(edited::plan);
    let [city_answered, nights_answered, confirmed] = resume_on(&build, &states).await;
    city_answered.assert_asks(["nights"]);
    assert_eq!(
        city_answered.request("nights").message(),
        "Nights in Lisbon?",
        "the rest of the flow runs the new code"
    );
    nights_answered.assert_asks(["sure"]);
    assert_eq!(confirmed.text(), "ana goes to Lisbon for 9 nights");
}

#[tokio::test]
async fn the_states_of_a_new_build_resume_on_the_old_one_too() {
    let build = Harness::tool(edited::plan);
    let at_nights = build
        .call(json!({"traveller": "bo"}))
        .await
        .answer([("city", city())])
        .await;
    let old = Harness::tool(v1::plan);
    let done = at_nights
        .retry()
        .to(&old)
        .answers([("nights", nights(2))])
        .send()
        .await;
    assert_eq!(done.text(), "bo goes to Lisbon for 2 nights");
}

#[tokio::test]
async fn a_kept_value_of_another_type_refuses_only_the_states_that_keep_it() {
    let states = v1_states().await;
    let build = Harness::tool(retyped::plan);
    let [city_answered, nights_answered, confirmed] = resume_on(&build, &states).await;
    city_answered.assert_asks(["nights"]);
    assert!(
        nights_answered.is_refused_state(),
        "{}",
        nights_answered.response()
    );
    assert!(confirmed.is_refused_state(), "{}", confirmed.response());
}

#[tokio::test]
async fn a_moved_ask_refuses_only_the_states_waiting_at_it() {
    let states = v1_states().await;
    let build = Harness::tool(restructured::plan);
    let [city_answered, nights_answered, confirmed] = resume_on(&build, &states).await;
    city_answered.assert_asks(["nights"]);
    nights_answered.assert_asks(["sure"]);
    assert!(confirmed.is_refused_state(), "{}", confirmed.response());
}

#[tokio::test]
async fn a_form_the_build_does_not_declare_refuses_only_the_states_waiting_for_it() {
    assert_eq!(v1::plan.known_forms().len(), 3);
    assert_eq!(undeclared::plan.known_forms().len(), 2);
    let states = v1_states().await;
    let build = Harness::tool(undeclared::plan);
    let [city_answered, nights_answered, confirmed] = resume_on(&build, &states).await;
    city_answered.assert_asks(["nights"]);
    assert!(
        nights_answered.is_refused_state(),
        "{}",
        nights_answered.response()
    );
    confirmed.assert_asks([]);
    assert_eq!(confirmed.text(), "ana goes to Lisbon for 9 nights");
}

#[tokio::test]
async fn a_version_bump_refuses_every_state() {
    let states = v1_states().await;
    let build = Harness::tool(bumped::plan);
    for round in resume_on(&build, &states).await {
        assert!(round.is_refused_state(), "{}", round.response());
    }
    assert_ne!(v1::plan.fingerprint(), bumped::plan.fingerprint());
    assert_eq!(v1::plan.resume_points(), bumped::plan.resume_points());
}

#[test]
fn resume_points_are_named_by_their_keys_and_the_constructs_around_them() {
    let labels: Vec<&str> = v1::plan
        .resume_points()
        .iter()
        .map(|point| point.label)
        .collect();
    assert_eq!(labels, ["ask city", "ask nights", "ask sure in if"]);
    let ids = |machine: &dyn Machine| -> Vec<u32> {
        machine
            .resume_points()
            .iter()
            .map(|point| point.id)
            .collect()
    };
    assert_eq!(ids(&v1::plan), ids(&edited::plan));
    assert_eq!(ids(&v1::plan), ids(&retyped::plan));
    assert_eq!(ids(&v1::plan)[..2], ids(&restructured::plan)[..2]);
    assert_ne!(ids(&v1::plan)[2], ids(&restructured::plan)[2]);
}

/// The golden states of `plan`, recorded by an earlier build (`MRTR_GOLDEN=record` writes them
/// again): this build must resume each.
#[tokio::test]
async fn this_build_resumes_the_golden_states() {
    let harness = Harness::tool(v1::plan);
    let golden = record_plan(
        &harness,
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/plan.json"),
    )
    .await;
    golden.check(&harness).await;
}

async fn record_plan(harness: &Harness, path: impl Into<std::path::PathBuf>) -> GoldenStates {
    let mut golden = GoldenStates::new(path);
    let at_city = harness.call(json!({"traveller": "ana"})).await;
    golden.record("city", &at_city, [("city", city())]);
    let at_nights = at_city.answer([("city", city())]).await;
    golden.record("nights", &at_nights, [("nights", nights(9))]);
    let at_sure = at_nights.answer([("nights", nights(9))]).await;
    golden.record(
        "sure",
        &at_sure,
        [("sure", answer::accept(json!({"sure": true})))],
    );
    golden
}

#[tokio::test]
async fn the_golden_check_names_each_state_refused_and_why() {
    let path = std::env::temp_dir().join(format!("mrtr-golden-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    // No file yet: recorded, then checked against the build that minted them.
    let recorder = Harness::tool(v1::plan);
    record_plan(&recorder, &path).await.check(&recorder).await;

    let failed = tokio::spawn({
        let path = path.clone();
        async move {
            let build = Harness::tool(retyped::plan);
            GoldenStates::new(path).check(&build).await;
        }
    })
    .await
    .expect_err("states that keep `city` as another type are refused");
    let message = failed
        .into_panic()
        .downcast::<String>()
        .map(|message| *message)
        .unwrap_or_default();
    std::fs::remove_file(&path).ok();
    assert!(message.contains("2 of 3 golden states"), "{message}");
    assert!(
        message.contains("- `nights`: resume point `ask nights`"),
        "{message}"
    );
    assert!(
        message.contains("- `sure`: resume point `ask sure in if`"),
        "{message}"
    );
    assert!(!message.contains("- `city`"), "{message}");
    assert!(
        message.contains("city: deploys::retyped::Place"),
        "{message}"
    );
}

// ---------------------------------------------------------------- asks in every arm

#[derive(Form)]
pub struct Pick {
    pick: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct RouteArgs {
    fast: bool,
    mode: u8,
}

/// A `route` flow that asks in both arms of an `if … else` and in two `match` arms, with the
/// same key everywhere: only the construct and the arm tell its resume points apart.
mod arms_v1 {
    use super::*;

    #[mrtr::tool]
    pub async fn route(args: RouteArgs) -> Result<String, ToolError> {
        let way = if args.fast {
            let line = ask!(pick = elicit::form::<Pick>("Fast: which line?"))
                .accepted()?
                .pick;
            format!("fast by {line}")
        } else {
            let road = ask!(pick = elicit::form::<Pick>("Slow: which road?"))
                .accepted()?
                .pick;
            format!("slow by {road}")
        };
        let ride = match args.mode {
            0 => {
                let train = ask!(pick = elicit::form::<Pick>("Which train?"))
                    .accepted()?
                    .pick;
                format!("train {train}")
            }
            1 => {
                let bus = ask!(pick = elicit::form::<Pick>("Which bus?"))
                    .accepted()?
                    .pick;
                format!("bus {bus}")
            }
            _ => "on foot".to_owned(),
        };
        Ok(format!("{way}, then {ride}"))
    }
}

/// The `if` arm no longer asks; the `match` arms are reordered and the train arm no longer
/// asks. States waiting in the `else` arm and in the bus arm resume there; states waiting at
/// the removed asks are refused.
mod arms_v2 {
    use super::*;

    #[mrtr::tool]
    pub async fn route(args: RouteArgs) -> Result<String, ToolError> {
        let way = if args.fast {
            "fast by express".to_owned()
        } else {
            let road = ask!(pick = elicit::form::<Pick>("Slow: which road?"))
                .accepted()?
                .pick;
            format!("slow by {road}")
        };
        let ride = match args.mode {
            1 => {
                let bus = ask!(pick = elicit::form::<Pick>("Which bus?"))
                    .accepted()?
                    .pick;
                format!("bus {bus}")
            }
            0 => "train 8:15".to_owned(),
            _ => "on foot".to_owned(),
        };
        Ok(format!("{way}, then {ride}"))
    }
}

/// `else if` chains nest: each arm is named by the path of arms that leads to it.
mod ladder {
    use super::*;

    #[mrtr::tool]
    pub async fn step(args: RouteArgs) -> Result<String, ToolError> {
        let pick = if args.fast {
            ask!(pick = elicit::form::<Pick>("First?")).accepted()?.pick
        } else if args.mode == 0 {
            ask!(pick = elicit::form::<Pick>("Second?"))
                .accepted()?
                .pick
        } else {
            ask!(other = elicit::form::<Pick>("Third?"))
                .accepted()?
                .pick
        };
        Ok(pick)
    }
}

fn pick(value: &str) -> Value {
    answer::accept(json!({ "pick": value }))
}

fn labels(machine: &dyn Machine) -> Vec<&'static str> {
    machine
        .resume_points()
        .iter()
        .map(|point| point.label)
        .collect()
}

fn id_of(machine: &dyn Machine, label: &str) -> Option<u32> {
    machine
        .resume_points()
        .iter()
        .find(|point| point.label == label)
        .map(|point| point.id)
}

#[test]
fn asks_in_each_arm_are_named_by_their_arm() {
    assert_eq!(
        labels(&arms_v1::route),
        [
            "ask pick in if",
            "ask pick in else",
            "ask pick in match 0",
            "ask pick in match 1",
        ]
    );
    assert_eq!(
        labels(&arms_v2::route),
        ["ask pick in else", "ask pick in match 1"]
    );
    assert_eq!(
        labels(&ladder::step),
        [
            "ask pick in if",
            "ask pick in else > if",
            "ask other in else > else",
        ]
    );
    // An arm's point keeps its id when another arm loses its ask or moves.
    for label in ["ask pick in else", "ask pick in match 1"] {
        let id = id_of(&arms_v1::route, label);
        assert!(id.is_some(), "{label}");
        assert_eq!(id, id_of(&arms_v2::route, label), "{label}");
    }
    let mut ids: Vec<u32> = arms_v1::route
        .resume_points()
        .iter()
        .map(|point| point.id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4, "four arms, four ids");
}

#[tokio::test]
async fn states_waiting_in_an_arm_resume_in_that_arm_or_are_refused() {
    let old = Harness::tool(arms_v1::route);
    let new = Harness::tool(arms_v2::route);

    let in_then = old.call(json!({"fast": true, "mode": 2})).await;
    assert_eq!(in_then.request("pick").message(), "Fast: which line?");
    let in_else = old.call(json!({"fast": false, "mode": 2})).await;
    assert_eq!(in_else.request("pick").message(), "Slow: which road?");
    let resumed = |state: &Round| {
        state
            .retry()
            .to(&new)
            .answers([("pick", pick("A7"))])
            .send()
    };

    let refused = resumed(&in_then).await;
    assert!(refused.is_refused_state(), "{}", refused.response());
    assert_eq!(resumed(&in_else).await.text(), "slow by A7, then on foot");

    let in_train = old
        .call(json!({"fast": false, "mode": 0}))
        .await
        .answer([("pick", pick("B2"))])
        .await;
    assert_eq!(in_train.request("pick").message(), "Which train?");
    let in_bus = old
        .call(json!({"fast": false, "mode": 1}))
        .await
        .answer([("pick", pick("B2"))])
        .await;
    assert_eq!(in_bus.request("pick").message(), "Which bus?");

    let refused = resumed(&in_train).await;
    assert!(refused.is_refused_state(), "{}", refused.response());
    assert_eq!(
        resumed(&in_bus).await.text(),
        "slow by B2, then bus A7",
        "the bus arm, which moved, takes the bus answer"
    );
}
