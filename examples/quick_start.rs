//! The README's quick start, whole: one tool, served over stdio, or over HTTP at
//! http://127.0.0.1:3000/mcp with `--http`. Needs only `mrtr`, `tokio`, `serde` and `schemars`.

use mrtr::rmcp::McpServer;
use mrtr::{Answer, Context, Form, Server, ToolError, elicit};

#[derive(Form)]
struct Login {
    /// GitHub username
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct WeatherArgs {
    location: String,
}

/// Your weather service (shared state every tool can reach through the context).
struct Forecasts;

impl Forecasts {
    async fn today(&self, location: &str) -> Result<String, ToolError> {
        Ok(format!("sunny, 21°C in {location}"))
    }
}

/// Current weather for a location.
#[mrtr::tool]
async fn get_weather(args: WeatherArgs, cx: &Context) -> Result<String, ToolError> {
    let forecast = cx.state::<Forecasts>().today(&args.location).await?; // runs once
    let github_login = ask!(elicit::form::<Login>("Please provide your GitHub username"));
    let Answer::Accept(login) = github_login else {
        return Ok("No login given, nothing personalised.".into());
    };
    Ok(format!("{forecast} (for {})", login.name)) // `forecast` was kept
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("weather", "1.0.0")
        .state(Forecasts)
        .tool(get_weather)
        .build()?;
    if std::env::args().any(|arg| arg == "--http") {
        McpServer::new(server).serve_http("127.0.0.1:3000").await?;
    } else {
        McpServer::new(server).serve_stdio().await?;
    }
    Ok(())
}
