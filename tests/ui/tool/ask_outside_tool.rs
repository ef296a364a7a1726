use mrtr::ask;

fn main() {
    let _name = ask!(name = 1);
}
