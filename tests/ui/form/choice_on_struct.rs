#![allow(dead_code)]

use mrtr::Choice;

#[derive(Choice)]
struct Seat {
    window: bool,
}

fn main() {}
