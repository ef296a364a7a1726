#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Order {
    #[form(default = "three")]
    count: u32,
    #[form(default = 1)]
    gift: bool,
    #[form(default = 5)]
    note: String,
}

fn main() {}
