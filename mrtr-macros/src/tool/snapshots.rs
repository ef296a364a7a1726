//! Expansion snapshots of a few representative tools, so a reviewer can read what the macro
//! emits. Refresh with `UPDATE_EXPECT=1 cargo test -p mrtr-macros`.

use expect_test::{ExpectFile, expect_file};
use quote::quote;

fn check(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream, expected: ExpectFile) {
    let expanded = super::expand(super::Kind::Tool, attr, item);
    let file = syn::parse2::<syn::File>(expanded).expect("the expansion parses as a file");
    expected.assert_eq(&prettyplease::unparse(&file));
}

#[test]
fn straight_line() {
    check(
        quote!(),
        quote! {
            /// Current weather for a location.
            async fn get_weather(args: WeatherArgs, cx: &Context) -> Result<String, ToolError> {
                let forecast = cx.state::<Forecasts>().today(&args.location).await?;
                let github_login = ask!(elicit::form::<Login>("Please provide your GitHub username"));
                let Answer::Accept(login) = github_login else {
                    return Ok("No login given, nothing personalised.".into());
                };
                Ok(format!("{}: {forecast} (for {})", args.location, login.name))
            }
        },
        expect_file!["../../tests/expand/straight_line.rs"],
    );
}

#[test]
fn ask_until_valid() {
    check(
        quote!(max_rounds = 5),
        quote! {
            async fn pick_even() -> Result<String, ToolError> {
                let mut tries = 0;
                let even = loop {
                    tries += 1;
                    let number = ask!(elicit::form::<Number>("An even number?"));
                    let Answer::Accept(number) = number else { continue };
                    if number.value % 2 == 0 {
                        break number.value;
                    }
                };
                Ok(format!("{even} after {tries} tries"))
            }
        },
        expect_file!["../../tests/expand/ask_until_valid.rs"],
    );
}

#[test]
fn batch_in_a_for_loop() {
    check(
        quote!(name = "order"),
        quote! {
            async fn order(args: OrderArgs) -> Result<String, ToolError> {
                let mut lines = Vec::new();
                for item in args.items {
                    let (size, extra) = ask!(size = elicit::form::<Size>(format!("Size of {item}?")), extra = elicit::form::<Extra>("Extra?"));
                    lines.push(format!("{item}: {:?} {:?}", size, extra));
                }
                Ok(lines.join("\n"))
            }
        },
        expect_file!["../../tests/expand/batch_in_a_for_loop.rs"],
    );
}

#[test]
fn asks_in_every_arm() {
    check(
        quote!(),
        quote! {
            async fn route(args: RouteArgs) -> Result<String, ToolError> {
                let way = if args.fast {
                    let line = ask!(pick = elicit::form::<Pick>("Fast: which line?")).accepted()?.pick;
                    format!("fast by {line}")
                } else {
                    let road = ask!(pick = elicit::form::<Pick>("Slow: which road?")).accepted()?.pick;
                    format!("slow by {road}")
                };
                let ride = match args.mode {
                    Mode::Train => ask!(pick = elicit::form::<Pick>("Which train?")).accepted()?.pick,
                    Mode::Bus(number) if number > 0 => ask!(pick = elicit::form::<Pick>("Which bus?")).accepted()?.pick,
                    _ => "on foot".to_owned(),
                };
                Ok(format!("{way}, then {ride}"))
            }
        },
        expect_file!["../../tests/expand/asks_in_every_arm.rs"],
    );
}
