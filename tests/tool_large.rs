//! A tool with twenty `ask!` sites across branches, loops and a batch: it compiles, and a full
//! run answers every question once.

mod support;

use mrtr::{Answer, Form, Server, ToolError, elicit};
use serde_json::{Value, json};
use support::{Client, accept};

#[derive(Form, Debug)]
struct Number {
    value: i64,
}

fn n(answer: Answer<Number>) -> i64 {
    answer.ok().map_or(0, |number| number.value)
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    deep: bool,
}

#[mrtr::tool]
async fn twenty(args: Args) -> Result<String, ToolError> {
    let mut total = 0;
    let a1 = ask!(elicit::form::<Number>("1"));
    total += n(a1);
    let a2 = ask!(elicit::form::<Number>("2"));
    total += n(a2);
    if args.deep {
        let a3 = ask!(elicit::form::<Number>("3"));
        total += n(a3);
        let a4 = ask!(elicit::form::<Number>("4"));
        if n(a4) > 0 {
            let a5 = ask!(elicit::form::<Number>("5"));
            total += n(a5);
        } else {
            let a6 = ask!(elicit::form::<Number>("6"));
            total += n(a6);
        }
    } else {
        let a7 = ask!(elicit::form::<Number>("7"));
        total += n(a7);
    }
    for round in 0..2 {
        let a8 = ask!(elicit::form::<Number>(format!("8.{round}")));
        total += n(a8);
        match round {
            0 => {
                let a9 = ask!(elicit::form::<Number>("9"));
                total += n(a9);
            }
            _ => {
                let a10 = ask!(elicit::form::<Number>("10"));
                total += n(a10);
            }
        }
    }
    let mut tries = 0;
    while tries < 2 {
        tries += 1;
        let a11 = ask!(elicit::form::<Number>("11"));
        total += n(a11);
    }
    let (a12, a13) = ask!(
        a12 = elicit::form::<Number>("12"),
        a13 = elicit::form::<Number>("13")
    );
    total += n(a12) + n(a13);
    let picked = loop {
        let a14 = ask!(elicit::form::<Number>("14"));
        if n(a14) >= 0 {
            break 14;
        }
    };
    total += picked;
    let a15 = ask!(elicit::form::<Number>("15"));
    total += n(a15);
    let a16 = ask!(elicit::form::<Number>("16"));
    total += n(a16);
    let a17 = ask!(elicit::form::<Number>("17"));
    total += n(a17);
    let a18 = ask!(elicit::form::<Number>("18"));
    total += n(a18);
    let a19 = ask!(elicit::form::<Number>("19"));
    total += n(a19);
    let a20 = ask!(elicit::form::<Number>("20"));
    total += n(a20);
    Ok(total.to_string())
}

#[tokio::test]
async fn twenty_asks_run_to_the_end() {
    let server = Server::builder("large", "1.0.0")
        .key_ring(support::ring(1))
        .max_rounds(30)
        .tool(twenty)
        .build()
        .unwrap();
    let client = Client::new(server);
    let (reply, asked) = client
        .run("twenty", json!({"deep": true}), |_, requests: &Value| {
            let answers = requests
                .as_object()
                .unwrap()
                .keys()
                .map(|key| (key.clone(), accept(json!({"value": 1}))))
                .collect();
            Value::Object(answers)
        })
        .await;
    // Added up: 1, 2, 3 and 5 (4 only picks the branch), 8 twice, 9, 10, 11 twice, 12 and 13,
    // the loop's 14, then 15 to 20.
    assert_eq!(reply.text(), (4 + 4 + 2 + 2 + 14 + 6).to_string());
    assert_eq!(asked.len(), 19);
}
