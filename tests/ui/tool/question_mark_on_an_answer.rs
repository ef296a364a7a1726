use mrtr::{Form, ToolError, elicit, roots};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let name = ask!(elicit::form::<Name>("Name?"))?.name;
    Ok(name)
}

#[mrtr::tool]
async fn list_roots() -> Result<String, ToolError> {
    let roots = ask!(roots())?;
    Ok(format!("{}", roots.len()))
}

fn main() {}
