#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Order {
    #[form(minimum = 1, maximum = 9, default = 12)]
    count: u32,
    #[form(max_length = 3, default = "too long")]
    code: String,
}

fn main() {}
