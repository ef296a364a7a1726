use mrtr::{Form, ToolError, elicit};

#[derive(Form)]
struct Name {
    name: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Pair {
    name: String,
    n: i64,
}

// `pair.name` is moved out before the ask and only `pair.n` is read after it: valid Rust. The
// attribute matches field reads to a value by name, so it keeps a partly moved value field by
// field only when no other binding of the body has its name; here an inner `pair` has it, so
// the outer one is kept whole, a move of a partly moved value that rustc refuses (E0382). Give
// one of the two another name (FINDINGS.md 22).
#[mrtr::tool]
async fn count() -> Result<String, ToolError> {
    {
        let pair = 1;
        let _ = pair;
    }
    let pair = Pair {
        name: String::from("ada"),
        n: 2,
    };
    let taken = pair.name;
    let answer = ask!(elicit::form::<Name>("Name?"));
    let _ = answer;
    Ok(format!("{taken} {}", pair.n))
}

fn main() {}
