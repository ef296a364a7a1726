//! Bodies that the first lowering compiled wrongly or refused (issue 12), each driven through
//! the harness with every state sealed and opened, and compared with what the same function
//! computes run straight through. The expected strings are the straight-line results.

use std::sync::atomic::{AtomicUsize, Ordering};

use mrtr::testing::{Harness, Round, answer};
use mrtr::{Answer, Context, Form, ToolError, elicit};
use serde_json::{Value, json};

#[derive(Form, Debug)]
struct Number {
    value: i64,
}

fn number(value: i64) -> Value {
    answer::accept(json!({ "value": value }))
}

/// Runs a flow to its end, answering each round's questions from `script` in order.
async fn run(harness: &Harness, arguments: Value, script: &[Value]) -> Round {
    let mut round = harness.call(arguments).await;
    let mut script = script.iter();
    while round.is_input_required() {
        let keys = round.keys();
        let answers: Vec<(String, Value)> = keys
            .into_iter()
            .map(|key| {
                (
                    key,
                    script.next().expect("the script has an answer").clone(),
                )
            })
            .collect();
        round = round
            .answer(
                answers
                    .iter()
                    .map(|(key, value)| (key.as_str(), value.clone())),
            )
            .await;
    }
    assert!(script.next().is_none(), "the flow asked less than scripted");
    round
}

async fn text(tool: impl mrtr::machine::Tool, arguments: Value, script: &[Value]) -> String {
    run(&Harness::tool(tool), arguments, script).await.text()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Flag {
    flag: bool,
}

// ---------------------------------------------------------------- 1. shadowing

/// An inner `x` in the arm that completes in place must not overwrite the outer `x`.
#[mrtr::tool]
async fn shadow_in_an_arm(args: Flag) -> Result<String, ToolError> {
    let x = 1;
    let r = if args.flag {
        let x = 2;
        x * 10
    } else {
        ask!(n = elicit::form::<Number>("n?")).accepted()?.value
    };
    Ok(format!("{x} {r}"))
}

/// The everyday `if let Some(name) = &name`, with the ask in the `else`.
#[mrtr::tool]
async fn shadow_by_if_let(args: Flag) -> Result<String, ToolError> {
    let name: Option<String> = args.flag.then(|| "ada".to_owned());
    let greeting = if let Some(name) = &name {
        format!("hi {name}")
    } else {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        format!("hello {n}")
    };
    Ok(format!("{greeting} {}", name.is_some()))
}

/// Inner bindings in a block that asks, in a resume block, and in a loop body.
#[mrtr::tool]
async fn shadow_around_asks() -> Result<String, ToolError> {
    let x = 5;
    let y = String::from("outer");
    {
        let x = String::from("inner");
        let a = ask!(elicit::form::<Number>("a?")).accepted()?.value;
        let _ = (x, a);
    }
    let r = if x > 0 {
        let b = ask!(elicit::form::<Number>("b?")).accepted()?.value;
        let y = b + 100;
        y
    } else {
        0
    };
    let mut total = 0;
    for i in 0..2 {
        let x = i * 1000;
        let c = ask!(elicit::form::<Number>("c?")).accepted()?.value;
        total += x + c;
    }
    Ok(format!("{x} {y} {r} {total}"))
}

/// A match arm whose pattern re-binds a name, and a same-scope `let x = x + ..`.
#[mrtr::tool]
async fn shadow_in_a_match(args: Flag) -> Result<String, ToolError> {
    let v = 3;
    let v = v + 1;
    let pick = if args.flag { Some(7) } else { None };
    let got = match pick {
        Some(v) => v * 2,
        None => ask!(v = elicit::form::<Number>("v?")).accepted()?.value,
    };
    Ok(format!("{v} {got}"))
}

/// An `if let` whose scrutinee reads the kept value its pattern hides (found by the
/// differential test, seed 2014).
#[mrtr::tool]
async fn if_let_reads_what_it_hides(args: Flag) -> Result<String, ToolError> {
    let v = 10;
    let mut seen = Vec::new();
    if let Some(v) = Some(v + 1).filter(|_| args.flag) {
        let b = ask!(elicit::form::<Number>("b?")).accepted()?.value;
        seen.push(v + b);
    } else {
        seen.push(v);
    }
    Ok(format!("{v} {seen:?}"))
}

/// The `else` of a `let .. else` that hides a kept value leaves a loop that asks (seed 2014).
#[mrtr::tool]
async fn let_else_leaves_a_loop(args: Flag) -> Result<String, ToolError> {
    let v: Option<String> = args.flag.then(|| "ab".to_owned());
    let mut rounds = 0;
    while ask!(again = elicit::form::<Number>("again?"))
        .accepted()?
        .value
        > 0
    {
        rounds += 1;
        let Some(v) = v.clone() else { break };
        rounds += v.len();
    }
    Ok(format!("{v:?} {rounds}"))
}

#[tokio::test]
async fn shadowing_never_replaces_a_kept_value() {
    assert_eq!(
        text(
            if_let_reads_what_it_hides,
            json!({"flag": true}),
            &[number(5)]
        )
        .await,
        "10 [16]"
    );
    assert_eq!(
        text(if_let_reads_what_it_hides, json!({"flag": false}), &[]).await,
        "10 [10]"
    );
    let script = [number(1), number(1), number(0)];
    assert_eq!(
        text(let_else_leaves_a_loop, json!({"flag": true}), &script).await,
        "Some(\"ab\") 6"
    );
    assert_eq!(
        text(let_else_leaves_a_loop, json!({"flag": false}), &[number(1)]).await,
        "None 1"
    );
    assert_eq!(
        text(shadow_in_an_arm, json!({"flag": true}), &[]).await,
        "1 20"
    );
    assert_eq!(
        text(shadow_in_an_arm, json!({"flag": false}), &[number(7)]).await,
        "1 7"
    );
    assert_eq!(
        text(shadow_by_if_let, json!({"flag": true}), &[]).await,
        "hi ada true"
    );
    assert_eq!(
        text(shadow_by_if_let, json!({"flag": false}), &[number(4)]).await,
        "hello 4 false"
    );
    let script = [number(1), number(2), number(3), number(4)];
    assert_eq!(
        text(shadow_around_asks, json!({}), &script).await,
        "5 outer 102 1007"
    );
    assert_eq!(
        text(shadow_in_a_match, json!({"flag": true}), &[]).await,
        "4 14"
    );
    assert_eq!(
        text(shadow_in_a_match, json!({"flag": false}), &[number(9)]).await,
        "4 9"
    );
}

// ---------------------------------------------------------------- 2. values JSON writes as null

#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Unit;

#[mrtr::tool]
async fn awkward_values() -> Result<String, ToolError> {
    let none: Option<u8> = None;
    let unit = ();
    let marker = Unit;
    let null = Value::Null;
    let (nan, inf, minus_inf, minus_zero) = (f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0f64);
    let (big, huge, letter) = (u64::MAX, i128::MIN, 'é');
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!(
        "{none:?} {unit:?} {marker:?} {null} {nan:?} {inf:?} {minus_inf:?} {minus_zero:?} {big} {huge} {letter} {n}"
    ))
}

#[tokio::test]
async fn every_kept_value_comes_back_exactly() {
    assert_eq!(
        text(awkward_values, json!({}), &[number(1)]).await,
        format!(
            "None () Unit null NaN inf -inf -0.0 {} {} é 1",
            u64::MAX,
            i128::MIN
        )
    );
}

// ---------------------------------------------------------------- 3. uses liveness must see

#[mrtr::tool]
#[allow(non_snake_case)]
async fn hidden_uses() -> Result<String, ToolError> {
    let width = 7;
    let prec = 2;
    let N = 3;
    let base = 10;
    let out = loop {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        if n > 0 {
            break base + n;
        }
    };
    Ok(format!("[{:width$.prec$}] {N} {out}", 1.5))
}

#[tokio::test]
async fn uses_in_break_values_format_specs_and_capitalised_names_are_seen() {
    assert_eq!(
        text(hidden_uses, json!({}), &[number(0), number(5)]).await,
        "[   1.50] 3 15"
    );
}

// ---------------------------------------------------------------- 5. items in the body

#[mrtr::tool]
async fn items_in_the_body() -> Result<String, ToolError> {
    use std::fmt::Write as _;
    const LIMIT: i64 = 3;
    fn double(n: i64) -> i64 {
        n * 2
    }
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    let mut out = String::new();
    write!(out, "{}", double(LIMIT) + n).map_err(|error| ToolError::new(error.to_string()))?;
    Ok(out)
}

#[tokio::test]
async fn items_are_visible_after_an_ask() {
    assert_eq!(text(items_in_the_body, json!({}), &[number(1)]).await, "7");
}

// ---------------------------------------------------------------- 6. diverging code

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Skip {
    skip: bool,
}

#[mrtr::tool]
async fn guard_clause(args: Skip) -> Result<String, ToolError> {
    let n = if args.skip {
        return Ok("skipped".into());
    } else {
        ask!(n = elicit::form::<Number>("n?")).accepted()?.value
    };
    Ok(format!("got {n}"))
}

macro_rules! bail {
    ($message:expr) => {
        return Err(ToolError::new($message))
    };
}

#[mrtr::tool]
async fn ends_in_a_macro_that_returns() -> Result<String, ToolError> {
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    if n > 0 {
        return Ok(format!("positive {n}"));
    }
    bail!("not positive");
}

#[tokio::test]
async fn diverging_arms_and_endings_type_check_and_run() {
    assert_eq!(
        text(guard_clause, json!({"skip": true}), &[]).await,
        "skipped"
    );
    assert_eq!(
        text(guard_clause, json!({"skip": false}), &[number(2)]).await,
        "got 2"
    );
    let harness = Harness::tool(ends_in_a_macro_that_returns);
    assert_eq!(
        run(&harness, json!({}), &[number(3)]).await.text(),
        "positive 3"
    );
    let refused = run(&harness, json!({}), &[number(-1)]).await;
    assert!(refused.is_error());
    assert_eq!(refused.text(), "not positive");
}

// ---------------------------------------------------------------- 7. annotated context lookups

struct Greeting(String);

#[mrtr::tool]
async fn annotated_lookup(cx: &Context) -> Result<String, ToolError> {
    let greeting: &Greeting = cx.state();
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{} {n}", greeting.0))
}

#[tokio::test]
async fn a_context_lookup_keeps_its_annotation_where_it_is_rebuilt() {
    let harness = Harness::builder_for_tool(annotated_lookup)
        .state(Greeting("hey".into()))
        .build();
    assert_eq!(run(&harness, json!({}), &[number(2)]).await.text(), "hey 2");
}

// ---------------------------------------------------------------- 8. partial moves

/// No serde derives: a value kept field by field needs only its kept fields to be keepable.
struct Person {
    name: String,
    email: String,
    visits: u32,
    notes: Vec<String>,
}

fn person() -> Person {
    Person {
        name: "Ada".to_owned(),
        email: "ada@example.com".to_owned(),
        visits: 1,
        notes: vec!["first".to_owned()],
    }
}

/// `name` is moved out before the ask; only `email` and `visits` are read after it.
#[mrtr::tool]
async fn partly_moved() -> Result<String, ToolError> {
    let mut p = person();
    let name = p.name;
    let extra = ask!(elicit::form::<Number>("How many more visits?"))
        .accepted()?
        .value;
    p.visits += extra as u32;
    Ok(format!("{name} <{}> {}", p.email, p.visits))
}

/// Moved in the block that asks, read again after a construct that asks and inside a loop.
#[mrtr::tool]
async fn partly_moved_across_a_loop(args: Flag) -> Result<String, ToolError> {
    let p = person();
    let notes = p.notes;
    let bonus = if args.flag {
        0
    } else {
        ask!(bonus = elicit::form::<Number>("Bonus?"))
            .accepted()?
            .value
    };
    let mut total = i64::from(p.visits) + bonus;
    while total < 3 {
        let more = ask!(elicit::form::<Number>(format!("More for {}?", p.email)));
        total += more.accepted()?.value;
    }
    Ok(format!("{notes:?} {} {total}", p.email.len()))
}

#[tokio::test]
async fn a_partly_moved_value_keeps_the_fields_read_later() {
    assert_eq!(
        text(partly_moved, json!({}), &[number(2)]).await,
        "Ada <ada@example.com> 3"
    );
    assert_eq!(
        text(
            partly_moved_across_a_loop,
            json!({ "flag": false }),
            &[number(0), number(1), number(1)]
        )
        .await,
        "[\"first\"] 15 3"
    );
    assert_eq!(
        text(
            partly_moved_across_a_loop,
            json!({ "flag": true }),
            &[number(5)]
        )
        .await,
        "[\"first\"] 15 6"
    );
    // Only the fields read after the ask travel, each under its own name.
    let round = Harness::tool(partly_moved).call(json!({})).await;
    let kept = round.kept();
    assert_eq!(
        kept,
        json!({ "p.email": "ada@example.com", "p.visits": 1, "name": "Ada" })
    );
}

/// A field of a field moved out (issue 25, class 7): the paths read later travel, and the value
/// comes back as a struct of structs.
struct Order {
    customer: Person,
    tag: String,
}

#[mrtr::tool]
async fn nested_partly_moved(args: Flag) -> Result<String, ToolError> {
    let mut order = Order {
        customer: person(),
        tag: "gift".to_owned(),
    };
    let name = order.customer.name;
    if args.flag {
        let extra = ask!(elicit::form::<Number>("More visits?"))
            .accepted()?
            .value;
        order.customer.visits += extra as u32;
    }
    let notes = order.customer.notes.len();
    let last = ask!(last = elicit::form::<Number>("Last?"))
        .accepted()?
        .value;
    Ok(format!(
        "{name} {} {} {} {notes} {last}",
        order.customer.email, order.customer.visits, order.tag
    ))
}

#[tokio::test]
async fn a_field_of_a_field_moved_out_keeps_the_paths_read_later() {
    assert_eq!(
        text(
            nested_partly_moved,
            json!({ "flag": true }),
            &[number(2), number(7)]
        )
        .await,
        "Ada ada@example.com 3 gift 1 7"
    );
    assert_eq!(
        text(nested_partly_moved, json!({ "flag": false }), &[number(7)]).await,
        "Ada ada@example.com 1 gift 1 7"
    );
    let round = Harness::tool(nested_partly_moved)
        .call(json!({ "flag": true }))
        .await;
    assert_eq!(
        round.kept(),
        json!({
            "order.customer.visits": 1,
            "order.customer.email": "ada@example.com",
            "order.customer.notes": ["first"],
            "order.tag": "gift",
            "name": "Ada"
        })
    );
}

// ---------------------------------------------------------------- 9. arguments checked first

static SIDE_EFFECTS: AtomicUsize = AtomicUsize::new(0);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Count {
    count: u8,
}

#[mrtr::tool]
async fn arguments_used_late(args: Count) -> Result<String, ToolError> {
    SIDE_EFFECTS.fetch_add(1, Ordering::SeqCst);
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{} {n}", args.count))
}

#[tokio::test]
async fn invalid_arguments_are_refused_before_any_code_runs() {
    let harness = Harness::tool(arguments_used_late);
    let refused = harness.call(json!({"count": 300})).await;
    assert!(refused.is_error(), "{}", refused.response());
    assert!(!refused.is_input_required());
    assert_eq!(SIDE_EFFECTS.load(Ordering::SeqCst), 0, "no code ran");
    assert_eq!(
        run(&harness, json!({"count": 3}), &[number(1)])
            .await
            .text(),
        "3 1"
    );
}

// ---------------------------------------------------------------- 10-12. for loops

#[mrtr::tool]
async fn for_loops() -> Result<String, ToolError> {
    let mut out = String::new();
    for letter in 'a'..='b' {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        out.push_str(&format!("{letter}{n} "));
    }
    for word in vec!["x".to_owned(), "y".to_owned()] {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        out.push_str(&format!("{word}{n} "));
    }
    for i in ask!(start = elicit::form::<Number>("from?"))
        .accepted()?
        .value..3
    {
        out.push_str(&format!("{i}"));
    }
    Ok(out)
}

#[tokio::test]
async fn for_loops_over_chars_collections_and_an_asked_bound() {
    let script = [number(1), number(2), number(3), number(4), number(0)];
    assert_eq!(text(for_loops, json!({}), &script).await, "a1 b2 x3 y4 012");
}

// ---------------------------------------------------------------- 11. inference in source order

#[mrtr::tool]
async fn typed_in_the_first_arm(args: Flag) -> Result<String, ToolError> {
    let mut items = Vec::new();
    if args.flag {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        items.push(n);
    } else {
        items.push(0);
    }
    let total: i64 = items.iter().sum();
    Ok(format!("{total}"))
}

#[tokio::test]
async fn a_type_fixed_in_one_arm_is_known_in_the_next() {
    assert_eq!(
        text(typed_in_the_first_arm, json!({"flag": true}), &[number(5)]).await,
        "5"
    );
    assert_eq!(
        text(typed_in_the_first_arm, json!({"flag": false}), &[]).await,
        "0"
    );
}

// ---------------------------------------------------------------- 13. attributes

#[mrtr::tool]
#[cfg(test)]
#[allow(clippy::let_and_return)]
async fn with_attributes() -> Result<String, ToolError> {
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    let out = format!("{n}");
    Ok(out)
}

#[mrtr::tool]
#[cfg(any())]
async fn compiled_out() -> Result<String, ToolError> {
    Ok(missing_function())
}

#[tokio::test]
async fn cfg_and_lint_attributes_are_forwarded() {
    assert_eq!(text(with_attributes, json!({}), &[number(8)]).await, "8");
}

// ---------------------------------------------------------------- 16. a local named like the tool

#[mrtr::tool]
async fn order() -> Result<String, ToolError> {
    let order = ask!(elicit::form::<Number>("How many?")).accepted()?.value;
    let confirm = ask!(elicit::form::<Number>("Sure?")).accepted()?.value;
    Ok(format!("{order} x{confirm}"))
}

#[tokio::test]
async fn a_local_may_share_the_tools_name() {
    let first = Harness::tool(order).call(json!({})).await;
    first.assert_asks(["order"]);
    assert_eq!(
        text(order, json!({}), &[number(2), number(1)]).await,
        "2 x1"
    );
}

// ---------------------------------------------------------------- issue 25. loop cursors

/// A range that iteration already exhausted has `start == end` but no items left: the kept
/// cursor must start where the range stands, not where its bounds say.
#[mrtr::tool]
async fn exhausted_ranges() -> Result<String, ToolError> {
    let mut out = String::new();
    let mut spent = 1..=2;
    spent.next();
    spent.next();
    for i in spent {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        out.push_str(&format!("a{i}{n} "));
    }
    let (high, low) = (5, 4);
    for i in high..=low {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        out.push_str(&format!("b{i}{n} "));
    }
    let mut one = 7..=7;
    one.next();
    for i in one {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        out.push_str(&format!("d{i}{n} "));
    }
    let rest = ask!(elicit::form::<Number>("rest?")).accepted()?.value;
    Ok(format!("{out}end {rest}"))
}

#[tokio::test]
async fn an_exhausted_inclusive_range_runs_no_more() {
    assert_eq!(
        text(exhausted_ranges, json!({}), &[number(9)]).await,
        "end 9"
    );
}

macro_rules! bind {
    ($name:ident = $value:expr) => {
        let $name = $value;
    };
}

macro_rules! twice {
    ($value:expr) => {
        $value * 2
    };
}

/// Inside a loop that asks, another macro's call carries a guard against a hidden `continue`
/// (tests/ui/tool/continue_inside_a_macro_definition.rs); everything else a macro does is
/// unchanged: names it declares, its value, a `return` in it, a loop of its own.
#[mrtr::tool]
async fn macros_in_a_loop_that_asks() -> Result<String, ToolError> {
    let mut out = Vec::new();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        bind!(doubled = twice!(n));
        let sum = {
            let mut sum = 0;
            for i in 0..n {
                macro_rules! skip_odd {
                    ($i:expr) => {
                        if $i % 2 == 1 {
                            continue;
                        }
                    };
                }
                skip_odd!(i);
                sum += i;
            }
            sum
        };
        if n < 0 {
            bail!("negative");
        }
        let label = {
            format! {"{doubled}/{sum}"}
        };
        out.push(label);
        if rounds == 2 {
            break;
        }
    }
    Ok(out.join(" "))
}

#[tokio::test]
async fn macros_in_a_loop_that_asks_behave_as_written() {
    assert_eq!(
        text(
            macros_in_a_loop_that_asks,
            json!({}),
            &[number(3), number(5)]
        )
        .await,
        "6/2 10/6"
    );
    let failed = run(
        &Harness::tool(macros_in_a_loop_that_asks),
        json!({}),
        &[number(-1)],
    )
    .await;
    assert_eq!(failed.text(), "negative");
}

// ---------------------------------------------------------------- issue 25. exact kept values

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Marker;

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Holder {
    inner: Option<Option<u8>>,
    unit: Option<()>,
}

/// `Some` of a value that encodes as null (`Value::Null`, a unit struct, `None`, `()`) comes
/// back as `Some`, at any depth.
#[mrtr::tool]
async fn somes_of_nothing() -> Result<String, ToolError> {
    let null: Option<Value> = Some(Value::Null);
    let marker = Some(Marker);
    let nested: Option<Option<i64>> = Some(None);
    let unit = Some(());
    let deep = vec![Some(None::<u8>), None, Some(Some(1))];
    let holder = Holder {
        inner: Some(None),
        unit: Some(()),
    };
    let none: Option<Option<u8>> = None;
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!(
        "{n} {null:?} {marker:?} {nested:?} {unit:?} {deep:?} {holder:?} {none:?}"
    ))
}

#[tokio::test]
async fn some_of_a_null_value_comes_back_as_some() {
    assert_eq!(
        text(somes_of_nothing, json!({}), &[number(1)]).await,
        "1 Some(Null) Some(Marker) Some(None) Some(()) [Some(None), None, Some(Some(1))] \
         Holder { inner: Some(None), unit: Some(()) } None"
    );
}

#[derive(Form, Debug)]
struct Ratio {
    value: f32,
}

/// A form's `f32` answered with a number beyond its range decodes to infinity, as serde makes
/// it; kept across the next ask, it stays infinity.
#[mrtr::tool]
async fn kept_infinity() -> Result<String, ToolError> {
    let ratio = ask!(elicit::form::<Ratio>("ratio?")).accepted()?;
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{} {n}", ratio.value))
}

// The form derive keeps a form as its JSON content (`FormField::encode`), which has no
// infinity: it is written as a marker that only a kept value reads.
#[tokio::test]
async fn a_form_float_that_decodes_to_infinity_survives_the_next_round() {
    let script = [answer::accept(json!({ "value": 1e39 })), number(2)];
    assert_eq!(text(kept_infinity, json!({}), &script).await, "inf 2");
}

// ---------------------------------------------------------------- issue 25. kept `&'static str`

/// String literals kept across asks: a `&'static str`, a `Vec<&str>` and the items of a
/// `for` over an array of them come back as the same `&'static str`s.
#[mrtr::tool]
async fn kept_literals() -> Result<String, ToolError> {
    let greeting: &str = "Hello";
    let words = vec!["a", "b\"c"];
    let mut out = Vec::new();
    for x in ["x", "y"] {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        out.push(format!("{x}{n}"));
    }
    let last: &'static str = words[1];
    Ok(format!("{greeting} {words:?} {} {last}", out.join(" ")))
}

#[tokio::test]
async fn kept_static_strs_come_back() {
    assert_eq!(
        text(kept_literals, json!({}), &[number(1), number(2)]).await,
        "Hello [\"a\", \"b\\\"c\"] x1 y2 b\"c"
    );
}

const OUTSIDE: &str = "outside";

/// A `&'static str` that is not one of the body's literals cannot come back as one: the next
/// round is refused, naming the value, instead of resuming with another string.
#[mrtr::tool]
async fn kept_outside_str() -> Result<String, ToolError> {
    let word = OUTSIDE;
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{word} {n}"))
}

#[tokio::test]
async fn a_static_str_from_outside_the_body_is_refused_not_changed() {
    let first = Harness::tool(kept_outside_str).call(json!({})).await;
    let second = first.answer([("n", number(1))]).await;
    assert!(second.is_refused_state(), "{}", second.response());
}

// ---------------------------------------------------------------- issue 25. binding forms

/// A statement macro that declares a name the body already keeps.
#[mrtr::tool]
async fn rebound_by_a_macro() -> Result<String, ToolError> {
    let v = 1;
    bind!(v = 50);
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{v} {n}"))
}

/// Let chains whose bindings hide a kept value.
#[mrtr::tool]
async fn let_chain_hides() -> Result<String, ToolError> {
    let v = 7;
    let pair = (Some(1), Some(2));
    let out = if let Some(v) = pair.0
        && let Some(w) = pair.1
    {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        v + w + n
    } else {
        0
    };
    Ok(format!("{v} {out}"))
}

/// A `while let` whose pattern hides a kept value, left by a labelled `continue`/`break`.
#[mrtr::tool]
async fn while_let_labelled() -> Result<String, ToolError> {
    let v = 100;
    let mut stack = vec![1, 2, 3];
    let mut seen = Vec::new();
    'outer: while let Some(v) = stack.pop() {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        seen.push(v + n);
        if v == 2 {
            continue 'outer;
        }
        if v == 1 {
            break 'outer;
        }
    }
    Ok(format!("{v} {seen:?}"))
}

/// Closure parameters named like a kept value.
#[mrtr::tool]
async fn closure_param_like_a_kept_value() -> Result<String, ToolError> {
    let n = 3;
    let items = vec![1, 2];
    let doubled: Vec<i64> = items.iter().map(|n| n * 2).collect();
    let m = ask!(elicit::form::<Number>("m?")).accepted()?.value;
    let tripled: Vec<i64> = items.iter().map(|n| n * 3).collect();
    Ok(format!("{n} {m} {doubled:?} {tripled:?}"))
}

#[tokio::test]
async fn binding_forms_resolve_as_rustc_does() {
    assert_eq!(
        text(rebound_by_a_macro, json!({}), &[number(2)]).await,
        "50 2"
    );
    assert_eq!(text(let_chain_hides, json!({}), &[number(4)]).await, "7 7");
    assert_eq!(
        text(
            while_let_labelled,
            json!({}),
            &[number(0), number(0), number(0)]
        )
        .await,
        "100 [3, 2, 1]"
    );
    assert_eq!(
        text(closure_param_like_a_kept_value, json!({}), &[number(5)]).await,
        "3 5 [2, 4] [3, 6]"
    );
}

struct Contact {
    name: String,
    email: String,
}

/// A closure parameter named like a value kept field by field is another binding: its method
/// calls are not uses of the kept value.
#[mrtr::tool]
async fn closure_param_like_a_partly_moved_value() -> Result<String, ToolError> {
    let p = Contact {
        name: "ada".to_owned(),
        email: "ada@x".to_owned(),
    };
    let name = p.name;
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    let words = ["ab".to_owned(), "c".to_owned()];
    let lengths: Vec<usize> = words.iter().map(|p| p.len()).collect();
    Ok(format!("{name} {} {n} {lengths:?}", p.email))
}

/// Let chains in a `while` whose bindings hide a kept value, and read it in a later condition.
#[mrtr::tool]
async fn while_let_chain() -> Result<String, ToolError> {
    let v = 10;
    let mut stack: Vec<i64> = vec![1, 2, 3];
    let mut seen = Vec::new();
    let ten = v;
    while let Some(w) = stack.pop()
        && let Some(v) = w.checked_mul(ten)
    {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        seen.push(v + n);
    }
    Ok(format!("{v} {seen:?}"))
}

/// A labelled `continue` to a `while let` from a loop without asks, under a pattern that
/// hides a kept value.
#[mrtr::tool]
async fn while_let_continue_from_inside() -> Result<String, ToolError> {
    let v = 100;
    let mut stack = vec![1, 2, 3];
    let mut seen = Vec::new();
    'outer: while let Some(v) = stack.pop() {
        for i in 0..3 {
            if i == v {
                continue 'outer;
            }
        }
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        seen.push(v + n);
    }
    Ok(format!("{v} {seen:?}"))
}

#[tokio::test]
async fn more_binding_forms_resolve_as_rustc_does() {
    assert_eq!(
        text(
            closure_param_like_a_partly_moved_value,
            json!({}),
            &[number(1)]
        )
        .await,
        "ada ada@x 1 [2, 1]"
    );
    assert_eq!(
        text(
            while_let_chain,
            json!({}),
            &[number(0), number(0), number(0)]
        )
        .await,
        "10 [30, 20, 10]"
    );
    assert_eq!(
        text(while_let_continue_from_inside, json!({}), &[number(5)]).await,
        "100 [8]"
    );
}

/// A labelled `break` out of a `while let` from a loop without asks, under a pattern that
/// hides a kept value, with the hidden value read after the loop.
#[mrtr::tool]
async fn while_let_break_from_inside() -> Result<String, ToolError> {
    let v = String::from("outer");
    let mut stack = vec![1, 2, 3];
    let mut seen = Vec::new();
    'outer: while let Some(v) = stack.pop() {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        loop {
            if v + n == 2 {
                break 'outer;
            }
            break;
        }
        seen.push(v + n);
    }
    Ok(format!("{v} {seen:?}"))
}

#[tokio::test]
async fn a_labelled_break_from_inside_a_while_let_keeps_the_outer_value() {
    assert_eq!(
        text(
            while_let_break_from_inside,
            json!({}),
            &[number(0), number(0)]
        )
        .await,
        "outer [3]"
    );
}

// ---------------------------------------------------------------- issue 25. values that are not `Send`

static GUARDS_DROPPED: AtomicUsize = AtomicUsize::new(0);

/// Counts its drops: a guard the machine does not keep.
struct CountedGuard<'a>(std::cell::RefMut<'a, Vec<i64>>);

impl Drop for CountedGuard<'_> {
    fn drop(&mut self) {
        GUARDS_DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

/// A guard that is not `Send` and is not used after the ask: it drops at the suspension, so
/// the round's future stays `Send` and the tool compiles. (A value that is not `Send` and is
/// used after an ask is refused: `tests/ui/tool/not_send_across_ask.rs`.)
#[mrtr::tool]
async fn guard_not_kept() -> Result<String, ToolError> {
    let cell = std::cell::RefCell::new(Vec::new());
    let mut guard = CountedGuard(cell.borrow_mut());
    guard.0.push(1);
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{n}"))
}

#[tokio::test]
async fn a_guard_that_is_not_kept_drops_at_the_suspension() {
    let harness = Harness::tool(guard_not_kept);
    let first = harness.call(json!({})).await;
    assert!(first.is_input_required());
    assert_eq!(
        GUARDS_DROPPED.load(Ordering::SeqCst),
        1,
        "dropped in round 1"
    );
    let last = first.answer([("n", number(4))]).await;
    assert_eq!(last.text(), "4");
    assert_eq!(
        GUARDS_DROPPED.load(Ordering::SeqCst),
        1,
        "not created in round 2"
    );
}

// ---------------------------------------------------------------- issue 25. class 7, valid code

/// The author's names may look like the machine's own: a second `page` (kept as `page.2`) and
/// an author's `page_2`, `value_1`.
#[mrtr::tool]
async fn names_like_generated_ones() -> Result<String, ToolError> {
    let page = 10;
    let page_2 = 20;
    let value_1 = 30;
    let a = ask!(elicit::form::<Number>("a?")).accepted()?.value;
    let page = page + a;
    let value = ask!(elicit::form::<Number>("b?")).accepted()?.value;
    Ok(format!("{page} {page_2} {value_1} {value}"))
}

/// A type with its own `Drop`, whose fields are read (not moved) before and after an ask.
struct Member {
    name: String,
    email: String,
}

impl Drop for Member {
    fn drop(&mut self) {}
}

impl serde::Serialize for Member {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (&self.name, &self.email).serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Member {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (name, email) = <(String, String)>::deserialize(deserializer)?;
        Ok(Member { name, email })
    }
}

#[mrtr::tool]
async fn drop_type_read_by_field() -> Result<String, ToolError> {
    let person = Member {
        name: String::from("ada"),
        email: String::from("ada@x"),
    };
    let name = person.name.clone();
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{name} {} {n}", person.email.clone()))
}

/// Fields read through an `Arc`.
#[mrtr::tool]
async fn fields_through_an_arc() -> Result<String, ToolError> {
    let pair = std::sync::Arc::new((String::from("left"), String::from("right")));
    let left = pair.0.clone();
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("{left} {} {n}", pair.1.clone()))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Inner {
    a: String,
    b: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Outer {
    inner: Inner,
    c: String,
}

/// A closure whose parameter has the name of a kept value, in a value kept field by field.
#[mrtr::tool]
async fn closure_param_named_like_a_kept_field_value() -> Result<String, ToolError> {
    let outer = Outer {
        inner: Inner {
            a: String::from("a"),
            b: String::from("b"),
        },
        c: String::from("c"),
    };
    let a = outer.c;
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    let lengths: Vec<usize> = [String::from("xy")]
        .iter()
        .map(|outer| outer.len())
        .collect();
    Ok(format!("{a} {} {lengths:?} {n}", outer.inner.a))
}

#[tokio::test]
async fn class_7_valid_code_behaves_as_the_plain_function() {
    assert_eq!(
        text(
            names_like_generated_ones,
            json!({}),
            &[number(1), number(2)]
        )
        .await,
        "11 20 30 2"
    );
    assert_eq!(
        text(drop_type_read_by_field, json!({}), &[number(1)]).await,
        "ada ada@x 1"
    );
    assert_eq!(
        text(fields_through_an_arc, json!({}), &[number(1)]).await,
        "left right 1"
    );
    assert_eq!(
        text(
            closure_param_named_like_a_kept_field_value,
            json!({}),
            &[number(1)]
        )
        .await,
        "c a [2] 1"
    );
}

// ---------------------------------------------------------------- issue 25. kept values round-trip

/// A name that its `Deserialize` trims: it does not come back as it was kept.
#[derive(serde::Serialize)]
struct Trimmed(String);

impl<'de> serde::Deserialize<'de> for Trimmed {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Trimmed(
            String::deserialize(deserializer)?.trim().to_owned(),
        ))
    }
}

#[mrtr::tool]
async fn keeps_a_lossy_value() -> Result<String, ToolError> {
    let label = Trimmed(String::from("  ada  "));
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("[{}] {n}", label.0))
}

/// The harness encodes every restored kept value again and fails, naming it, when the bytes
/// differ: the plain function would print `[  ada  ]`, the machine `[ada]`.
#[tokio::test]
#[should_panic(expected = "kept value `label` does not come back as it was kept")]
async fn the_harness_refuses_a_kept_value_that_does_not_round_trip() {
    let _ = text(keeps_a_lossy_value, json!({}), &[number(1)]).await;
}

/// A value that round-trips passes the same check.
#[tokio::test]
async fn the_round_trip_check_passes_values_that_come_back_exactly() {
    assert_eq!(
        text(moved_and_kept_as_it_is, json!({}), &[number(2)]).await,
        "[  ada  ] {\"a\": 1, \"b\": 2} 2"
    );
}

#[mrtr::tool]
async fn moved_and_kept_as_it_is() -> Result<String, ToolError> {
    let label = String::from("  ada  ");
    let map: std::collections::BTreeMap<String, i64> = [("a".to_owned(), 1), ("b".to_owned(), 2)]
        .into_iter()
        .collect();
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    Ok(format!("[{label}] {map:?} {n}"))
}

/// A value moved before an ask and given a new value after it: the old one is gone, nothing
/// of it is kept, and the new one is used (and kept across the next ask).
#[mrtr::tool]
async fn moved_then_assigned_again() -> Result<String, ToolError> {
    let mut name = String::from("ada");
    let taken = name;
    let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
    name = format!("{taken}{n}");
    let m = ask!(elicit::form::<Number>("m?")).accepted()?.value;
    name.push_str(&m.to_string());
    Ok(name)
}

#[tokio::test]
async fn a_value_moved_before_an_ask_can_be_assigned_again_after_it() {
    assert_eq!(
        text(
            moved_then_assigned_again,
            json!({}),
            &[number(1), number(2)]
        )
        .await,
        "ada12"
    );
}

/// The annotation of a `let` whose value comes from a construct that asks is the type of the
/// value, as in the source: arms that coerce to it (a boxed closure, two fn items).
#[mrtr::tool]
async fn annotated_construct_that_asks(args: Flag) -> Result<String, ToolError> {
    fn double(x: i64) -> i64 {
        x * 2
    }
    fn triple(x: i64) -> i64 {
        x * 3
    }
    let f: Box<dyn Fn(i64) -> i64 + Send> = if args.flag {
        let n = ask!(elicit::form::<Number>("n?")).accepted()?.value;
        Box::new(move |x| x + n)
    } else {
        Box::new(|x| x - 1)
    };
    let first = f(10);
    let g: fn(i64) -> i64 = if args.flag {
        let _m = ask!(elicit::form::<Number>("m?")).accepted()?.value;
        double
    } else {
        triple
    };
    Ok(format!("{first} {}", g(10)))
}

#[tokio::test]
async fn an_annotated_let_keeps_its_type_for_the_arms_of_a_construct_that_asks() {
    assert_eq!(
        text(
            annotated_construct_that_asks,
            json!({ "flag": true }),
            &[number(5), number(0)]
        )
        .await,
        "15 20"
    );
    assert_eq!(
        text(annotated_construct_that_asks, json!({ "flag": false }), &[]).await,
        "9 30"
    );
}

// ---------------------------------------------------------------- issue 25. moved, then assigned again

/// `v = ask!(..)` gives a moved-out-of `v` a new value: the machine must not keep the old one
/// across the ask (FINDINGS 13, seed 5000 case 4).
#[mrtr::tool]
async fn moved_then_assigned_an_answer() -> Result<String, ToolError> {
    let mut first = String::from("a");
    let taken = first;
    first = ask!(elicit::form::<Number>("n?"))
        .accepted()?
        .value
        .to_string();
    let mut numbers = vec![1, 2];
    let mut sum = 0;
    for n in numbers {
        sum += n;
    }
    numbers = ask!(elicit::form::<Number>("m?"))
        .ok()
        .map_or(Vec::new(), |m| vec![m.value]);
    Ok(format!("{taken} {first} {sum} {numbers:?}"))
}

/// A value moved, then an ask, then a new value that nothing reads, inside an arm and a loop
/// (FINDINGS 15, seeds 5000 cases 95 and 108, 5002, 5003).
#[mrtr::tool]
#[allow(unused_assignments)]
async fn moved_then_assigned_after_an_ask(args: Flag) -> Result<String, ToolError> {
    let mut out = Vec::new();
    if args.flag {
        let mut word = String::from("a");
        out.push(word);
        ask!(word_ask = elicit::form::<Number>("n?"));
        word = String::from("b");
    }
    for round in 0..2 {
        let mut label = format!("r{round}");
        out.push(label);
        let Answer::Accept(number) = ask!(label_ask = elicit::form::<Number>("m?")) else {
            continue;
        };
        label = format!("n{}", number.value);
        out.push(label);
    }
    let mut last = String::from("x");
    out.push(last);
    let Answer::Accept(_) = ask!(last_ask = elicit::form::<Number>("k?")) else {
        return Ok(out.join(" "));
    };
    last = String::from("y");
    out.push(last);
    Ok(out.join(" "))
}

/// `let x: T;` given its value by an ask: nothing to keep (it was refused as a value declared
/// without one and kept). Without the type it is refused
/// (tests/ui/tool/uninitialized_across_ask.rs).
#[mrtr::tool]
async fn declared_then_given_an_answer() -> Result<String, ToolError> {
    let total: i64;
    total = ask!(total_ask = elicit::form::<Number>("n?"))
        .accepted()?
        .value;
    Ok(total.to_string())
}

/// The other side: a `continue` before the assignment goes where the old value is still
/// read, so the machine keeps it.
#[mrtr::tool]
async fn assigned_after_a_continue_that_needs_it() -> Result<String, ToolError> {
    let mut latest = String::from("none");
    for _ in 0..3 {
        let Answer::Accept(number) = ask!(latest_ask = elicit::form::<Number>("n?")) else {
            continue;
        };
        latest = number.value.to_string();
    }
    Ok(latest)
}

#[tokio::test]
async fn a_moved_value_may_be_assigned_again_after_an_ask() {
    assert_eq!(
        text(
            moved_then_assigned_an_answer,
            json!({}),
            &[number(4), number(7)]
        )
        .await,
        "a 4 3 [7]"
    );
    assert_eq!(
        text(
            moved_then_assigned_after_an_ask,
            json!({ "flag": true }),
            &[number(0), number(5), answer::decline(), number(1)]
        )
        .await,
        "a r0 n5 r1 x y"
    );
    assert_eq!(
        text(
            moved_then_assigned_after_an_ask,
            json!({ "flag": false }),
            &[number(1), number(2), answer::decline()]
        )
        .await,
        "r0 n1 r1 n2 x"
    );
    assert_eq!(
        text(declared_then_given_an_answer, json!({}), &[number(6)]).await,
        "6"
    );
    assert_eq!(
        text(
            assigned_after_a_continue_that_needs_it,
            json!({}),
            &[number(1), number(2), answer::decline()]
        )
        .await,
        "2"
    );
}

// ---------------------------------------------------------------- issue 25. put away in a loop's arm

/// A kept value put away before a `match` in a loop that asks, one arm of which hides its name:
/// the loop body's end put it away again from a binding already moved (E0382 at the `let`,
/// differential seed 8014). Also a closure parameter of that name in the scrutinee, which
/// needs no saving at all.
#[mrtr::tool]
async fn put_away_in_a_loop_arm() -> Result<String, ToolError> {
    let first = ask!(elicit::form::<Number>("first?")).accepted()?.value;
    let name = format!("n{first}");
    let mut seen = Vec::new();
    let mut queue = vec![0i64, 3, 7];
    while let Some(a) = queue.pop() {
        let step: String = match [a].iter().map(|name: &i64| name + 1).sum::<i64>() {
            1 => format!("{name}:{a}"),
            2..=4 => {
                let more = ask!(more = elicit::form::<Number>("more?"))
                    .accepted()?
                    .value;
                seen.push(format!("{name}+{more}"));
                break;
            }
            _ => {
                let name = a * 2;
                name.to_string()
            }
        };
        seen.push(step);
    }
    Ok(format!("{name} {seen:?}"))
}

#[mrtr::tool]
async fn closure_parameter_in_a_loop_scrutinee() -> Result<String, ToolError> {
    let first = ask!(elicit::form::<Number>("first?")).accepted()?.value;
    let name = format!("n{first}");
    let mut seen = Vec::new();
    let mut queue = vec![0i64, 7];
    while let Some(a) = queue.pop() {
        let step: String = match [a].iter().map(|name: &i64| name + 1).sum::<i64>() {
            1 => {
                let more = ask!(more = elicit::form::<Number>("more?"))
                    .accepted()?
                    .value;
                format!("{name}+{more}")
            }
            _ => format!("{name}:{a}"),
        };
        seen.push(step);
    }
    Ok(format!("{name} {seen:?}"))
}

#[tokio::test]
async fn a_value_put_away_in_a_loop_arm_comes_back() {
    assert_eq!(
        text(put_away_in_a_loop_arm, json!({}), &[number(1), number(5)]).await,
        "n1 [\"14\", \"n1+5\"]"
    );
    assert_eq!(
        text(
            closure_parameter_in_a_loop_scrutinee,
            json!({}),
            &[number(2), number(9)]
        )
        .await,
        "n2 [\"n2:7\", \"n2+9\"]"
    );
}

/// Moved away after an `if` whose asking arm returns, then hidden by a `let` in a later arm
/// that asks (FINDINGS 18): the code after the `if` shares its block with the resume point
/// that reads the value, so the value counted as needed and was put away again, from a
/// binding already moved (E0382). What the code from the `let` on needs decides now.
#[mrtr::tool]
async fn moved_after_a_returning_arm(args: Flag) -> Result<String, ToolError> {
    let word = String::from("w");
    let length: usize = if args.flag {
        let early = ask!(early = elicit::form::<Number>("early?"))
            .accepted()?
            .value;
        return Ok(format!("{word} {early}"));
    } else {
        word.len()
    };
    let kept = word;
    if !args.flag {
        let word = 2;
        let more = ask!(more = elicit::form::<Number>("more?"))
            .accepted()?
            .value;
        return Ok(format!("{kept} {length} {word} {more}"));
    }
    Ok(kept)
}

/// The arm that re-binds the name forgets the outer value (nothing after it reads it): the code
/// after the `if` must not take it back from a slot it was never put in (found while
/// narrowing the saves above: "kept value is missing" at run time).
#[mrtr::tool]
async fn forgotten_in_one_arm() -> Result<String, ToolError> {
    let mut seen = Vec::new();
    let mut round = 0;
    loop {
        round += 1;
        if round > 2 {
            break;
        }
        let word: i64 = round - 1;
        if ask!(go = elicit::form::<Number>("go?")).is_accepted() {
            seen.push(format!("w{word}"));
            let word: i64 = word + 1;
            seen.push(word.to_string());
        } else {
            seen.push(String::from("no"));
        }
    }
    Ok(seen.join(" "))
}

#[tokio::test]
async fn a_value_forgotten_in_one_arm_is_not_taken_back() {
    assert_eq!(
        text(
            forgotten_in_one_arm,
            json!({}),
            &[answer::decline(), number(1)]
        )
        .await,
        "no w1 2"
    );
}

#[tokio::test]
async fn a_value_moved_after_a_returning_arm_is_not_put_away_again() {
    assert_eq!(
        text(
            moved_after_a_returning_arm,
            json!({ "flag": false }),
            &[number(4)]
        )
        .await,
        "w 1 2 4"
    );
    assert_eq!(
        text(
            moved_after_a_returning_arm,
            json!({ "flag": true }),
            &[number(3)]
        )
        .await,
        "w 3"
    );
}

// ---------------------------------------------------------------- issue 25. a borrow across a join

/// Every arm that asks returns after its ask: the code after the `if` is reached only from
/// where the `if` started, so it stays in that step and `first` (a borrow of `names` made by
/// a method call, which the attribute cannot see) never crosses one.
#[mrtr::tool]
async fn first_name(args: Flag) -> Result<String, ToolError> {
    let names = [String::from("ada"), String::from("alan")];
    let first = names.first();
    if args.flag {
        let name = ask!(elicit::form::<Number>("Name?"));
        let _ = name;
        return Ok(String::new());
    }
    Ok(format!("{first:?}"))
}

/// The same with borrows the attribute sees: in a loop that asks, a `match` whose asking arm
/// goes on with the next round; then an `if` whose value is used.
#[mrtr::tool]
async fn borrows_across_diverging_arms(args: Flag) -> Result<String, ToolError> {
    let greeting = String::from("hello");
    let mut seen = Vec::new();
    for round in 0..2 {
        let letter: &str = &greeting[round..round + 1];
        match args.flag {
            true => {
                let Answer::Accept(number) = ask!(number = elicit::form::<Number>("n?")) else {
                    return Ok(String::from("declined"));
                };
                seen.push(number.value.to_string());
                continue;
            }
            false => {}
        }
        seen.push(letter.to_owned());
    }
    let short: &str = &greeting[..2];
    let length = if args.flag {
        let last = ask!(elicit::form::<Number>("last?"));
        return Ok(format!("{seen:?} {}", last.accepted().is_ok()));
    } else {
        short.len()
    };
    Ok(format!("{short} {length} {seen:?}"))
}

/// A kept value an arm hides is put away before the construct: going on in place, it is
/// taken back.
#[mrtr::tool]
async fn kept_value_hidden_by_a_diverging_arm(args: Flag) -> Result<String, ToolError> {
    let word = String::from("w");
    if args.flag {
        let word = ask!(elicit::form::<Number>("n?"));
        return Ok(format!("{}", word.accepted().is_ok()));
    }
    let copy = word.clone();
    let more = ask!(elicit::form::<Number>("m?"));
    Ok(format!("{word} {copy} {}", more.accepted().is_ok()))
}

/// The same value borrowed across that construct (FINDINGS 17): the arm that hides `word`
/// returns, so nothing is put away before the `if` and `initial` still borrows `word` after
/// it. Putting `word` away before the `if` moved it while borrowed (E0505 at its `let`).
#[mrtr::tool]
async fn borrowed_value_hidden_by_a_diverging_arm(args: Flag) -> Result<String, ToolError> {
    let word = String::from("west");
    let initial = word.get(..1);
    if args.flag {
        let word = ask!(elicit::form::<Number>("n?"));
        return Ok(format!("{}", word.accepted().is_ok()));
    }
    let seen = format!("{initial:?}");
    let more = ask!(elicit::form::<Number>("m?"));
    Ok(format!("{word} {seen} {}", more.accepted()?.value))
}

/// A moved value assigned again after such a construct: the arm's ask does not need the old
/// value, so it is not kept across the ask before.
#[mrtr::tool]
#[allow(unused_assignments)]
async fn moved_then_assigned_after_a_diverging_arm(args: Flag) -> Result<String, ToolError> {
    let mut word = String::from("a");
    let taken = word;
    let first = ask!(elicit::form::<Number>("n?"));
    if args.flag {
        let again = ask!(elicit::form::<Number>("m?"));
        return Ok(format!("{taken} {}", again.accepted().is_ok()));
    }
    word = String::from("b");
    Ok(format!("{taken} {word} {}", first.accepted().is_ok()))
}

#[tokio::test]
async fn a_borrow_stays_in_its_step_when_every_arm_that_asks_diverges() {
    assert_eq!(
        text(
            borrowed_value_hidden_by_a_diverging_arm,
            json!({ "flag": false }),
            &[number(7)]
        )
        .await,
        "west Some(\"w\") 7"
    );
    assert_eq!(
        text(
            borrowed_value_hidden_by_a_diverging_arm,
            json!({ "flag": true }),
            &[number(1)]
        )
        .await,
        "true"
    );
    assert_eq!(
        text(
            kept_value_hidden_by_a_diverging_arm,
            json!({ "flag": false }),
            &[number(1)]
        )
        .await,
        "w w true"
    );
    assert_eq!(
        text(
            kept_value_hidden_by_a_diverging_arm,
            json!({ "flag": true }),
            &[number(1)]
        )
        .await,
        "true"
    );
    assert_eq!(
        text(
            moved_then_assigned_after_a_diverging_arm,
            json!({ "flag": false }),
            &[number(1)]
        )
        .await,
        "a b true"
    );
    assert_eq!(
        text(
            moved_then_assigned_after_a_diverging_arm,
            json!({ "flag": true }),
            &[number(1), answer::decline()]
        )
        .await,
        "a false"
    );
    assert_eq!(
        text(first_name, json!({ "flag": false }), &[]).await,
        "Some(\"ada\")"
    );
    assert_eq!(
        text(first_name, json!({ "flag": true }), &[number(1)]).await,
        ""
    );
    assert_eq!(
        text(borrows_across_diverging_arms, json!({ "flag": false }), &[]).await,
        "he 2 [\"h\", \"e\"]"
    );
    assert_eq!(
        text(
            borrows_across_diverging_arms,
            json!({ "flag": true }),
            &[number(1), number(2), answer::decline()]
        )
        .await,
        "[\"1\", \"2\"] false"
    );
}

// ---------------------------------------------------------------- issue 25. nested fields, arms

/// A field of a field moved out of a value declared inside an arm of a construct that asks
/// (FINDINGS 21): the move before the arm's ask is seen as one, so the value is kept field by
/// field (was: kept whole, "`Order` cannot be kept").
#[mrtr::tool]
async fn nested_partly_moved_in_an_arm(args: Flag) -> Result<String, ToolError> {
    let greeting = if args.flag {
        let order = Order {
            customer: person(),
            tag: "gift".to_owned(),
        };
        let name = order.customer.name;
        let visits = ask!(visits = elicit::form::<Number>("Visits?"))
            .accepted()?
            .value;
        format!("{name} {} {} {visits}", order.customer.email, order.tag)
    } else {
        String::from("none")
    };
    Ok(greeting)
}

/// Inside an arm, a value put away around an inner construct (an arm of it hides the name)
/// is taken back into a local of the arm (FINDINGS 23). That local ends with the arm, so the
/// arm puts the value away again at its end, though every arm holds it (was: E0382, the code
/// after the outer `if` read the value that had gone into its slot).
#[mrtr::tool]
async fn taken_back_inside_an_arm(args: Flag) -> Result<String, ToolError> {
    let words = vec![String::from("a"), String::from("b")];
    let total = if words.len() > 1 {
        let inner = if args.flag {
            let words = 10;
            words
        } else {
            let n = ask!(n = elicit::form::<Number>("n?")).accepted()?.value;
            return Ok(format!("early {n}"));
        };
        inner + 1
    } else {
        0
    };
    let last = ask!(last = elicit::form::<Number>("Last?"))
        .accepted()?
        .value;
    Ok(format!("{words:?} {total} {last}"))
}

/// A value put away before a construct (an arm hides its name) and read next by the question
/// of an ask (FINDINGS 24): what the questions read counts as read by the code after the
/// construct, so it is taken back (was: E0382, the question read it from under its slot).
#[mrtr::tool]
async fn read_by_the_next_question(args: Count) -> Result<String, ToolError> {
    let topic = String::from("tea");
    let total = match args.count {
        0 => {
            let topic = 3;
            topic * 2
        }
        1 => {
            let n = ask!(n = elicit::form::<Number>("n?")).accepted()?.value;
            return Ok(format!("{topic} {n}"));
        }
        _ => 0,
    };
    let last = ask!(last = elicit::form::<Number>(format!("More {topic}?")))
        .accepted()?
        .value;
    Ok(format!("{total} {last}"))
}

/// A partly moved value whose name other bindings of the body also have (FINDINGS 22): an
/// earlier `p`, one in a block, one in an arm that asks. Field reads are matched to the
/// binding the lowering resolved, so it is kept field by field (was: kept whole, E0382).
#[mrtr::tool]
async fn partly_moved_namesakes(args: Flag) -> Result<String, ToolError> {
    let p = 5;
    let first = {
        let p = p + 1;
        p * 2
    };
    let p = person();
    let name = p.name;
    let visits = if args.flag {
        let p = ask!(p = elicit::form::<Number>("p?")).accepted()?.value;
        p
    } else {
        0
    };
    let more = ask!(more = elicit::form::<Number>(format!("More for {}?", p.email)))
        .accepted()?
        .value;
    Ok(format!("{first} {name} {} {visits} {more}", p.email))
}

/// The same where the namesake is declared in code kept as written (the rest of an arm after
/// its last ask): `let p = ..p.visits..;` reads the partly moved value, then hides it.
#[mrtr::tool]
async fn partly_moved_then_hidden_in_an_arm(args: Flag) -> Result<String, ToolError> {
    let mut seen = String::from("none");
    if args.flag {
        let p = person();
        let name = p.name;
        ask!(extra = elicit::form::<Number>("Extra?"));
        #[allow(unused_variables)]
        let p = {
            seen.push_str(&format!(" {name} {}", p.visits));
            seen.len()
        };
    }
    Ok(seen)
}

/// A partly moved value read by code that also declares other bindings of its name, in a
/// `match` arm and a `for` pattern (FINDINGS 26): the lowering records each read of the
/// binding it resolved, so the namesakes' reads are theirs (was: kept whole, "cannot be kept").
#[mrtr::tool]
async fn partly_moved_namesakes_in_patterns() -> Result<String, ToolError> {
    let p = person();
    let name = p.name;
    let extra = ask!(extra = elicit::form::<Number>("Extra?"))
        .accepted()?
        .value;
    let mut seen = format!("{name} {extra}");
    let total = match p.visits {
        0 => 0,
        p => p + 1,
    };
    for p in [p.email.len(), 2] {
        seen.push_str(&format!(" {p}"));
    }
    Ok(format!("{seen} {total}"))
}

/// A partly moved value given a whole new value after a later ask (FINDINGS 25, the half that
/// works): the block that assigns it reads nothing of the old value, so the machine declares
/// it there without one, and the value is kept field by field before and after (was: kept
/// whole, "cannot be kept"). Assigned where the split value came back, it stays refused by
/// rustc (tests/ui/tool/partly_moved_then_assigned_whole.rs).
#[mrtr::tool]
async fn partly_moved_then_assigned_afresh() -> Result<String, ToolError> {
    let mut p = person();
    let name = p.name;
    let first = ask!(first = elicit::form::<Number>("First?"))
        .accepted()?
        .value;
    let visits = p.visits;
    let second = ask!(second = elicit::form::<Number>("Second?"))
        .accepted()?
        .value;
    p = Person {
        name: name.clone(),
        email: String::from("new@example.com"),
        visits: 9,
        notes: Vec::new(),
    };
    let third = ask!(third = elicit::form::<Number>(format!("Third for {}?", p.email)))
        .accepted()?
        .value;
    Ok(format!(
        "{name} {visits} {first} {second} {} {} {third}",
        p.email, p.visits
    ))
}

#[tokio::test]
async fn a_partly_moved_value_keeps_its_split_beside_namesakes_and_a_fresh_assignment() {
    assert_eq!(
        text(
            partly_moved_then_assigned_afresh,
            json!({}),
            &[number(1), number(2), number(3)]
        )
        .await,
        "Ada 1 1 2 new@example.com 9 3"
    );
    assert_eq!(
        text(partly_moved_namesakes_in_patterns, json!({}), &[number(4)]).await,
        "Ada 4 15 2 2"
    );
    assert_eq!(
        text(
            partly_moved_then_hidden_in_an_arm,
            json!({ "flag": true }),
            &[number(2)]
        )
        .await,
        "none Ada 1"
    );
    assert_eq!(
        text(
            partly_moved_namesakes,
            json!({ "flag": true }),
            &[number(3), number(4)]
        )
        .await,
        "12 Ada ada@example.com 3 4"
    );
    assert_eq!(
        text(
            partly_moved_namesakes,
            json!({ "flag": false }),
            &[number(4)]
        )
        .await,
        "12 Ada ada@example.com 0 4"
    );
    let round = Harness::tool(partly_moved_namesakes)
        .call(json!({ "flag": true }))
        .await;
    assert_eq!(
        round.kept(),
        json!({ "p.email": "ada@example.com", "first": 12, "name": "Ada" })
    );
}

#[tokio::test]
async fn values_declared_or_taken_back_inside_arms_come_back_where_they_are_read() {
    assert_eq!(
        text(
            nested_partly_moved_in_an_arm,
            json!({ "flag": true }),
            &[number(4)]
        )
        .await,
        "Ada ada@example.com gift 4"
    );
    assert_eq!(
        text(nested_partly_moved_in_an_arm, json!({ "flag": false }), &[]).await,
        "none"
    );
    assert_eq!(
        text(
            taken_back_inside_an_arm,
            json!({ "flag": true }),
            &[number(7)]
        )
        .await,
        "[\"a\", \"b\"] 11 7"
    );
    assert_eq!(
        text(
            taken_back_inside_an_arm,
            json!({ "flag": false }),
            &[number(2)]
        )
        .await,
        "early 2"
    );
    assert_eq!(
        text(
            read_by_the_next_question,
            json!({ "count": 0 }),
            &[number(5)]
        )
        .await,
        "6 5"
    );
    assert_eq!(
        text(
            read_by_the_next_question,
            json!({ "count": 1 }),
            &[number(2)]
        )
        .await,
        "tea 2"
    );
    assert_eq!(
        text(
            read_by_the_next_question,
            json!({ "count": 2 }),
            &[number(5)]
        )
        .await,
        "0 5"
    );
    // The question carries the value taken back.
    let round = Harness::tool(read_by_the_next_question)
        .call(json!({ "count": 2 }))
        .await;
    assert_eq!(round.request("last").message(), "More tea?");
}
