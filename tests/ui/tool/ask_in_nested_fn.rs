use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    fn helper() {
        let _ = ask!(name = elicit::form::<Name>("Name?"));
    }
    helper();
    Ok(String::new())
}

fn main() {}
