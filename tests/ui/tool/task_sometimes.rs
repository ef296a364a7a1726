// `task` takes "optional" or "required"; anything else is refused at the value.
use mrtr::ToolError;

#[mrtr::tool(task = "sometimes")]
async fn export() -> Result<String, ToolError> {
    Ok("exported".to_owned())
}

fn main() {}
