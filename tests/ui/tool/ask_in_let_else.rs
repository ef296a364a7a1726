use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let given: Option<String> = None;
    let Some(name) = given else {
        let fallback = ask!(elicit::form::<Name>("Name?"));
        return Ok(fallback.accepted()?.name);
    };
    Ok(name)
}

fn main() {}
