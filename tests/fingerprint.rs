//! What identifies a machine across builds depends on its tokens, not on how they are spaced
//! or printed: a rustfmt run, a rustc or a `proc-macro2` upgrade must not refuse the flows in
//! flight. The fingerprint follows the name and `version` only; each resume point's id follows
//! its ask keys and the constructs around it, a `match` arm by its canonical pattern. Both
//! are pinned: a change of their computation shows here first.

use mrtr::machine::Machine;
use mrtr::{ToolError, elicit};

#[derive(mrtr::Form)]
struct Name {
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    mode: Option<u8>,
}

mod tidy {
    use super::*;

    #[mrtr::tool]
    pub async fn greet(args: Args) -> Result<String, ToolError> {
        let who = match args.mode {
            Some(n @ 1..=3) if n != 2 => {
                ask!(who = elicit::form::<Name>("Who are you?")).accepted()?
            }
            _ => ask!(name = elicit::form::<Name>(r"Your name?")).accepted()?,
        };
        for _ in 0..2 {
            let _again = ask!(elicit::form::<Name>("Again?"));
        }
        let shout = |text: &str| -> String { text.to_uppercase() };
        Ok(format!("Hello, {}!", shout(&who.name)))
    }
}

#[rustfmt::skip]
mod dense {
    use super::*;

    #[mrtr::tool]
    pub async fn greet(args:Args)->Result<String,ToolError>{
        let who=match args.mode{Some(n@1..=3)if n!=2=>ask!(who = elicit::form::<Name>("Who are you?")).accepted()?,
            _=>ask!(name = elicit::form::<Name>("Your name?")).accepted()?};
        for _ in 0..2{let _again=ask!(elicit::form::<Name>("Again?"));}
        let shout=|text:&str|->String{text.to_uppercase()};
        Ok(format!("Hello, {}!",shout(&who.name)))
    }
}

fn hex(machine: &impl Machine) -> String {
    hex_of(machine.fingerprint())
}

fn hex_of(fingerprint: mrtr::token::Fingerprint) -> String {
    fingerprint
        .as_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn points(machine: &impl Machine) -> Vec<String> {
    machine
        .resume_points()
        .iter()
        .map(|point| format!("{:08x} {}", point.id, point.label))
        .collect()
}

#[test]
fn spacing_and_string_spelling_change_nothing() {
    assert_eq!(hex(&tidy::greet), hex(&dense::greet));
    assert_eq!(points(&tidy::greet), points(&dense::greet));
}

#[test]
fn the_fingerprint_and_the_resume_points_are_pinned() {
    assert_eq!(
        hex(&tidy::greet),
        hex_of(mrtr::token::Fingerprint::of_version("tool", "greet", 1))
    );
    assert_eq!(hex(&tidy::greet), "c28cd2978da74b22fecad3e43a3180f9");
    assert_eq!(
        points(&tidy::greet),
        [
            "e7a92514 ask who in match Some ( n @ 1 ..= 3 ) if n != 2",
            "a1275099 ask name in match _",
            "350bc898 ask _again in for",
        ]
    );
}
