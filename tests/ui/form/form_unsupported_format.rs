#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Contact {
    #[form(format = "phone")]
    phone: String,
}

fn main() {}
