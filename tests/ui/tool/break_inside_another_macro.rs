use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

macro_rules! twice {
    ($($body:tt)*) => {
        $($body)*
        $($body)*
    };
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    loop {
        let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
        twice!(if name.is_empty() { break; });
    }
    Ok(String::new())
}

fn main() {}
