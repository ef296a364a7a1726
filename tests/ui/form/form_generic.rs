#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login<T> {
    name: T,
}

fn main() {}
