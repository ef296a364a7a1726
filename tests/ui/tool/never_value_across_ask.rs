use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

// Every arm returns, so `greeting` is `!` and the code after it is dead: a plain `async fn`
// compiles it with a warning, the machine would have to keep a value that cannot exist.
// Refused at the `let` (FINDINGS 14); remove the dead code, or give the `let` a type.
#[mrtr::tool]
async fn greet(cx: &mrtr::Context) -> Result<String, ToolError> {
    let greeting = if cx.round() > 1 {
        return Ok(String::from("late"));
    } else {
        return Ok(String::from("early"));
    };
    let name = ask!(elicit::form::<Name>("Name?"));
    let _ = name;
    Ok(format!("{greeting:?}"))
}

fn main() {}
