use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
#[inline]
async fn greet() -> Result<String, ToolError> {
    let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
    Ok(name)
}

fn main() {}
