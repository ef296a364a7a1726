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

// Deeper in the type: still one error, naming the kept type.
#[mrtr::tool]
async fn pool() -> Result<String, ToolError> {
    let conns = vec![Connection::open()];
    let name = ask!(elicit::form::<Name>("Name?"));
    let _ = name;
    Ok(conns[0].query())
}

fn main() {}
