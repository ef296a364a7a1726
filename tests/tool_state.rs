//! What a tool's `requestState` holds and when it is refused: only the live values, a
//! fingerprint that changes with the code, the round cap, and a large tool that still compiles.

mod support;

use mrtr::token::Mode;
use mrtr::{Form, Server, ToolError, elicit};
use serde_json::json;
use support::{Client, accept, hmac_payload};

#[derive(Form, Debug)]
struct Note {
    text: String,
}

/// Keeps `kept` across the first ask; `dropped` is dead by then; the answer of the first ask
/// is kept across the second.
#[mrtr::tool]
async fn journal() -> Result<String, ToolError> {
    let dropped = String::from("only needed before the first ask");
    let kept = vec![1u32, 2, 3];
    let _ = dropped.len();
    let first = ask!(elicit::form::<Note>("First note?")).accepted()?.text;
    let second = ask!(elicit::form::<Note>("Second note?")).accepted()?.text;
    Ok(format!("{kept:?} {first} {second}"))
}

mod v2 {
    use super::*;

    /// Same name, edited body: a deploy happened.
    #[mrtr::tool]
    pub async fn journal() -> Result<String, ToolError> {
        let first = ask!(elicit::form::<Note>("First note, please?"))
            .accepted()?
            .text;
        Ok(first)
    }
}

/// A loop that never converges, capped at two `input_required` rounds.
#[mrtr::tool(max_rounds = 2, name = "forever", description = "Asks forever.")]
async fn endless() -> Result<String, ToolError> {
    loop {
        let note = ask!(elicit::form::<Note>("Again?"));
        let _ = note;
    }
}

fn server(mode: Mode) -> Server {
    Server::builder("state", "1.0.0")
        .key_ring(support::ring(3))
        .mode(mode)
        .tool(journal)
        .tool(endless)
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_state_holds_only_the_live_values() {
    let client = Client::new(server(Mode::Hmac));
    let round1 = client.call("journal", json!({}), None, None).await;
    let payload = hmac_payload(&round1.state());
    let kept = mrtr::__private::frame_as_json(&payload["f"]);
    assert_eq!(kept, json!({"kept": [1, 2, 3]}), "{payload}");
    assert!(
        !payload.to_string().contains("only needed before"),
        "{payload}"
    );
    assert_eq!(
        payload["q"]["first"]["r"]["params"]["message"], "First note?",
        "the question travels with the state"
    );

    let round2 = client
        .call(
            "journal",
            json!({}),
            Some(json!({"first": accept(json!({"text": "a"}))})),
            Some(&round1.state()),
        )
        .await;
    let payload = hmac_payload(&round2.state());
    assert_eq!(
        mrtr::__private::frame_as_json(&payload["f"]),
        json!({"kept": [1, 2, 3], "first": "a"}),
        "{payload}"
    );
    let round3 = client
        .call(
            "journal",
            json!({}),
            Some(json!({"second": accept(json!({"text": "b"}))})),
            Some(&round2.state()),
        )
        .await;
    assert_eq!(round3.text(), "[1, 2, 3] a b");
}

#[tokio::test]
async fn a_state_minted_by_other_code_is_refused() {
    let old = Client::new(server(Mode::Aead));
    let deployed = Client::new(
        Server::builder("state", "1.0.0")
            .key_ring(support::ring(3))
            .tool(v2::journal)
            .build()
            .unwrap(),
    );
    let round1 = old.call("journal", json!({}), None, None).await;
    let retry = deployed
        .call(
            "journal",
            json!({}),
            Some(json!({"first": accept(json!({"text": "a"}))})),
            Some(&round1.state()),
        )
        .await;
    assert_eq!(retry.error_code(), -32602);
    assert_eq!(retry.0["error"]["message"], "invalid requestState");
}

#[tokio::test]
async fn the_round_cap_comes_from_the_attribute() {
    let client = Client::new(server(Mode::Aead));
    let list = client.server.handle(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .any(|tool| tool["name"] == "forever" && tool["description"] == "Asks forever.")
    );
    let listed = tools.iter().find(|tool| tool["name"] == "journal").unwrap();
    assert_eq!(
        listed["description"],
        "Keeps `kept` across the first ask; `dropped` is dead by then; the answer of the first ask\nis kept across the second."
    );
    assert_eq!(
        listed["inputSchema"],
        json!({"type": "object", "properties": {}})
    );

    let mut reply = client.call("forever", json!({}), None, None).await;
    let answer = json!({"note": accept(json!({"text": "x"}))});
    reply = client
        .call(
            "forever",
            json!({}),
            Some(answer.clone()),
            Some(&reply.state()),
        )
        .await;
    assert!(reply.is_input_required());
    let capped = client
        .call("forever", json!({}), Some(answer), Some(&reply.state()))
        .await;
    assert!(capped.is_error());
    assert!(capped.text().contains("more than 2 rounds"));
}
