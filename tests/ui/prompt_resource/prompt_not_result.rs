#[mrtr::prompt]
async fn summary() -> String {
    String::new()
}

fn main() {}
