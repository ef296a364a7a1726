use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

struct Connection;

impl Connection {
    fn open() -> Self {
        Connection
    }

    fn query(&self) -> String {
        String::new()
    }
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let conn = Connection::open();
    let name = ask!(elicit::form::<Name>("Name?"));
    let _ = name;
    Ok(conn.query())
}

fn main() {}
