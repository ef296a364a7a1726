#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login {
    #[form(min_length = 5, max_length = 2)]
    name: String,
    #[form(minimum = 10, maximum = -1)]
    level: i32,
}

fn main() {}
