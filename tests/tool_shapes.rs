//! Every control-flow shape `#[mrtr::tool]` supports, run end to end through `Server::handle`,
//! counting side effects to prove that each step ran exactly once.

mod support;

use std::sync::Arc;

use mrtr::{Answer, Choice, Context, Form, Server, ToolError, elicit, recheck};
use serde_json::{Value, json};
use support::{Client, Counters, accept};

#[derive(Form, Debug)]
struct Name {
    #[form(min_length = 2)]
    name: String,
}

#[derive(Form, Debug)]
struct Number {
    value: i64,
}

#[derive(Form, Debug)]
struct Confirm {
    ok: bool,
}

#[derive(Choice, Debug, PartialEq)]
enum Size {
    Small,
    Large,
}

#[derive(Form, Debug)]
struct Pick {
    size: Size,
}

fn counters(cx: &Context) -> &Counters {
    cx.state::<Arc<Counters>>()
}

// ---------------------------------------------------------------- tools, one per shape

/// Two asks in a row with work before, between and after.
#[mrtr::tool]
async fn straight(cx: &Context) -> Result<String, ToolError> {
    counters(cx).hit("before");
    let first = ask!(elicit::form::<Name>("First name?"));
    counters(cx).hit("between");
    let last = ask!(elicit::form::<Name>("Last name?"));
    counters(cx).hit("after");
    let (first, last) = (first.accepted()?.name, last.accepted()?.name);
    Ok(format!("{first} {last}"))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ModeArgs {
    mode: String,
}

/// An ask in one branch only, and a value-producing `if` whose branch asks.
#[mrtr::tool]
async fn branches(args: ModeArgs, cx: &Context) -> Result<String, ToolError> {
    counters(cx).hit("start");
    if args.mode == "ask" {
        let confirm = ask!(elicit::form::<Confirm>("Sure?"));
        counters(cx).hit("confirmed");
        if !confirm.accepted()?.ok {
            return Ok("stopped".into());
        }
    } else {
        counters(cx).hit("skipped");
    }
    let size = if args.mode == "ask" {
        let pick = ask!(elicit::form::<Pick>("Size?"));
        format!("{:?}", pick.accepted()?.size)
    } else {
        "Default".to_owned()
    };
    counters(cx).hit("end");
    Ok(size)
}

/// `match` on a borrowed scrutinee with an ask in one arm.
#[mrtr::tool]
async fn matcher(args: ModeArgs, cx: &Context) -> Result<String, ToolError> {
    let greeting = match args.mode.as_str() {
        "named" => {
            counters(cx).hit("named");
            let who = ask!(elicit::form::<Name>("Who?"));
            format!("hello {}", who.accepted()?.name)
        }
        other => format!("hello {other}"),
    };
    counters(cx).hit("after");
    Ok(greeting)
}

/// Ask until valid: `loop` with `continue` and `break value`.
#[mrtr::tool]
async fn until_even(cx: &Context) -> Result<String, ToolError> {
    let mut tries = 0;
    let even = loop {
        tries += 1;
        counters(cx).hit("iteration");
        let number = ask!(elicit::form::<Number>("An even number?"));
        let Answer::Accept(number) = number else {
            continue;
        };
        if number.value % 2 == 0 {
            break number.value;
        }
    };
    Ok(format!("{even} after {tries} tries"))
}

/// `while` with an ask in its body.
#[mrtr::tool]
async fn collect_while(cx: &Context) -> Result<String, ToolError> {
    let mut names: Vec<String> = Vec::new();
    while names.len() < 3 {
        counters(cx).hit("asking");
        let next = ask!(elicit::form::<Name>("Next name?"));
        match next {
            Answer::Accept(next) => names.push(next.name),
            _ => break,
        }
    }
    Ok(names.join(","))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ItemsArgs {
    items: Vec<String>,
}

/// `for` over a collection and over a range, an ask per item.
#[mrtr::tool]
async fn per_item(args: ItemsArgs, cx: &Context) -> Result<String, ToolError> {
    let mut kept = Vec::new();
    for item in args.items.clone() {
        counters(cx).hit(&format!("item {item}"));
        let confirm = ask!(elicit::form::<Confirm>(format!("Keep {item}?")));
        if confirm.accepted()?.ok {
            kept.push(item);
        }
    }
    let mut total = 0;
    for round in 1..=2u32 {
        let number = ask!(elicit::form::<Number>(format!("Number {round}?")));
        total += number.accepted()?.value;
    }
    Ok(format!("{} / {total}", kept.join(",")))
}

/// Asks inside nested blocks, shadowing, and a batch.
#[mrtr::tool]
async fn nested(cx: &Context) -> Result<String, ToolError> {
    let value = 1;
    let value = {
        let inner = value + 1;
        let name = ask!(elicit::form::<Name>("Name?"));
        counters(cx).hit("inner");
        format!("{inner}:{}", name.accepted()?.name)
    };
    let (size, confirm) = ask!(
        size = elicit::form::<Pick>("Size?"),
        confirm = elicit::form::<Confirm>("Sure?")
    );
    Ok(format!(
        "{value} {:?} {}",
        size.accepted()?.size,
        confirm.accepted()?.ok
    ))
}

/// An ask as the operand of `?`, as a method call's receiver, and as a condition; a statement
/// ask; and a state-only round.
#[mrtr::tool]
async fn positions(cx: &Context) -> Result<String, ToolError> {
    let name = ask!(elicit::form::<Name>("Name?")).accepted()?.name;
    let accepted = ask!(agree = elicit::form::<Confirm>("Agree?")).is_accepted();
    ask!(notice = elicit::form::<Confirm>("Seen the notice?"));
    ask!(recheck());
    if ask!(last = elicit::form::<Confirm>("Last one?"))
        .accepted()?
        .ok
    {
        counters(cx).hit("last");
    }
    Ok(format!("{name} {accepted} round {}", cx.round()))
}

#[derive(Debug)]
struct LookupError(String);

impl std::fmt::Display for LookupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "lookup failed: {}", self.0)
    }
}

async fn lookup(name: &str) -> Result<usize, LookupError> {
    tokio::task::yield_now().await;
    if name == "missing" {
        Err(LookupError(name.into()))
    } else {
        Ok(name.len())
    }
}

/// `.await` and `?` between asks with the author's own error type, and an early return.
#[mrtr::tool]
async fn own_error(cx: &Context) -> Result<String, LookupError> {
    let name = ask!(elicit::form::<Name>("Name?"));
    let Answer::Accept(name) = name else {
        return Ok("nobody".into());
    };
    let length = lookup(&name.name).await?;
    counters(cx).hit("looked up");
    let again = ask!(elicit::form::<Confirm>("Again?"));
    if again.is_accepted() {
        return Ok(format!("{length}!"));
    }
    Ok(length.to_string())
}

/// Reaches app state and degrades by capability.
#[mrtr::tool]
async fn by_capability(cx: &Context) -> Result<String, ToolError> {
    if cx.capabilities().elicitation_form() {
        let name = ask!(elicit::form::<Name>("Name?"));
        Ok(format!("form: {}", name.accepted()?.name))
    } else {
        let reply = ask!(sampled = mrtr::sample(mrtr::SamplingRequest::new(10).user("A name?")));
        Ok(format!(
            "sampling: {}",
            reply.ok().map(|message| message.text()).unwrap_or_default()
        ))
    }
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct CounterArgs {
    start: i64,
}

/// A `mut` parameter used after an ask is kept like a local.
#[mrtr::tool]
async fn mut_param(mut args: CounterArgs) -> Result<String, ToolError> {
    args.start += 10;
    let more = ask!(elicit::form::<Number>("How many more?"));
    args.start += more.accepted()?.value;
    Ok(args.start.to_string())
}

fn server(counters: &Arc<Counters>) -> Server {
    Server::builder("shapes", "1.0.0")
        .key_ring(support::ring(7))
        .state(Arc::clone(counters))
        .tool(straight)
        .tool(branches)
        .tool(matcher)
        .tool(until_even)
        .tool(collect_while)
        .tool(per_item)
        .tool(nested)
        .tool(positions)
        .tool(own_error)
        .tool(by_capability)
        .tool(mut_param)
        .build()
        .unwrap()
}

fn setup() -> (Client, Arc<Counters>) {
    let counters = Arc::new(Counters::default());
    (Client::new(server(&counters)), counters)
}

fn name(value: &str) -> Value {
    accept(json!({"name": value}))
}

fn number(value: i64) -> Value {
    accept(json!({"value": value}))
}

fn confirm(ok: bool) -> Value {
    accept(json!({"ok": ok}))
}

// ---------------------------------------------------------------- tests

#[tokio::test]
async fn straight_line_runs_each_step_once() {
    let (client, counters) = setup();
    let answers = [name("Ada"), name("Lovelace")];
    let (reply, asked) = client
        .run(
            "straight",
            json!({}),
            |round, _| json!({["first", "last"][round - 1]: answers[round - 1].clone()}),
        )
        .await;
    assert_eq!(reply.text(), "Ada Lovelace");
    assert_eq!(asked, [["first"], ["last"]]);
    assert_eq!(
        (
            counters.get("before"),
            counters.get("between"),
            counters.get("after")
        ),
        (1, 1, 1)
    );
}

#[tokio::test]
async fn branches_ask_only_when_needed() {
    let (client, counters) = setup();
    let (reply, asked) = client
        .call_through("branches", json!({"mode": "skip"}))
        .await;
    assert_eq!(reply.text(), "Default");
    assert!(asked.is_empty());
    let (reply, asked) = client
        .run("branches", json!({"mode": "ask"}), |round, _| match round {
            1 => json!({"confirm": confirm(true)}),
            _ => json!({"pick": accept(json!({"size": "Large"}))}),
        })
        .await;
    assert_eq!(reply.text(), "Large");
    assert_eq!(asked, [["confirm"], ["pick"]]);
    let (reply, _) = client
        .run(
            "branches",
            json!({"mode": "ask"}),
            |_, _| json!({"confirm": confirm(false)}),
        )
        .await;
    assert_eq!(reply.text(), "stopped");
    assert_eq!(
        counters.all(),
        [("confirmed", 2), ("end", 2), ("skipped", 1), ("start", 3)]
            .map(|(k, v)| (k.to_owned(), v))
            .into()
    );
}

#[tokio::test]
async fn match_on_a_borrowed_scrutinee() {
    let (client, counters) = setup();
    let (reply, _) = client
        .call_through("matcher", json!({"mode": "plain"}))
        .await;
    assert_eq!(reply.text(), "hello plain");
    let (reply, asked) = client
        .run(
            "matcher",
            json!({"mode": "named"}),
            |_, _| json!({"who": name("Bo")}),
        )
        .await;
    assert_eq!(reply.text(), "hello Bo");
    assert_eq!(asked, [["who"]]);
    assert_eq!((counters.get("named"), counters.get("after")), (1, 2));
}

#[tokio::test]
async fn loops_until_valid_with_continue_and_break_value() {
    let (client, counters) = setup();
    let script = [json!({"action": "decline"}), number(3), number(4)];
    let (reply, asked) = client
        .run(
            "until_even",
            json!({}),
            |round, _| json!({"number": script[round - 1].clone()}),
        )
        .await;
    assert_eq!(reply.text(), "4 after 3 tries");
    assert_eq!(asked.len(), 3);
    assert_eq!(counters.get("iteration"), 3);
}

#[tokio::test]
async fn an_invalid_answer_in_a_loop_is_asked_again_without_running_code() {
    let (client, counters) = setup();
    let script = [accept(json!({"value": "three"})), number(8)];
    let (reply, asked) = client
        .run(
            "until_even",
            json!({}),
            |round, _| json!({"number": script[round - 1].clone()}),
        )
        .await;
    assert_eq!(reply.text(), "8 after 1 tries");
    assert_eq!(asked.len(), 2);
    assert_eq!(counters.get("iteration"), 1);
}

#[tokio::test]
async fn while_loops_keep_their_state() {
    let (client, counters) = setup();
    let (reply, asked) = client
        .run(
            "collect_while",
            json!({}),
            |round, _| json!({"next": name(&format!("n{round}"))}),
        )
        .await;
    assert_eq!(reply.text(), "n1,n2,n3");
    assert_eq!(asked.len(), 3);
    assert_eq!(counters.get("asking"), 3);
}

#[tokio::test]
async fn for_loops_over_items_and_ranges() {
    let (client, counters) = setup();
    let script = [
        confirm(true),
        confirm(false),
        confirm(true),
        number(5),
        number(6),
    ];
    let (reply, asked) = client
        .run(
            "per_item",
            json!({"items": ["a", "b", "c"]}),
            |round, requests| {
                let key = requests.as_object().unwrap().keys().next().unwrap().clone();
                json!({key: script[round - 1].clone()})
            },
        )
        .await;
    assert_eq!(reply.text(), "a,c / 11");
    assert_eq!(
        asked,
        [
            ["confirm"],
            ["confirm"],
            ["confirm"],
            ["number"],
            ["number"]
        ]
    );
    assert_eq!(
        (
            counters.get("item a"),
            counters.get("item b"),
            counters.get("item c")
        ),
        (1, 1, 1)
    );
}

#[tokio::test]
async fn an_invalid_answer_in_a_for_loop_is_asked_again() {
    let (client, counters) = setup();
    let script = [
        accept(json!({"ok": "yes"})),
        confirm(true),
        number(1),
        number(2),
    ];
    let (reply, _) = client
        .run("per_item", json!({"items": ["x"]}), |round, requests| {
            let key = requests.as_object().unwrap().keys().next().unwrap().clone();
            json!({key: script[round - 1].clone()})
        })
        .await;
    assert_eq!(reply.text(), "x / 3");
    assert_eq!(counters.get("item x"), 1);
}

#[tokio::test]
async fn nested_blocks_shadowing_and_a_batch() {
    let (client, counters) = setup();
    let (reply, asked) = client
        .run("nested", json!({}), |round, _| match round {
            1 => json!({"name": name("Cy")}),
            _ => json!({"size": accept(json!({"size": "Small"})), "confirm": confirm(true)}),
        })
        .await;
    assert_eq!(reply.text(), "2:Cy Small true");
    assert_eq!(asked, vec![vec!["name"], vec!["confirm", "size"]]);
    assert_eq!(counters.get("inner"), 1);
}

#[tokio::test]
async fn asks_in_expression_positions_and_a_state_only_round() {
    let (client, counters) = setup();
    let (reply, asked) = client
        .run("positions", json!({}), |round, _| match round {
            1 => json!({"name": name("Di")}),
            2 => json!({"agree": {"action": "cancel"}}),
            3 => json!({"notice": confirm(true)}),
            4 => json!({}),
            _ => json!({"last": confirm(true)}),
        })
        .await;
    assert_eq!(reply.text(), "Di false round 6");
    assert_eq!(
        asked,
        vec![
            vec!["name"],
            vec!["agree"],
            vec!["notice"],
            vec![],
            vec!["last"]
        ]
    );
    assert_eq!(counters.get("last"), 1);
}

#[tokio::test]
async fn the_authors_error_type_becomes_a_tool_error() {
    let (client, counters) = setup();
    let (reply, _) = client
        .run(
            "own_error",
            json!({}),
            |_, _| json!({"name": name("missing")}),
        )
        .await;
    assert!(reply.is_error());
    assert_eq!(reply.text(), "lookup failed: missing");
    let (reply, _) = client
        .run(
            "own_error",
            json!({}),
            |_, _| json!({"name": {"action": "decline"}}),
        )
        .await;
    assert_eq!(reply.text(), "nobody");
    let (reply, _) = client
        .run("own_error", json!({}), |round, _| {
            if round == 1 {
                json!({"name": name("abcd")})
            } else {
                json!({"again": confirm(true)})
            }
        })
        .await;
    assert_eq!(reply.text(), "4!");
    assert_eq!(counters.get("looked up"), 1);
}

#[tokio::test]
async fn context_reaches_state_and_capabilities() {
    let (mut client, _) = setup();
    let (reply, _) = client
        .run(
            "by_capability",
            json!({}),
            |_, _| json!({"name": name("Ed")}),
        )
        .await;
    assert_eq!(reply.text(), "form: Ed");
    client.capabilities = json!({"sampling": {}});
    let (reply, asked) = client
        .run("by_capability", json!({}), |_, _| json!({"sampled": {"role": "assistant", "content": {"type": "text", "text": "Flo"}, "model": "m"}}))
        .await;
    assert_eq!(reply.text(), "sampling: Flo");
    assert_eq!(asked, [["sampled"]]);
}

#[tokio::test]
async fn a_mut_parameter_used_after_an_ask_is_kept() {
    let (client, _) = setup();
    let (reply, _) = client
        .run(
            "mut_param",
            json!({"start": 1}),
            |_, _| json!({"more": number(5)}),
        )
        .await;
    assert_eq!(reply.text(), "16");
}

#[tokio::test]
async fn one_answer_never_satisfies_two_asks() {
    let (client, counters) = setup();
    // Sent before any question: it counts for the first ask only, even though the second ask
    // uses a question of the same shape.
    let reply = client
        .call(
            "straight",
            json!({}),
            Some(json!({"first": name("Ann"), "last": name("Lee")})),
            None,
        )
        .await;
    assert_eq!(reply.keys(), ["last"]);
    assert_eq!(counters.get("between"), 1);
    // In a loop, the answer to this round's ask does not satisfy the next iteration's.
    let first = client
        .call(
            "until_even",
            json!({}),
            Some(json!({"number": number(3)})),
            None,
        )
        .await;
    assert_eq!(first.keys(), ["number"]);
    assert_eq!(counters.get("iteration"), 2);
}

trait CallThrough {
    async fn call_through(
        &self,
        tool: &str,
        arguments: Value,
    ) -> (support::Reply, Vec<Vec<String>>);
}

impl CallThrough for Client {
    async fn call_through(
        &self,
        tool: &str,
        arguments: Value,
    ) -> (support::Reply, Vec<Vec<String>>) {
        self.run(tool, arguments, |_, _| panic!("no question expected"))
            .await
    }
}
