use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Pair {
    name: String,
    n: i64,
}

// `pair.name` is moved out before the ask and `pair.n` is read after it, so `pair` crosses the
// ask partly moved and travels field by field: the code after the ask gets back a struct of
// the kept fields, not a `Pair`. Assigning it a whole `Pair` again, and using it whole, is
// valid Rust that the machine cannot keep that way, so it keeps `pair` whole, which the
// partial move forbids (E0382). Give the new value a name of its own (FINDINGS.md 25).
#[mrtr::tool]
async fn count() -> Result<String, ToolError> {
    let mut pair = Pair {
        name: String::from("ada"),
        n: 2,
    };
    let taken = pair.name;
    let answer = ask!(elicit::form::<Name>("Name?"));
    let _ = answer;
    let n = pair.n;
    pair = Pair { name: taken, n };
    Ok(format!("{pair:?}"))
}

fn main() {}
