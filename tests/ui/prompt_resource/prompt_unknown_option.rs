use mrtr::ToolError;

#[mrtr::prompt(single_use, uri = "x://{a}")]
async fn summary() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {}
