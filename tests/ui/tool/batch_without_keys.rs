use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let (_a, _b) = ask!(elicit::form::<Name>("First?"), elicit::form::<Name>("Second?"));
    Ok(String::new())
}

fn main() {}
