#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login {
    #[form(rename = "user")]
    name: String,
    user: String,
}

fn main() {}
