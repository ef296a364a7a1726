use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let (_a, _b) = ask!(name = elicit::form::<Name>("First?"), name = elicit::form::<Name>("Second?"));
    Ok(String::new())
}

fn main() {}
