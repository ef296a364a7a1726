use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let mut names = Vec::new();
    #[cfg(any())]
    let first = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
    #[cfg(not(all()))]
    loop {
        let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
        names.push(name);
    }
    #[cfg_attr(any(), allow(unused))]
    {
        let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
        names.push(name);
    }
    #[cfg(any())]
    ask!(late = elicit::form::<Name>("Name?"));
    // Lint and tool attributes are kept.
    #[allow(unused_variables)]
    #[rustfmt::skip]
    let unused = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
    Ok(names.join(" "))
}

fn main() {}
