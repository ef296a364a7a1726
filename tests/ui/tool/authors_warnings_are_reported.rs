use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
#[deny(unused_variables, unused_mut)]
async fn greet() -> Result<String, ToolError> {
    let mut unused = 1;
    let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
    Ok(name)
}

fn main() {}
