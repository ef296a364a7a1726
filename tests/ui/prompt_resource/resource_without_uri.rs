use mrtr::ToolError;

#[mrtr::resource(name = "notes")]
async fn notes() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {}
