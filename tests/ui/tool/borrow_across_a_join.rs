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

// A borrow made by a method call: the attribute cannot see that `first` borrows `names`.
#[mrtr::tool]
async fn first_name(cx: &mrtr::Context) -> Result<String, ToolError> {
    let names = vec![String::from("ada"), String::from("alan")];
    let first = names.first();
    if cx.round() > 5 {
        let name = ask!(elicit::form::<Name>("Name?"));
        let _ = name;
        return Ok(String::new());
    }
    Ok(format!("{first:?}"))
}

fn main() {}
