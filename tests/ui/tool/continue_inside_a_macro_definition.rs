use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

macro_rules! skip_outside {
    () => {
        continue
    };
}

#[mrtr::tool]
async fn defined_in_the_body() -> Result<String, ToolError> {
    macro_rules! skip_empty {
        ($name:expr) => {
            if $name.is_empty() {
                continue;
            }
        };
    }
    let mut names = Vec::new();
    while names.len() < 2 {
        let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
        skip_empty!(name);
        names.push(name);
    }
    Ok(names.join(" "))
}

#[mrtr::tool]
async fn defined_outside() -> Result<String, ToolError> {
    let mut names = Vec::new();
    for _ in 0..2 {
        let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
        let name = if name.is_empty() { skip_outside!() } else { name };
        names.push(name);
    }
    Ok(names.join(" "))
}

fn main() {}
