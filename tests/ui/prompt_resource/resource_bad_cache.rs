use mrtr::ToolError;

#[mrtr::resource(uri = "notes://{id}", cache_scope = "shared")]
async fn notes() -> Result<String, ToolError> {
    Ok(String::new())
}

#[mrtr::resource(uri = "notes://{id}", cache_scope = "public")]
async fn more_notes() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {}
