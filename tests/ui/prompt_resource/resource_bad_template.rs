use mrtr::ToolError;

#[mrtr::resource(uri = "notes://{owner}{id}")]
async fn notes() -> Result<String, ToolError> {
    Ok(String::new())
}

#[mrtr::resource(uri = "notes://{owner")]
async fn more_notes() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {}
