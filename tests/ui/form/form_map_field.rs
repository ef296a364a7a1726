#![allow(dead_code)]

use std::collections::HashMap;
use mrtr::Form;

#[derive(Form)]
struct Settings {
    values: HashMap<String, String>,
}

fn main() {}
