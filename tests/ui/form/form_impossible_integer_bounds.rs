#![allow(dead_code)]

use mrtr::Form;

#[derive(Form)]
struct Order {
    #[form(minimum = 300)]
    small: u8,
    #[form(maximum = -1)]
    count: Option<u32>,
    #[form(maximum = 18446744073709551616)]
    too_big: u64,
    #[form(default = 256)]
    level: u8,
}

fn main() {}
