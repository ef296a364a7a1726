use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let later = || ask!(name = elicit::form::<Name>("Name?"));
    let _ = later;
    Ok(String::new())
}

fn main() {
    // The tool still exists as a value, so registering it compiles: only the real error shows.
    let _server = mrtr::Server::builder("demo", "1.0").tool(greet).build();
}
