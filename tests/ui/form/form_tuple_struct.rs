#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Login(String);

fn main() {}
