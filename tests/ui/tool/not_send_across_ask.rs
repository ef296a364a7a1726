use std::rc::Rc;

use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

// `Rc` serializes (serde's `rc` feature), but a value the machine holds between its steps must
// be `Send`: the error names it, at its `let`.
#[mrtr::tool]
async fn shared_counter() -> Result<String, ToolError> {
    let count = Rc::new(1u32);
    let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
    Ok(format!("{name} {count}"))
}

fn main() {}
