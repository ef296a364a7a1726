#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
#[form(crate = "not a path")]
struct Login {
    name: String,
}

fn main() {}
