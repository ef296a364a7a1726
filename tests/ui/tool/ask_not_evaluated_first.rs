use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

fn combine(prefix: &str, answer: bool) -> String {
    format!("{prefix}{answer}")
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let text = combine("got ", ask!(name = elicit::form::<Name>("Name?")).is_accepted());
    Ok(text)
}

fn main() {}
