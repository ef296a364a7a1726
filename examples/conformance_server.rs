//! Every fixture the official MCP conformance suite asks of a 2026-07-28 server, and of a
//! 2025-11-25 one for its elicitation and sampling scenarios, written with mrtr and served by
//! rmcp over streamable HTTP at `http://127.0.0.1:$PORT/mcp`: 2026-07-28 requests statelessly,
//! 2025-11-25 clients over a session opened by `initialize` (the same tools, their asks sent
//! as requests while they run).
//!
//! `PORT=3000 cargo run --features rmcp --example conformance_server`, then
//! `conformance/run.sh` (which does both) runs the suite against it.

use mrtr::rmcp::McpServer;
use mrtr::{
    Answer, AnswerError, CallToolResult, Choice, Completion, CompletionRequest, Context, Form,
    PromptMessage, Reply, ResourceOutput, SamplingRequest, Server, ToolError, content, elicit,
    handoff, roots, sample,
};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde_json::{Map, Value, json};

#[derive(Form)]
struct Name {
    /// Your name
    name: String,
}

#[derive(Form)]
struct Confirm {
    /// Confirm to continue
    ok: bool,
}

#[derive(Form)]
struct Color {
    /// Your favourite colour
    color: String,
}

#[derive(Form)]
struct UserContext {
    /// Context for the prompt
    context: String,
}

fn name_of(answer: Answer<Name>) -> String {
    answer
        .ok()
        .map_or_else(|| "unknown".into(), |name| name.name)
}

fn sampled(reply: Reply<mrtr::SampledMessage>) -> String {
    reply
        .ok()
        .map_or_else(|| "no answer".into(), |message| message.text())
}

/// Asks the user's name by form elicitation, then greets them.
#[mrtr::tool]
async fn test_input_required_result_elicitation() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("What is your name?"));
    Ok(format!("Hello, {}!", name_of(user_name)))
}

/// Asks the client's model a question.
#[mrtr::tool]
async fn test_input_required_result_sampling() -> Result<String, ToolError> {
    let capital_question = ask!(sample(
        SamplingRequest::new(100).user("What is the capital of France?")
    ));
    Ok(format!("The model said: {}", sampled(capital_question)))
}

/// Asks the client for its roots.
#[mrtr::tool]
async fn test_input_required_result_list_roots() -> Result<String, ToolError> {
    let client_roots = ask!(roots());
    let count = client_roots.ok().map_or(0, |roots| roots.len());
    Ok(format!("The client has {count} root(s)."))
}

/// Asks for a confirmation; the state it keeps is sealed.
#[mrtr::tool]
async fn test_input_required_result_request_state() -> Result<String, ToolError> {
    let confirm = ask!(elicit::form::<Confirm>("Please confirm"));
    Ok(if confirm.accepted()?.ok {
        "state-ok".into()
    } else {
        "not confirmed".into()
    })
}

/// Asks by elicitation, sampling and roots in one round.
#[mrtr::tool]
async fn test_input_required_result_multiple_inputs() -> Result<String, ToolError> {
    let (user_name, greeting, client_roots) = ask!(
        user_name = elicit::form::<Name>("What is your name?"),
        greeting = sample(SamplingRequest::new(50).user("Write a short greeting.")),
        client_roots = roots()
    );
    let roots = client_roots.ok().map_or(0, |roots| roots.len());
    Ok(format!(
        "{} / {} / {roots} root(s)",
        name_of(user_name),
        sampled(greeting)
    ))
}

/// Two rounds of questions, each with its own state.
#[mrtr::tool]
async fn test_input_required_result_multi_round() -> Result<String, ToolError> {
    let step1 = ask!(elicit::form::<Name>("Step 1: what is your name?"));
    let name = name_of(step1);
    let step2 = ask!(elicit::form::<Color>(
        "Step 2: what is your favourite colour?"
    ));
    let color = step2
        .ok()
        .map_or_else(|| "none".into(), |color| color.color);
    Ok(format!("{name} likes {color}"))
}

/// Keeps a sealed state across one question; a tampered state is refused.
#[mrtr::tool]
async fn test_input_required_result_tampered_state() -> Result<String, ToolError> {
    let confirm = ask!(elicit::form::<Confirm>("Please confirm"));
    Ok(format!("confirmed: {}", confirm.accepted()?.ok))
}

/// Asks by whatever the client declared on this request: elicitation, else sampling, else roots.
#[mrtr::tool]
async fn test_input_required_result_capabilities(cx: &Context) -> Result<String, ToolError> {
    if cx.capabilities().elicitation_form() {
        let answer = ask!(answer = elicit::form::<Name>("What is your name?"));
        return Ok(format!("elicited {}", name_of(answer)));
    }
    if cx.capabilities().sampling() {
        let answer = ask!(answer = sample(SamplingRequest::new(50).user("What is your name?")));
        return Ok(format!("sampled {}", sampled(answer)));
    }
    let answer = ask!(answer = roots());
    Ok(format!(
        "{} root(s)",
        answer.ok().map_or(0, |roots| roots.len())
    ))
}

/// Needs sampling, which a client without it cannot give: `-32021`.
#[mrtr::tool]
async fn test_missing_capability() -> Result<String, ToolError> {
    let answer = ask!(answer = sample(SamplingRequest::new(10).user("Say hi.")));
    Ok(sampled(answer))
}

/// Asks by elicitation inside the response to the call, never as a request of its own.
#[mrtr::tool]
async fn test_streaming_elicitation() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("What is your name?"));
    Ok(format!("Hello, {}!", name_of(user_name)))
}

/// Completes without sending log notifications (the request asked for none).
#[mrtr::tool]
async fn test_logging_tool() -> Result<String, ToolError> {
    Ok("done".into())
}

// ------------------------------------------------- 2025-11-25 scenarios (over a session)

#[derive(Form)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ElicitationArgs {
    /// The message to show the user
    message: String,
}

/// `tools-call-elicitation`: asks the user with the given message.
#[mrtr::tool]
async fn test_elicitation(args: ElicitationArgs) -> Result<String, ToolError> {
    let user_info = ask!(elicit::form::<UserInfo>(args.message));
    Ok(format!("User response: {}", answer_text(&user_info)))
}

/// `action: .., content: {..}` of an elicitation answer.
fn answer_text<T: serde::Serialize>(answer: &Answer<T>) -> String {
    match answer {
        Answer::Accept(content) => format!(
            "<action: accept, content: {}>",
            serde_json::to_value(content).unwrap_or_default()
        ),
        Answer::Decline => "<action: decline>".into(),
        Answer::Cancel => "<action: cancel>".into(),
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SamplingArgs {
    /// The prompt to send to the LLM
    prompt: String,
}

/// `tools-call-sampling`: asks the client's model.
#[mrtr::tool]
async fn test_sampling(args: SamplingArgs) -> Result<String, ToolError> {
    let llm = ask!(sample(SamplingRequest::new(100).user(args.prompt)));
    Ok(format!("LLM response: {}", sampled(llm)))
}

#[derive(Choice)]
enum Status {
    #[choice(rename = "active")]
    Active,
    #[choice(rename = "inactive")]
    Inactive,
    #[choice(rename = "pending")]
    Pending,
}

#[derive(Form)]
struct Defaults {
    /// User name
    #[form(default = "John Doe")]
    name: String,
    /// User age
    #[form(default = 30)]
    age: i64,
    /// User score
    #[form(default = 95.5)]
    score: f64,
    /// User status
    #[form(default = "active")]
    status: Status,
    /// Verification status
    #[form(default = true)]
    verified: bool,
}

/// `elicitation-sep1034-defaults`: a form whose every field has a default.
#[mrtr::tool]
async fn test_elicitation_sep1034_defaults() -> Result<String, ToolError> {
    let defaults = ask!(elicit::form::<Defaults>(
        "Please review your details (defaults are filled in)"
    ));
    Ok(format!("Elicitation completed: {}", answer_text(&defaults)))
}

#[derive(Choice)]
enum Untitled {
    #[choice(rename = "option1")]
    Option1,
    #[choice(rename = "option2")]
    Option2,
    #[choice(rename = "option3")]
    Option3,
}

#[derive(Choice)]
enum Titled {
    #[choice(rename = "value1", title = "First Option")]
    Value1,
    #[choice(rename = "value2", title = "Second Option")]
    Value2,
    #[choice(rename = "value3", title = "Third Option")]
    Value3,
}

#[derive(Choice)]
enum TitledChoice {
    #[choice(rename = "value1", title = "First Choice")]
    Value1,
    #[choice(rename = "value2", title = "Second Choice")]
    Value2,
    #[choice(rename = "value3", title = "Third Choice")]
    Value3,
}

#[derive(Form)]
struct EnumShapes {
    #[form(rename = "untitledSingle")]
    untitled_single: Untitled,
    #[form(rename = "titledSingle")]
    titled_single: Titled,
    #[form(rename = "untitledMulti")]
    untitled_multi: Vec<Untitled>,
    #[form(rename = "titledMulti")]
    titled_multi: Vec<TitledChoice>,
}

/// The four enum shapes the derive writes, plus the deprecated `enumNames` one (SEP-1330),
/// which no new form should use: written by hand on top of the derived schema.
#[derive(serde::Serialize)]
struct AllEnumShapes {
    #[serde(flatten)]
    shapes: EnumShapes,
    #[serde(rename = "legacyEnum")]
    legacy_enum: String,
}

impl Form for AllEnumShapes {
    fn requested_schema() -> Value {
        let mut schema = EnumShapes::requested_schema();
        schema["properties"]["legacyEnum"] = json!({
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        });
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.push("legacyEnum".into());
        }
        schema
    }

    fn from_content(content: &Map<String, Value>) -> Result<Self, AnswerError> {
        let legacy_enum = content
            .get("legacyEnum")
            .and_then(Value::as_str)
            .ok_or("`legacyEnum` is required")?
            .to_owned();
        Ok(Self {
            shapes: EnumShapes::from_content(content)?,
            legacy_enum,
        })
    }
}

/// `elicitation-sep1330-enums`: one form with every enum shape.
#[mrtr::tool]
async fn test_elicitation_sep1330_enums() -> Result<String, ToolError> {
    let shapes = ask!(elicit::form::<AllEnumShapes>("Pick from each list"));
    Ok(format!("Elicitation completed: {}", answer_text(&shapes)))
}

/// A prompt that asks for context first.
#[mrtr::prompt]
async fn test_input_required_result_prompt() -> Result<Vec<PromptMessage>, ToolError> {
    let user_context = ask!(elicit::form::<UserContext>(
        "What context should the prompt use?"
    ));
    let context = user_context
        .ok()
        .map_or_else(|| "none".into(), |answer| answer.context);
    Ok(vec![PromptMessage::user(format!(
        "Use this context: {context}"
    ))])
}

/// Where tasks live: the Redis at `MRTR_TASK_STORE` (a `redis://` URL; needs the `redis`
/// feature), else this process's memory. Instances that share the store and `MRTR_STATE_KEYS`
/// serve each other's tasks. `MRTR_TASKS_PER_PRINCIPAL` sets the per-client cap and
/// `MRTR_TASK_LEASE_MS` the step lease (how soon a dead instance's step is taken over;
/// scripts/tasks_multi_instance.sh uses a short one).
async fn task_options() -> Result<mrtr::TaskOptions, Box<dyn std::error::Error>> {
    let mut options = mrtr::TaskOptions::new();
    // scripts/tasks_multi_instance.sh runs more anonymous tasks than the default cap admits.
    if let Some(cap) = env_number("MRTR_TASKS_PER_PRINCIPAL")? {
        options = options.per_principal(usize::try_from(cap)?);
    }
    if let Some(lease) = env_number("MRTR_TASK_LEASE_MS")? {
        options = options.lease(std::time::Duration::from_millis(lease));
    }
    let Some(url) = std::env::var("MRTR_TASK_STORE")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        return Ok(options);
    };
    #[cfg(feature = "redis")]
    {
        let store = mrtr::task::RedisTaskStore::connect(&url, "mrtr-conformance-tasks:").await?;
        Ok(options.store(store))
    }
    #[cfg(not(feature = "redis"))]
    {
        Err(format!(
            "MRTR_TASK_STORE={url} needs the redis feature: cargo run --features rmcp,redis \
             --example conformance_server"
        )
        .into())
    }
}

/// A whole number from the environment: `None` when unset or empty, an error naming the
/// variable when it is not a number.
fn env_number(name: &str) -> Result<Option<u64>, String> {
    match std::env::var(name) {
        Ok(text) if !text.trim().is_empty() => text.trim().parse().map(Some).map_err(|_| {
            format!("{name}={text:?} is not a whole number; unset it for the default")
        }),
        _ => Ok(None),
    }
}

fn server(tasks: mrtr::TaskOptions) -> Result<Server, mrtr::BuildError> {
    Server::builder("mrtr-conformance", env!("CARGO_PKG_VERSION"))
        .tasks(tasks)
        .tool(test_input_required_result_elicitation)
        .tool(test_input_required_result_sampling)
        .tool(test_input_required_result_list_roots)
        .tool(test_input_required_result_request_state)
        .tool(test_input_required_result_multiple_inputs)
        .tool(test_input_required_result_multi_round)
        .tool(test_input_required_result_tampered_state)
        .tool(test_input_required_result_capabilities)
        .tool(test_missing_capability)
        .tool(test_streaming_elicitation)
        .tool(test_logging_tool)
        .tool(test_elicitation)
        .tool(test_sampling)
        .tool(test_elicitation_sep1034_defaults)
        .tool(test_elicitation_sep1330_enums)
        .prompt(test_input_required_result_prompt)
        .tool(test_simple_text)
        .tool(test_image_content)
        .tool(test_audio_content)
        .tool(test_embedded_resource)
        .tool(test_multiple_content_types)
        .tool(test_error_handling)
        .tool(test_mirrored_header)
        .tool(greet)
        .tool(slow_compute)
        .tool(failing_job)
        .tool(protocol_error_job)
        .tool(confirm_delete)
        .tool(multi_input)
        .tool(test_tool_with_task)
        .tool(durable_job)
        .prompt(test_simple_prompt)
        .prompt(test_prompt_with_arguments)
        .prompt(test_prompt_with_embedded_resource)
        .prompt(test_prompt_with_image)
        .resource(static_text)
        .resource(template_data)
        .resource(static_binary)
        .completion(complete_words)
        .build()
}

/// The suite's `resources-read-text` fixture (also what `resources-list` and `caching` list
/// and read).
#[mrtr::resource(uri = "test://static-text", mime_type = "text/plain")]
async fn static_text() -> Result<String, ToolError> {
    Ok("This is the content of the static text resource.".to_owned())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TemplateArgs {
    id: String,
}

/// The suite's `resources-templates-read` fixture.
#[mrtr::resource(uri = "test://template/{id}/data", mime_type = "application/json")]
async fn template_data(args: TemplateArgs) -> Result<String, ToolError> {
    let data =
        json!({"id": args.id, "templateTest": true, "data": format!("Data for ID: {}", args.id)});
    Ok(data.to_string())
}

// The fixtures of the suite's content scenarios (`tools-call-*`, `prompts-get-*`,
// `resources-read-*`): each returns what its scenario describes, so the suite checks the
// shapes mrtr and rmcp put on the wire.

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/// Returns one text block.
#[mrtr::tool]
async fn test_simple_text() -> Result<String, ToolError> {
    Ok("This is a simple text response for testing.".to_owned())
}

/// Returns an image.
#[mrtr::tool]
async fn test_image_content() -> Result<CallToolResult, ToolError> {
    Ok(CallToolResult::with_content([content::image(
        PNG,
        "image/png",
    )]))
}

/// Returns audio.
#[mrtr::tool]
async fn test_audio_content() -> Result<CallToolResult, ToolError> {
    Ok(CallToolResult::with_content([content::audio(
        WAV,
        "audio/wav",
    )]))
}

/// Returns an embedded resource.
#[mrtr::tool]
async fn test_embedded_resource() -> Result<CallToolResult, ToolError> {
    Ok(CallToolResult::with_content([content::embedded_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )]))
}

/// Returns text, an image and an embedded resource.
#[mrtr::tool]
async fn test_multiple_content_types() -> Result<CallToolResult, ToolError> {
    Ok(CallToolResult::with_content([
        content::text("Multiple content types test:"),
        content::image(PNG, "image/png"),
        content::embedded_text(
            "test://mixed-content-resource",
            "application/json",
            json!({"test": "data", "value": 123}).to_string(),
        ),
    ]))
}

/// Always fails (`isError: true`).
#[mrtr::tool]
async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct RegionArgs {
    /// Mirrored by HTTP clients in `Mcp-Param-Region` (SEP-2243).
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

/// Echoes an argument that HTTP clients mirror in a header (`http-custom-header-server-validation`).
#[mrtr::tool]
async fn test_mirrored_header(args: RegionArgs) -> Result<String, ToolError> {
    Ok(format!("region {}", args.region))
}

// The fixtures of the `tasks-*` scenarios (SEP-2663): ordinary mrtr tools. A task-capable tool
// without `ask!(handoff())` runs its whole body as the task.

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// Greets synchronously (never a task).
#[mrtr::tool]
async fn greet(args: GreetArgs) -> Result<String, ToolError> {
    Ok(format!("Hello, {}!", args.name))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ComputeArgs {
    /// How long the computation takes.
    #[serde(default)]
    seconds: u64,
    /// A label echoed in the result.
    #[serde(default)]
    label: String,
}

/// Sleeps `seconds`, then answers: a task for clients that declared the extension.
#[mrtr::tool(task = "optional")]
async fn slow_compute(args: ComputeArgs) -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(args.seconds)).await;
    Ok(format!("computed {} after {}s", args.label, args.seconds))
}

/// Fails as a tool (`isError: true`) after about a second; only runs as a task.
#[mrtr::tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed, as it always does"))
}

/// Panics: a failure below the tool, reported as a failed task.
#[mrtr::tool(task = "optional")]
async fn protocol_error_job() -> Result<String, ToolError> {
    panic!("protocol_error_job always panics")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DeleteArgs {
    /// The file to delete.
    filename: String,
}

#[derive(Form)]
struct ConfirmDelete {
    /// Delete it?
    confirm: bool,
}

/// Asks for confirmation inside the task, then "deletes".
#[mrtr::tool(task = "optional")]
async fn confirm_delete(args: DeleteArgs) -> Result<String, ToolError> {
    let confirmation = ask!(elicit::form::<ConfirmDelete>(format!(
        "Delete {}?",
        args.filename
    )));
    match confirmation {
        Answer::Accept(ConfirmDelete { confirm: true }) => Ok(format!("deleted {}", args.filename)),
        _ => Ok(format!("kept {}", args.filename)),
    }
}

#[derive(Form)]
struct Part {
    /// A name
    name: String,
    /// Confirm it
    confirm: bool,
}

/// Asks two questions at once inside the task (answered one at a time by the suite).
#[mrtr::tool(task = "optional")]
async fn multi_input() -> Result<String, ToolError> {
    let (first, second) = ask!(
        first = elicit::form::<Part>("First input"),
        second = elicit::form::<Part>("Second input"),
    );
    let name = |answer: Answer<Part>| {
        answer
            .accepted()
            .map_or_else(|_| "-".to_owned(), |part| part.name)
    };
    Ok(format!("got {} and {}", name(first), name(second)))
}

/// Asks the user's name by MRTR, then hands off: the task's result names them.
#[mrtr::tool(task = "required")]
async fn test_tool_with_task() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("What is your name?"));
    let name = user_name.accepted()?.name;
    ask!(handoff());
    Ok(format!("Hello from the task, {name}!"))
}

/// A prompt without arguments.
#[mrtr::prompt]
async fn test_simple_prompt() -> Result<String, ToolError> {
    Ok("This is a simple prompt for testing.".to_owned())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PromptArgs {
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
}

/// A prompt with two arguments.
#[mrtr::prompt]
async fn test_prompt_with_arguments(args: PromptArgs) -> Result<String, ToolError> {
    Ok(format!(
        "Prompt with arguments: arg1='{}', arg2='{}'",
        args.arg1, args.arg2
    ))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EmbedArgs {
    /// URI of the resource to embed
    #[serde(rename = "resourceUri")]
    resource_uri: String,
}

/// A prompt embedding a resource.
#[mrtr::prompt]
async fn test_prompt_with_embedded_resource(
    args: EmbedArgs,
) -> Result<Vec<PromptMessage>, ToolError> {
    Ok(vec![
        PromptMessage::user_content(content::embedded_text(
            args.resource_uri,
            "text/plain",
            "Embedded resource content for testing.",
        )),
        PromptMessage::user("Please process the embedded resource above."),
    ])
}

/// A prompt with an image.
#[mrtr::prompt]
async fn test_prompt_with_image() -> Result<Vec<PromptMessage>, ToolError> {
    Ok(vec![
        PromptMessage::user_content(content::image(PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ])
}

/// The suite's `completion-complete` fixture: words for any argument, by prefix.
async fn complete_words(request: CompletionRequest) -> Result<Completion, ToolError> {
    let words = ["paris", "park", "party", "test", "testing"];
    Ok(Completion::new(
        words
            .into_iter()
            .filter(|word| word.starts_with(&request.value)),
    ))
}

/// Binary contents: a resource may return any type that says how it is read.
struct Png;

impl ResourceOutput for Png {
    fn into_resource_result(self, uri: &str) -> Value {
        json!({"contents": [{"uri": uri, "mimeType": "image/png", "blob": PNG}]})
    }
}

/// The suite's `resources-read-binary` fixture.
#[mrtr::resource(uri = "test://static-binary", mime_type = "image/png")]
async fn static_binary() -> Result<Png, ToolError> {
    Ok(Png)
}

// ---------------------------------------------------------------------------------------------
// Not a suite fixture: the task scripts/tasks_multi_instance.sh drives across three instances
// (kept apart from the suite's fixtures; that script owns it).

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DurableJobArgs {
    /// The job's id, chosen by the client: the progress lines name it.
    job: String,
    /// How long the last step works, in milliseconds (at most 10,000).
    #[serde(default)]
    work_ms: u64,
}

/// A job for the multi-instance harness: asks who it is for (an MRTR round), hands off, asks
/// for a go-ahead inside the task, then works for `work_ms`. It prints `job-started` and
/// `job-completed` lines naming the job and this instance's `PORT`, which the harness counts:
/// two lines for one job mean a step ran twice.
#[mrtr::tool(task = "required")]
async fn durable_job(args: DurableJobArgs) -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("Who is the job for?"));
    let name = user_name.accepted()?.name;
    ask!(handoff());
    let go_ahead = ask!(elicit::form::<Confirm>("Start the job?"));
    if !go_ahead.accepted()?.ok {
        return Ok(format!("job {} not started for {name}", args.job));
    }
    let port = std::env::var("PORT").unwrap_or_default();
    eprintln!("job-started {} on {port}", args.job);
    tokio::time::sleep(std::time::Duration::from_millis(args.work_ms.min(10_000))).await;
    eprintln!("job-completed {} on {port}", args.job);
    Ok(format!("job {} done for {name}", args.job))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|port| port.parse().ok())
        .unwrap_or(3000);
    // Sessions for 2025-11-25 clients; stateless JSON answers for 2026-07-28 requests; the
    // retired-field filter on both.
    let service = McpServer::new(server(task_options().await?)?)
        .streamable_http(StreamableHttpServerConfig::default().with_json_response(true));
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("conformance server listening on http://127.0.0.1:{port}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}
