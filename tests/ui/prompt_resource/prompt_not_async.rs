use mrtr::ToolError;

#[mrtr::prompt]
fn summary() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {}
