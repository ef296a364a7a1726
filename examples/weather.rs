//! The seed's flow: `get_weather(location)` looks the forecast up once, asks for the user's
//! GitHub login by form elicitation, then completes.
//!
//! Run it with `cargo run --example weather`: it drives the tool through `mrtr::Server` the way
//! a client would, printing each round.

use std::collections::HashMap;

use mrtr::{Answer, Context, Form, Server, ToolError, elicit};
use serde_json::{Value, json};

/// The user's GitHub login.
#[derive(Form, Debug)]
pub struct Login {
    /// GitHub username
    #[form(min_length = 1, max_length = 39)]
    pub name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct WeatherArgs {
    /// City to look up
    pub location: String,
}

/// Today's forecasts, shared by every request.
pub struct Forecasts(pub HashMap<&'static str, &'static str>);

impl Forecasts {
    pub async fn today(&self, location: &str) -> Result<String, ToolError> {
        self.0
            .get(location)
            .map(|forecast| forecast.to_string())
            .ok_or_else(|| ToolError::new(format!("no forecast for {location}")))
    }
}

/// Current weather for a location.
#[mrtr::tool]
pub async fn get_weather(args: WeatherArgs, cx: &Context) -> Result<String, ToolError> {
    let forecast = cx.state::<Forecasts>().today(&args.location).await?; // runs once, in round 1
    let github_login = ask!(elicit::form::<Login>("Please provide your GitHub username"));
    let Answer::Accept(login) = github_login else {
        return Ok("No login given, nothing personalised.".into());
    };
    Ok(format!(
        "{}: {forecast} (for {})",
        args.location, login.name
    )) // `forecast` was kept
}

#[allow(dead_code)]
fn request(id: u64, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

pub fn forecasts() -> Forecasts {
    Forecasts(HashMap::from([
        ("Paris", "sunny, 21°C"),
        ("Lyon", "rain, 14°C"),
    ]))
}

#[allow(dead_code)]
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("weather", "1.0.0")
        .state(forecasts())
        .tool(get_weather)
        .build()?;

    let call = json!({"name": "get_weather", "arguments": {"location": "Paris"}});
    let round1 = server.handle(request(1, call.clone())).await;
    println!(
        "round 1 -> {}",
        serde_json::to_string_pretty(&round1["result"])?
    );

    let mut retry = call;
    retry["inputResponses"] =
        json!({"github_login": {"action": "accept", "content": {"name": "octocat"}}});
    retry["requestState"] = round1["result"]["requestState"].clone();
    let round2 = server.handle(request(2, retry)).await;
    println!(
        "round 2 -> {}",
        serde_json::to_string_pretty(&round2["result"])?
    );
    Ok(())
}
