#![allow(dead_code)]

use mrtr::{Choice, Form};

#[derive(Choice)]
enum Size {
    #[choice(rename = "small")]
    Small,
    #[choice(rename = "large")]
    Large,
}

#[derive(Form)]
struct Order {
    #[form(default = "medium")]
    size: Size,
    #[form(default = ["small", "huge"])]
    extras: Vec<Size>,
}

fn main() {}
