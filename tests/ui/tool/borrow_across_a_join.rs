use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

// The loop is taken apart: the code after it is a step of its own, and the machine's way back
// to the loop's head goes through the ask (even after the `return`), so `short` would be kept
// across it. (After an `if` whose arm returns after its ask, the code stays in the first step:
// see tests/lowering.rs, issue 25.)
#[mrtr::tool]
async fn greet(cx: &mrtr::Context) -> Result<String, ToolError> {
    let greeting = String::from("hello");
    let short: &str = &greeting[..2];
    loop {
        if cx.round() > 5 {
            break;
        }
        let name = ask!(elicit::form::<Name>("Name?"));
        let _ = name;
        return Ok(String::new());
    }
    Ok(short.to_owned())
}

fn main() {}
