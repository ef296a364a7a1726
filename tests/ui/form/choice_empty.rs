#![allow(dead_code)]

use mrtr::Choice;

#[derive(Choice)]
enum Nothing {}

fn main() {}
