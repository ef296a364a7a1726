use mrtr::{Context, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    city: String,
}

#[mrtr::tool(nmae = "x", max_rounds = 0, version = 0)]
async fn generic<T>(args: Args, more: Args, _cx: &Context) -> Result<String, ToolError> {
    Ok(args.city + &more.city)
}

struct Service;

impl Service {
    #[mrtr::tool]
    async fn method(&self) -> Result<String, ToolError> {
        Ok(String::new())
    }
}

fn main() {}
