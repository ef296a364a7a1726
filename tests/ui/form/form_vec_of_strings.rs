#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
