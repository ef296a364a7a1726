use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let people = vec![String::from("ada"), String::from("alan")];
    for person in &people {
        let name = ask!(elicit::form::<Name>(format!("Name of {person}?")));
        let _ = name;
    }
    Ok(people.join(","))
}

fn main() {}
