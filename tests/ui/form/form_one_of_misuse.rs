#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Order {
    #[form(one_of = ["s", "m", "s"], min_length = 1, default = "xl")]
    size: String,
    #[form(one_of = [])]
    color: String,
    #[form(one_of = "s")]
    fit: String,
}

fn main() {}
