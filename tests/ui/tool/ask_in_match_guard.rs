use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let n = 3;
    let text = match n {
        3 if ask!(sure = elicit::form::<Name>("Sure?")).is_accepted() => "three",
        _ => "other",
    };
    Ok(text.to_owned())
}

fn main() {}
