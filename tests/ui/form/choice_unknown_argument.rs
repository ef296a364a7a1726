#![allow(dead_code)]

use mrtr::Choice;

#[derive(Choice)]
enum Seat {
    #[choice(label = "Window seat")]
    Window,
}

fn main() {}
