#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login {
    #[form(title = "Name", title = "User")]
    name: String,
}

fn main() {}
