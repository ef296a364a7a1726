use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

// `names.first()` borrows `names`, which the attribute cannot see (it has no types). The arm
// that asks goes on after its ask, so the code after the `if` is a step of its own that two
// ways reach, and `first` would have to be carried there from the first step while `names` is
// kept. rustc refuses it at the borrow (E0505, E0597): borrow again after the `if`, or keep an
// owned value (`names.first().cloned()`).
#[mrtr::tool]
async fn greet(cx: &mrtr::Context) -> Result<String, ToolError> {
    let names: Vec<String> = vec![String::from("a"), String::from("b")];
    let mut first = names.first();
    if cx.round() > 1 {
        let name = ask!(elicit::form::<Name>("Name?"));
        let _ = name;
        first = None;
    }
    Ok(format!("{first:?} of {names:?}"))
}

fn main() {}
