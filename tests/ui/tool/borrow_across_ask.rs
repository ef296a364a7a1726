use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let greeting = String::from("hello");
    let short: &str = &greeting[..2];
    let name = ask!(elicit::form::<Name>("Name?"));
    let _ = name;
    Ok(short.to_owned())
}

fn main() {}
