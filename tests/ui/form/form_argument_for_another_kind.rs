#![allow(dead_code)]

use mrtr::{Choice, Form};

#[derive(Choice)]
enum Meal {
    Veg,
}

#[derive(Form)]
struct Order {
    #[form(min_length = 1)]
    count: u8,
    #[form(minimum = 0)]
    note: String,
    #[form(max_items = 2)]
    meal: Meal,
    #[form(format = "email")]
    vip: bool,
}

fn main() {}
