#![allow(dead_code)]

use mrtr::Choice;

#[derive(Choice)]
enum Seat {
    Window,
    Row(u8),
    Named { name: String },
}

fn main() {}
