use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Number {
    value: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Flag {
    flag: bool,
}

fn label() -> &'static str {
    "outer"
}

#[mrtr::tool]
async fn nested_fn(args: Flag) -> Result<String, ToolError> {
    let first = label();
    let second = if args.flag {
        fn label() -> &'static str {
            "inner"
        }
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        format!("{} {n}", label())
    } else {
        String::new()
    };
    Ok(format!("{first} {second}"))
}

#[mrtr::tool]
async fn redefined_macro() -> Result<String, ToolError> {
    macro_rules! word {
        () => {
            "one"
        };
    }
    let first = word!();
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    macro_rules! word {
        () => {
            "two"
        };
    }
    Ok(format!("{first} {} {n}", word!()))
}

fn main() {}
