//! `#[mrtr::prompt]` and `#[mrtr::resource]`: multi-round `prompts/get` and `resources/read`
//! through `Server::handle`, their listings, refused states and round caps; completions, also
//! through rmcp's client.

mod support;

use mrtr::{
    Completion, CompletionRequest, CompletionTarget, Form, PromptMessage, ResourceContents, Server,
    ToolError, elicit,
};
use serde_json::{Value, json};
use support::accept;

#[derive(Form, Debug)]
struct Topic {
    topic: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ReviewArgs {
    /// The language of the code under review
    language: String,
    /// How strict to be
    strictness: Option<String>,
}

/// A code review prompt that asks what to focus on.
#[mrtr::prompt(max_rounds = 2)]
async fn review(args: ReviewArgs) -> Result<Vec<PromptMessage>, ToolError> {
    let mut focus = ask!(elicit::form::<Topic>("What should the review focus on?"))
        .accepted()?
        .topic;
    while focus == "again" {
        focus = ask!(elicit::form::<Topic>("Something else?"))
            .accepted()?
            .topic;
    }
    let strictness = args.strictness.unwrap_or_else(|| "normal".into());
    Ok(vec![
        PromptMessage::user(format!(
            "Review this {} code, focusing on {focus} ({strictness}).",
            args.language
        )),
        PromptMessage::assistant("Paste the code."),
    ])
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoteArgs {
    owner: String,
    id: String,
}

/// Private notes, read after saying why.
#[mrtr::resource(
    uri = "notes://{owner}/{id}",
    mime_type = "text/plain",
    ttl_ms = 5000,
    cache_scope = "public",
    max_rounds = 2
)]
async fn note(args: NoteArgs) -> Result<ResourceContents, ToolError> {
    if args.owner == "public" {
        return Ok(
            ResourceContents::text(format!("public note {}", args.id)).mime_type("text/plain")
        );
    }
    let mut reason = ask!(elicit::form::<Topic>("Why do you need this note?"))
        .accepted()?
        .topic;
    while reason == "again" {
        reason = ask!(elicit::form::<Topic>("Really?")).accepted()?.topic;
    }
    Ok(ResourceContents::text(format!(
        "note {} of {} (read for {reason})",
        args.id, args.owner
    ))
    .mime_type("text/plain"))
}

/// The notes' read-me: one fixed URI.
#[mrtr::resource(uri = "notes://readme", mime_type = "text/markdown")]
async fn readme() -> Result<String, ToolError> {
    Ok("# Notes".to_owned())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NamedArgs {
    name: String,
}

/// Any note by its name (a template that also matches `notes://readme`).
#[mrtr::resource(uri = "notes://{name}", mime_type = "text/plain")]
async fn named(args: NamedArgs) -> Result<String, ToolError> {
    Ok(format!("note {}", args.name))
}

/// Another prompt, to replay states against.
#[mrtr::prompt]
async fn other() -> Result<String, ToolError> {
    let topic = ask!(elicit::form::<Topic>("Topic?")).accepted()?.topic;
    Ok(topic)
}

fn server() -> Server {
    Server::builder("prompts", "1.0.0")
        .key_ring(support::ring(5))
        .prompt(review)
        .prompt(other)
        .resource(note)
        .build()
        .unwrap()
}

async fn send(server: &Server, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    // A round that never finishes fails the test instead of hanging it.
    tokio::time::timeout(std::time::Duration::from_secs(60), server.handle(request))
        .await
        .expect("the server answered within 60 s")
}

#[tokio::test]
async fn a_declined_prompt_question_is_a_clear_error_with_the_authors_message() {
    let server = server();
    let args = json!({"name": "review", "arguments": {"language": "Rust"}});
    let round1 = send(&server, "prompts/get", args.clone()).await;
    let mut retry = args;
    retry["inputResponses"] = json!({"focus": {"action": "decline"}});
    retry["requestState"] = round1["result"]["requestState"].clone();
    let declined = send(&server, "prompts/get", retry).await;
    assert_eq!(declined["error"]["code"], -32000, "{declined}");
    assert_eq!(
        declined["error"]["message"],
        "the user declined the request"
    );
}

fn topic(text: &str) -> Value {
    accept(json!({"topic": text}))
}

#[tokio::test]
async fn prompts_and_templates_are_listed() {
    let server = server();
    let prompts = send(&server, "prompts/list", json!({})).await;
    let review_entry = prompts["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "review")
        .unwrap()
        .clone();
    assert_eq!(
        review_entry["description"],
        "A code review prompt that asks what to focus on."
    );
    assert_eq!(
        review_entry["arguments"],
        json!([
            {"name": "language", "required": true, "description": "The language of the code under review"},
            {"name": "strictness", "required": false, "description": "How strict to be"}
        ])
    );
    assert_eq!(prompts["result"]["ttlMs"], 60000);
    let templates = send(&server, "resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"],
        json!([{"uriTemplate": "notes://{owner}/{id}", "name": "note", "description": "Private notes, read after saying why.", "mimeType": "text/plain"}])
    );
    assert_eq!(templates["result"]["cacheScope"], "public");
}

#[tokio::test]
async fn a_uri_without_expressions_is_a_listed_resource_and_an_unknown_uri_is_named() {
    let server = Server::builder("notes", "1.0.0")
        .key_ring(support::ring(5))
        .resource(note)
        .resource(named)
        .resource(readme)
        .build()
        .unwrap();
    let resources = send(&server, "resources/list", json!({})).await;
    assert_eq!(
        resources["result"]["resources"],
        json!([{"uri": "notes://readme", "name": "readme", "description": "The notes' read-me: one fixed URI.", "mimeType": "text/markdown"}]),
        "{resources}"
    );
    let templates = send(&server, "resources/templates/list", json!({})).await;
    let listed: Vec<&Value> = templates["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|template| &template["uriTemplate"])
        .collect();
    assert_eq!(
        listed,
        [&json!("notes://{owner}/{id}"), &json!("notes://{name}")]
    );
    let read = send(&server, "resources/read", json!({"uri": "notes://readme"})).await;
    assert_eq!(read["result"]["contents"][0]["text"], "# Notes", "{read}");
    assert_eq!(read["result"]["contents"][0]["uri"], "notes://readme");
    // The function returns a `String`: the attribute's MIME type is the contents'.
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/markdown");
    // The listed resource wins over the template registered before it; other names are the
    // template's.
    let other = send(&server, "resources/read", json!({"uri": "notes://todo"})).await;
    assert_eq!(
        other["result"]["contents"][0]["text"], "note todo",
        "{other}"
    );
    assert_eq!(other["result"]["contents"][0]["mimeType"], "text/plain");
    // A URI no resource matches: invalid params, naming the URI (SEP-2164).
    let missing = send(&server, "resources/read", json!({"uri": "files://gone"})).await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["data"], json!({"uri": "files://gone"}));
}

#[tokio::test]
async fn the_server_describes_what_is_registered_in_typed_form_and_on_the_wire() {
    let server = server();
    assert_eq!(
        (server.info().name.as_str(), server.info().version.as_str()),
        ("prompts", "1.0.0")
    );
    assert_eq!(server.tools().len(), 0);
    let prompts: Vec<&str> = server.prompts().map(|p| p.name.as_str()).collect();
    assert_eq!(prompts, ["review", "other"]);
    let templates: Vec<&str> = server
        .resource_templates()
        .map(|r| r.uri_template.as_str())
        .collect();
    assert_eq!(templates, ["notes://{owner}/{id}"]);
    // Discovery declares exactly what is registered, and a method of an undeclared
    // capability is unknown.
    let discover = send(&server, "server/discover", json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"],
        json!({"prompts": {}, "resources": {}})
    );
    assert_eq!(
        discover["result"]["serverInfo"],
        json!({"name": "prompts", "version": "1.0.0"})
    );
    let tools = send(&server, "tools/list", json!({})).await;
    assert_eq!(tools["error"]["code"], -32601, "{tools}");
}

#[tokio::test]
async fn a_multi_round_prompt() {
    let server = server();
    let args = json!({"name": "review", "arguments": {"language": "Rust"}});
    let round1 = send(&server, "prompts/get", args.clone()).await;
    assert_eq!(round1["result"]["resultType"], "input_required");
    assert_eq!(
        round1["result"]["inputRequests"]["focus"]["params"]["message"],
        "What should the review focus on?"
    );
    let mut retry = args.clone();
    retry["inputResponses"] = json!({"focus": topic("errors")});
    retry["requestState"] = round1["result"]["requestState"].clone();
    let round2 = send(&server, "prompts/get", retry).await;
    assert_eq!(round2["result"]["resultType"], "complete");
    assert_eq!(
        round2["result"]["messages"][0],
        json!({"role": "user", "content": {"type": "text", "text": "Review this Rust code, focusing on errors (normal)."}})
    );
    assert_eq!(round2["result"]["messages"][1]["role"], "assistant");
}

#[tokio::test]
async fn a_multi_round_resource_read_is_not_cacheable() {
    let server = server();
    let public = send(
        &server,
        "resources/read",
        json!({"uri": "notes://public/7"}),
    )
    .await;
    assert_eq!(
        public["result"]["contents"],
        json!([{"uri": "notes://public/7", "text": "public note 7", "mimeType": "text/plain"}])
    );
    assert_eq!(
        (
            public["result"]["ttlMs"].clone(),
            public["result"]["cacheScope"].clone()
        ),
        (json!(5000), json!("public"))
    );

    let round1 = send(&server, "resources/read", json!({"uri": "notes://ann/42"})).await;
    assert_eq!(round1["result"]["resultType"], "input_required");
    assert!(round1["result"].get("ttlMs").is_none());
    let retry = json!({"uri": "notes://ann/42", "inputResponses": {"reason": topic("audit")}, "requestState": round1["result"]["requestState"]});
    let round2 = send(&server, "resources/read", retry).await;
    assert_eq!(
        round2["result"]["contents"][0]["text"],
        "note 42 of ann (read for audit)"
    );
    assert_eq!(
        (
            round2["result"]["ttlMs"].clone(),
            round2["result"]["cacheScope"].clone()
        ),
        (json!(0), json!("private"))
    );
}

#[tokio::test]
async fn tampered_and_replayed_states_are_refused() {
    let server = server();
    let round1 = send(
        &server,
        "prompts/get",
        json!({"name": "review", "arguments": {"language": "Rust"}}),
    )
    .await;
    let state = round1["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let cases = [
        (
            "prompts/get",
            json!({"name": "review", "arguments": {"language": "Rust"}, "requestState": format!("{state}x")}),
        ),
        (
            "prompts/get",
            json!({"name": "other", "requestState": state}),
        ),
        (
            "prompts/get",
            json!({"name": "review", "arguments": {"language": "Go"}, "requestState": state}),
        ),
    ];
    for (method, mut params) in cases {
        params["inputResponses"] = json!({"focus": topic("errors"), "topic": topic("x")});
        let response = send(&server, method, params.clone()).await;
        assert_eq!(response["error"]["code"], -32602, "{params}");
    }

    let read1 = send(&server, "resources/read", json!({"uri": "notes://ann/42"})).await;
    let state = read1["result"]["requestState"].clone();
    let other_uri = send(&server, "resources/read", json!({"uri": "notes://ann/43", "requestState": state, "inputResponses": {"reason": topic("x")}})).await;
    assert_eq!(other_uri["error"]["code"], -32602);
}

#[tokio::test]
async fn the_round_cap_of_a_prompt_and_a_resource_is_an_invalid_params_error() {
    let server = server();
    for (method, mut params) in [
        (
            "prompts/get",
            json!({"name": "review", "arguments": {"language": "Rust"}}),
        ),
        ("resources/read", json!({"uri": "notes://ann/1"})),
    ] {
        // Answer "again" to whatever is asked until the flow is stopped, counting the
        // `input_required` rounds: exactly the cap of 2.
        let mut response = send(&server, method, params.clone()).await;
        let mut rounds = 0;
        while let Some(requests) = response["result"]["inputRequests"].as_object() {
            rounds += 1;
            assert!(rounds <= 10, "{method}: no cap");
            let key = requests.keys().next().unwrap().clone();
            params["inputResponses"] = json!({key: topic("again")});
            params["requestState"] = response["result"]["requestState"].clone();
            response = send(&server, method, params.clone()).await;
        }
        assert_eq!(rounds, 2, "{method}: input_required rounds before the cap");
        assert_eq!(response["error"]["code"], -32602, "{method}: {response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains("more than 2 rounds")
        );
    }
}

#[test]
fn every_signature_diagnostic_has_a_compile_fail_case() {
    trybuild::TestCases::new().compile_fail("tests/ui/prompt_resource/*.rs");
}

/// Suggests languages for the review prompt, and note ids of the owner already chosen.
async fn suggest(request: CompletionRequest) -> Result<Completion, ToolError> {
    let candidates: Vec<String> = match (&request.target, request.argument.as_str()) {
        (CompletionTarget::Prompt(_), "language") => {
            vec!["Rust".into(), "Ruby".into(), "Go".into()]
        }
        (CompletionTarget::Resource(_), "id") => {
            let owner = request.context.get("owner").cloned().unwrap_or_default();
            vec![format!("{owner}-1"), format!("{owner}-2")]
        }
        (_, other) => return Err(ToolError::new(format!("nothing to suggest for {other}"))),
    };
    Ok(Completion::new(
        candidates
            .into_iter()
            .filter(|candidate| candidate.starts_with(&request.value)),
    ))
}

#[tokio::test]
async fn completions_answer_for_registered_prompts_and_templates() {
    let completing = Server::builder("completing", "1.0.0")
        .key_ring(support::ring(5))
        .prompt(review)
        .resource(note)
        .completion(suggest)
        .build()
        .unwrap();
    let discover = send(&completing, "server/discover", json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"],
        json!({"prompts": {}, "resources": {}, "completions": {}})
    );
    let complete = |reference: Value, argument: &str, value: &str, context: Value| {
        let params = json!({
            "ref": reference,
            "argument": {"name": argument, "value": value},
            "context": {"arguments": context},
        });
        send(&completing, "completion/complete", params)
    };
    let prompt = json!({"type": "ref/prompt", "name": "review"});
    let languages = complete(prompt.clone(), "language", "Ru", json!({})).await;
    assert_eq!(
        languages["result"]["completion"],
        json!({"values": ["Rust", "Ruby"]})
    );
    assert_eq!(languages["result"]["resultType"], "complete");
    let template = json!({"type": "ref/resource", "uri": "notes://{owner}/{id}"});
    let ids = complete(template, "id", "", json!({"owner": "ada"})).await;
    assert_eq!(
        ids["result"]["completion"]["values"],
        json!(["ada-1", "ada-2"])
    );

    let unknown = json!({"type": "ref/prompt", "name": "nope"});
    let refused = complete(unknown, "language", "", json!({})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let failed = complete(prompt, "strictness", "", json!({})).await;
    assert_eq!(failed["error"]["code"], -32000, "{failed}");
    assert_eq!(
        failed["error"]["message"],
        "nothing to suggest for strictness"
    );

    // Without a completer the method is unknown (and the capability undeclared, above).
    let params = json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": ""}});
    let unanswered = send(&server(), "completion/complete", params).await;
    assert_eq!(unanswered["error"]["code"], -32601, "{unanswered}");
}

/// Suggests names that start with the principal's own initial: what a completer does with
/// the principal it is given.
async fn own_names(request: CompletionRequest) -> Result<Completion, ToolError> {
    let principal = request.principal.unwrap_or_default();
    Ok(Completion::new([format!("{principal}-draft")]))
}

#[tokio::test]
async fn completion_runs_the_authorization_hook_and_sees_the_principal() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = std::sync::Arc::clone(&seen);
    let guarded = Server::builder("guarded", "1.0.0")
        .key_ring(support::ring(5))
        .prompt(review)
        .resource(note)
        .completion(own_names)
        .authorize(move |access: mrtr::Access<'_>| {
            record.lock().unwrap().push((
                access.method.to_owned(),
                access.target.to_owned(),
                access.arguments.clone(),
                access.principal.map(str::to_owned),
            ));
            match access.principal {
                Some("ada") => Ok(()),
                _ => Err(mrtr::Denied("only ada may complete".into())),
            }
        })
        .build()
        .unwrap();
    let params = json!({
        "ref": {"type": "ref/resource", "uri": "notes://{owner}/{id}"},
        "argument": {"name": "id", "value": ""},
        "context": {"arguments": {"owner": "ada"}},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}},
    });
    let allowed = guarded
        .handle_request("completion/complete", params.clone(), Some("ada"))
        .await
        .unwrap();
    assert_eq!(allowed["completion"]["values"], json!(["ada-draft"]));

    for intruder in [Some("mallory"), None] {
        let refused = guarded
            .handle_request("completion/complete", params.clone(), intruder)
            .await
            .expect_err("a denied completion is refused");
        assert_eq!(refused.code, -32602, "{refused:?}");
        assert!(refused.message.contains("only ada"), "{refused:?}");
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(
        seen[0],
        (
            "completion/complete".to_owned(),
            "notes://{owner}/{id}".to_owned(),
            json!({"owner": "ada"}),
            Some("ada".to_owned())
        )
    );
}

// ---------------------------------------------------------------- more values than one answer carries

const SUGGESTED: usize = 150;

/// More suggestions than one answer may carry, in a known order.
async fn too_many(request: CompletionRequest) -> Result<Completion, ToolError> {
    Ok(Completion::new(
        (0..SUGGESTED).map(|n| format!("{}{n:03}", request.value)),
    ))
}

fn suggesting_too_many() -> Server {
    Server::builder("suggesting", "1.0.0")
        .key_ring(support::ring(6))
        .prompt(review)
        .completion(too_many)
        .build()
        .unwrap()
}

/// The first `MAX_COMPLETION_VALUES` suggestions, in the completer's order.
fn the_first_hundred(prefix: &str) -> Vec<String> {
    (0..mrtr::MAX_COMPLETION_VALUES)
        .map(|n| format!("{prefix}{n:03}"))
        .collect()
}

#[tokio::test]
async fn a_completion_of_150_values_comes_back_cut_to_100_with_has_more_and_total() {
    let params = json!({
        "ref": {"type": "ref/prompt", "name": "review"},
        "argument": {"name": "language", "value": "lang-"},
    });
    let response = send(&suggesting_too_many(), "completion/complete", params).await;
    let completion = &response["result"]["completion"];
    assert_eq!(completion["values"], json!(the_first_hundred("lang-")));
    assert_eq!(completion["hasMore"], true, "{completion}");
    assert_eq!(completion["total"], SUGGESTED, "{completion}");
}

/// The same through rmcp's own client and mrtr's rmcp host, in both generations.
#[tokio::test]
async fn through_rmcp_a_completion_of_150_values_comes_back_cut_to_100() {
    use rmcp::ServiceExt;
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

    for discover in [true, false] {
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let host = mrtr::rmcp::McpServer::new(suggesting_too_many());
        tokio::spawn(async move {
            let running = host.serve(server_io).await.unwrap();
            let _ = running.waiting().await;
        });
        let client = if discover {
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            };
            ().serve_with_lifecycle(client_io, lifecycle).await.unwrap()
        } else {
            ().serve(client_io).await.unwrap()
        };
        let completion = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            client.complete_prompt_argument("review", "language", "rs-", None),
        )
        .await
        .expect("the server answered within 60 s")
        .unwrap();
        assert_eq!(
            completion.values,
            the_first_hundred("rs-"),
            "discover: {discover}"
        );
        assert_eq!(completion.has_more, Some(true), "discover: {discover}");
        assert_eq!(
            completion.total,
            Some(SUGGESTED as u32),
            "discover: {discover}"
        );
        client.cancel().await.unwrap();
    }
}
