use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Number {
    value: i64,
}

#[mrtr::tool]
async fn macro_reads_a_local() -> Result<String, ToolError> {
    let base = 10;
    macro_rules! plus_base {
        ($e:expr) => {
            $e + base
        };
    }
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{}", plus_base!(n)))
}

fn main() {}
