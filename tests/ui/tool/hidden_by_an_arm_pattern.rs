use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let name = String::from("ada");
    let reply = match name.strip_prefix('a') {
        Some(name) => {
            let confirm = ask!(elicit::form::<Name>(format!("Call you {name}?")));
            confirm.accepted()?.name
        }
        None => String::new(),
    };
    Ok(format!("{name} {reply}"))
}

fn main() {}
