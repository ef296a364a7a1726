use mrtr::ToolError;

/// Returns something that is not resource contents.
#[mrtr::resource(uri = "numbers://{id}")]
async fn number() -> Result<u32, ToolError> {
    Ok(7)
}

fn main() {}
