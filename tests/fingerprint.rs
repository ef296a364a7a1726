//! A machine's fingerprint depends on its tokens, not on how they are spaced or printed: a
//! rustfmt run, a rustc or a `proc-macro2` upgrade must not refuse the flows in flight. The
//! value is pinned: a change of the fingerprint's computation shows here first.

use mrtr::{Machine, ToolError, elicit};

#[derive(mrtr::Form)]
struct Name {
    name: String,
}

mod tidy {
    use super::*;

    #[mrtr::tool]
    pub async fn greet() -> Result<String, ToolError> {
        let who = ask!(elicit::form::<Name>("Who are you?")).accepted()?;
        let shout = |text: &str| -> String { text.to_uppercase() };
        Ok(format!("Hello, {}!", shout(&who.name)))
    }
}

#[rustfmt::skip]
mod dense {
    use super::*;

    #[mrtr::tool]
    pub async fn greet()->Result<String,ToolError>{
        let who=ask!(elicit::form::<Name>(r"Who are you?")).accepted()?;
        let shout=|text:&str|->String{text.to_uppercase()};
        Ok(format!("Hello, {}!",shout(&who.name)))
    }
}

fn hex(machine: &impl Machine) -> String {
    machine
        .fingerprint()
        .as_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[test]
fn spacing_and_string_spelling_do_not_change_the_fingerprint() {
    assert_eq!(hex(&tidy::greet), hex(&dense::greet));
}

#[test]
fn the_fingerprint_is_pinned() {
    assert_eq!(hex(&tidy::greet), "a2aa0b055b53fa4dfbe4ebfbb144d5ba");
}
