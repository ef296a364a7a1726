use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Number {
    value: i64,
}

macro_rules! bind {
    ($name:ident = $value:expr) => {
        let $name = $value;
    };
}

#[mrtr::tool]
async fn rebound_inside() -> Result<String, ToolError> {
    let v = 1;
    let inner = {
        bind!(v = 50);
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        v + n
    };
    Ok(format!("{v} {inner}"))
}

fn main() {}
