use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let total;
    total = 3;
    let name = ask!(elicit::form::<Name>("Name?"));
    let _ = name;
    Ok(total.to_string())
}

fn main() {}
