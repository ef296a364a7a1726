use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let later = async { ask!(name = elicit::form::<Name>("Name?")) };
    let _ = later;
    Ok(String::new())
}

fn main() {}
