//! One instance of a load-balanced deployment: a three-round tool served by rmcp over stateless
//! streamable HTTP, its keys read from a key file that is re-read when it changes (so keys can
//! be rotated under load: add, promote, retire).
//!
//! `PORT=3001 MRTR_KEY_FILE=keys.txt cargo run --example http_server` (the key file holds
//! `id:base64key,..`, the first key signs). `FLOW_VARIANT` serves the tool as a deploy would
//! change it: `2` edits messages and code after the last ask, `3` also keeps the city as another
//! type, `4` also bumps `version`. `scripts/load_test.sh` runs three of these behind nginx.

use std::time::{Duration, SystemTime};

use mrtr::rmcp::McpServer;
use mrtr::token::{KeyRing, StateCodec};
use mrtr::{Form, Server, ToolError, elicit};

#[derive(Form)]
struct City {
    city: String,
}

#[derive(Form)]
struct Nights {
    #[form(minimum = 1, maximum = 30)]
    nights: u8,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TripArgs {
    traveller: String,
}

/// Plans a trip: asks a city, then the nights.
#[mrtr::tool(name = "plan_trip")]
async fn plan_trip(args: TripArgs) -> Result<String, ToolError> {
    let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
    let nights = ask!(elicit::form::<Nights>(format!(
        "How many nights in {city}?"
    )))
    .accepted()?
    .nights;
    Ok(format!(
        "{} goes to {city} for {nights} nights",
        args.traveller
    ))
}

/// The same tool after a deploy that changed messages and the code after the last ask: every
/// resume point is unchanged, so flows in flight on the old build resume on this one.
mod edited {
    use super::*;

    #[mrtr::tool(name = "plan_trip")]
    pub async fn plan_trip(args: TripArgs) -> Result<String, ToolError> {
        let city = ask!(elicit::form::<City>("Which city would you like to visit?"))
            .accepted()?
            .city;
        let nights = ask!(elicit::form::<Nights>(format!(
            "And how many nights will you stay in {city}?"
        )))
        .accepted()?
        .nights;
        let traveller = args.traveller.trim();
        Ok([
            traveller,
            "goes to",
            &city,
            "for",
            &nights.to_string(),
            "nights",
        ]
        .join(" "))
    }
}

/// After a deploy that keeps `city` as another type across the nights question: flows waiting
/// there are refused; flows waiting at the city question are not.
mod retyped {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Destination {
        name: String,
    }

    #[mrtr::tool(name = "plan_trip")]
    pub async fn plan_trip(args: TripArgs) -> Result<String, ToolError> {
        let answer =
            ask!(city = elicit::form::<City>("Which city would you like to visit?")).accepted()?;
        let city = Destination { name: answer.city };
        let nights = ask!(elicit::form::<Nights>("How many nights?"))
            .accepted()?
            .nights;
        Ok(format!(
            "{} goes to {} for {nights} nights",
            args.traveller, city.name
        ))
    }
}

/// The retyped tool with an explicit version bump: every flow in flight is refused.
mod bumped {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Destination {
        name: String,
    }

    #[mrtr::tool(name = "plan_trip", version = 2)]
    pub async fn plan_trip(args: TripArgs) -> Result<String, ToolError> {
        let answer =
            ask!(city = elicit::form::<City>("Which city would you like to visit?")).accepted()?;
        let city = Destination { name: answer.city };
        let nights = ask!(elicit::form::<Nights>("How many nights?"))
            .accepted()?
            .nights;
        Ok(format!(
            "{} goes to {} for {nights} nights",
            args.traveller, city.name
        ))
    }
}

fn read_keys(path: &str) -> Result<KeyRing, Box<dyn std::error::Error>> {
    Ok(KeyRing::parse(std::fs::read_to_string(path)?.trim())?)
}

fn modified(path: &str) -> Option<SystemTime> {
    std::fs::metadata(path)
        .and_then(|metadata| metadata.modified())
        .ok()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|port| port.parse().ok())
        .unwrap_or(3001);
    let key_file = std::env::var("MRTR_KEY_FILE")
        .map_err(|_| "set MRTR_KEY_FILE to a file of id:base64key entries")?;
    let ring = read_keys(&key_file)?;
    let codec = StateCodec::builder()
        .key_ring(ring.clone())
        .audience("load-test")
        .build()?;
    let builder = Server::builder("load-test", "1.0.0").codec(codec);
    let server = match std::env::var("FLOW_VARIANT").as_deref() {
        Ok("2") => builder.tool(edited::plan_trip).build()?,
        Ok("3") => builder.tool(retyped::plan_trip).build()?,
        Ok("4") => builder.tool(bumped::plan_trip).build()?,
        _ => builder.tool(plan_trip).build()?,
    };

    // Re-read the key file when it changes: every instance follows the same rotation.
    tokio::spawn(async move {
        let mut seen = modified(&key_file);
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let now = modified(&key_file);
            if now != seen {
                seen = now;
                match read_keys(&key_file).and_then(|fresh| Ok(ring.reload(&fresh)?)) {
                    Ok(()) => eprintln!(
                        "port {port}: keys reloaded, signing with {:?}",
                        ring.signing_key_id()
                    ),
                    Err(error) => eprintln!("port {port}: keys not reloaded: {error}"),
                }
            }
        }
    });

    eprintln!("listening on http://127.0.0.1:{port}/mcp");
    // A deploy stops an instance with SIGTERM: `serve_http` finishes the requests in flight
    // and takes no more.
    McpServer::new(server)
        .serve_http(("127.0.0.1", port))
        .await?;
    Ok(())
}
