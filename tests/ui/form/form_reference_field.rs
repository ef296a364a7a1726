#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login<'a> {
    name: &'a str,
}

fn main() {}
