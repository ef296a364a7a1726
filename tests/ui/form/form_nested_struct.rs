#![allow(dead_code)]

use mrtr::Form;

struct Address {
    street: String,
}

#[derive(Form)]
struct Signup {
    name: String,
    address: Address,
}

fn main() {}
