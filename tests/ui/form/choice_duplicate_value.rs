#![allow(dead_code)]

use mrtr::Choice;

#[derive(Choice)]
enum Seat {
    #[choice(rename = "Aisle")]
    Window,
    Aisle,
}

fn main() {}
