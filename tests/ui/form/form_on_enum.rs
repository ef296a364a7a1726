#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
enum Size {
    Small,
    Large,
}

fn main() {}
