use mrtr::{Server, ToolError};

/// Says hello.
async fn hello() -> Result<String, ToolError> {
    Ok("hello".to_owned())
}

struct Plain;

fn main() {
    let _ = Server::builder("demo", "1.0").tool(hello).build();
    let _ = Server::builder("demo", "1.0").prompt(Plain).build();
}
