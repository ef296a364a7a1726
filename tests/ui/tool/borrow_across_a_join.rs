use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet(cx: &mrtr::Context) -> Result<String, ToolError> {
    let greeting = String::from("hello");
    let short: &str = &greeting[..2];
    if cx.round() > 5 {
        let name = ask!(elicit::form::<Name>("Name?"));
        let _ = name;
        return Ok(String::new());
    }
    Ok(short.to_owned())
}

fn main() {}
