#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login {
    name: Option<Option<String>>,
}

fn main() {}
