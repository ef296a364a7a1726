use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    ask!(elicit::form::<Name>("Name?"));
    let (_first, _second) = ask!(elicit::form::<Name>("Name?"));
    Ok(String::new())
}

fn main() {}
