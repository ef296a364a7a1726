use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

// `initial` borrows `word` (through a method, which the attribute cannot see) across the
// `if`. The `else` arm re-binds the name `word` and goes on to the code after the `if`, which
// keeps the outer `word` across an ask, so the machine puts `word` away before the `if` (it
// could not name it inside that arm): a move the live borrow forbids, refused by rustc at
// `word`'s `let` (E0505). Give the inner binding another name, or borrow again after the
// `if`. (When only arms that return re-bind the name, nothing is put away: tests/lowering.rs.)
#[mrtr::tool]
async fn greet(cx: &mrtr::Context) -> Result<String, ToolError> {
    let word = String::from("west");
    let initial = word.get(..1);
    if cx.round() > 1 {
        let name = ask!(elicit::form::<Name>("Name?"));
        let _ = name;
        return Ok(String::new());
    } else {
        let word = 3;
        let _ = word;
    }
    let seen = format!("{initial:?}");
    let more = ask!(elicit::form::<Name>("More?"));
    let _ = more;
    Ok(format!("{word} {seen}"))
}

fn main() {}
