use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    println!("{:?}", ask!(name = elicit::form::<Name>("Name?")).is_accepted());
    Ok(String::new())
}

fn main() {}
