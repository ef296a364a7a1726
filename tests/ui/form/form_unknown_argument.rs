#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login {
    #[form(min_len = 3)]
    name: String,
}

fn main() {}
