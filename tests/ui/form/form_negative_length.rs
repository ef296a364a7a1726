#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login {
    #[form(min_length = -1)]
    name: String,
}

fn main() {}
