#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
#[form(serde = "no")]
struct Order {
    code: String,
}

/// Without `serde = false`, the author's own derive conflicts with the generated impl.
#[derive(Form, serde::Serialize)]
struct Twice {
    code: String,
}

fn main() {}
