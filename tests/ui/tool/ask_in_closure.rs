use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let ask_later = || ask!(name = elicit::form::<Name>("Name?"));
    let _ = ask_later;
    Ok(String::new())
}

fn main() {}
