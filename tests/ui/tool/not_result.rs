use mrtr::{Form, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> String {
    let name = ask!(elicit::form::<Name>("Name?"));
    let _ = name;
    String::new()
}

fn main() {}
