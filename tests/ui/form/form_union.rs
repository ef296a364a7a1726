#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
union Bits {
    a: u32,
    b: f32,
}

fn main() {}
