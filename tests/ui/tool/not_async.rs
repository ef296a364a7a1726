use mrtr::{Form, ToolError};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
fn greet() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {}
