#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Order {
    #[form(maximum = 2.5)]
    count: u32,
}

fn main() {}
