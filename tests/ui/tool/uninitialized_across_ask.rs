use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let total;
    total = 3;
    let name = ask!(elicit::form::<Name>("Name?"));
    let _ = name;
    Ok(total.to_string())
}

// Given its value by an ask: the `let` alone leaves rustc nothing to infer `total`'s type from.
#[mrtr::tool]
async fn count() -> Result<String, ToolError> {
    let total;
    total = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
    Ok(total)
}

fn main() {}
