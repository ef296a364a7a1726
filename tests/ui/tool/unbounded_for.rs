use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    for _round in 1u32.. {
        let name = ask!(elicit::form::<Name>("Name?"));
        let _ = name;
    }
    Ok(String::new())
}

fn main() {}
