//! One server for both generations of MCP clients: the same `#[mrtr::tool]`s answer a
//! 2026-07-28 client with `input_required` rounds, and a 2025-11-25 (or 2025-06-18) client,
//! which opened a session with `initialize`, with real `elicitation/create`,
//! `sampling/createMessage` and `roots/list` requests while the tool runs.
//!
//! `cargo run --example both_generations -- stdio` serves stdio; `PORT=3000 cargo run
//! --example both_generations` serves streamable HTTP at `http://127.0.0.1:3000/mcp`, where
//! an `initialize` opens a session and 2026-07-28 requests stay stateless. The Python SDK's
//! client drives every tool both ways in `tests/python/`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use mrtr::elicit::{self, Pick};
use mrtr::rmcp::McpServer;
use mrtr::{
    Answer, Choice, Completion, CompletionRequest, Context, Form, PromptMessage, Reply,
    SamplingRequest, Server, ToolError, recheck, roots, sample,
};
use serde::Deserialize;

#[derive(Choice, Debug, Clone, Copy)]
pub enum Seating {
    #[choice(rename = "indoor", title = "Indoors")]
    Indoor,
    #[choice(rename = "terrace", title = "On the terrace")]
    Terrace,
}

/// Seating first: clients show the fields in declaration order, not alphabetically.
#[derive(Form, Debug)]
pub struct Party {
    /// Where would you like to sit?
    pub seating: Seating,
    /// How many guests?
    #[form(minimum = 1, maximum = 12)]
    pub guests: u8,
}

#[derive(Form, Debug)]
pub struct Contact {
    /// Name for the booking
    #[form(min_length = 2)]
    pub name: String,
}

/// Books a table: the party (a choice and a bounded number) and the contact, asked together.
#[mrtr::tool]
pub async fn book_table() -> Result<String, ToolError> {
    let (party, contact) = ask!(
        party = elicit::form::<Party>("Who is coming?"),
        contact = elicit::form::<Contact>("Whose name is the booking under?")
    );
    let (party, contact) = (party.accepted()?, contact.accepted()?);
    let seating = match party.seating {
        Seating::Indoor => "indoors",
        Seating::Terrace => "on the terrace",
    };
    Ok(format!(
        "Table for {} {seating}, under {}.",
        party.guests, contact.name
    ))
}

#[derive(Form, Debug)]
pub struct Number {
    /// An even number
    pub number: i64,
}

/// Asks for an even number until it gets one (the tool's own check, beyond the form's).
#[mrtr::tool]
pub async fn pick_even() -> Result<String, ToolError> {
    let mut tries = 0u32;
    let even = loop {
        tries += 1;
        let number = ask!(elicit::form::<Number>("Pick an even number."))
            .accepted()?
            .number;
        if number % 2 == 0 {
            break number;
        }
    };
    Ok(format!("{even} is even (try {tries})."))
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct FlightArgs {
    /// Where to fly
    pub to: String,
}

/// Searches flights, then asks which one: the options are built at run time.
#[mrtr::tool]
pub async fn choose_flight(args: FlightArgs) -> Result<String, ToolError> {
    let offers: Vec<(String, String)> = vec![
        ("AF12".into(), format!("{} at 09:10, 120 EUR", args.to)),
        ("LH88".into(), format!("{} at 11:45, 98 EUR", args.to)),
    ];
    let options = offers.iter().cloned().map(Pick::from);
    let flight = ask!(elicit::choice("Which flight?", options).field("flight")).accepted()?;
    let shown = offers
        .iter()
        .find(|(id, _)| *id == flight)
        .map(|(_, title)| title.clone())
        .unwrap_or_default();
    Ok(format!("Booked {flight}: {shown}."))
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct DeleteArgs {
    /// The file to delete
    pub path: String,
}

#[derive(Form, Debug)]
pub struct Confirm {
    /// Really delete it?
    pub sure: bool,
}

/// Deletes a file after the user confirms; a decline keeps it.
#[mrtr::tool]
pub async fn delete_file(args: DeleteArgs) -> Result<String, ToolError> {
    let confirm = ask!(elicit::form::<Confirm>(format!("Delete {}?", args.path)));
    Ok(match confirm {
        Answer::Accept(Confirm { sure: true }) => format!("Deleted {}.", args.path),
        Answer::Accept(_) => format!("Kept {}: not confirmed.", args.path),
        Answer::Decline => format!("Kept {}: the user declined.", args.path),
        Answer::Cancel => format!("Kept {}: the user cancelled.", args.path),
    })
}

/// Asks the client's model for a haiku and the client for its roots, in one round.
#[mrtr::tool]
pub async fn haiku_and_roots() -> Result<String, ToolError> {
    let (haiku, client_roots) = ask!(
        haiku = sample(SamplingRequest::new(60).user("Write a haiku about files.")),
        client_roots = roots()
    );
    let haiku = match haiku {
        Reply::Answered(message) => message.text(),
        Reply::Missing => "no haiku".into(),
    };
    let count = client_roots.ok().map_or(0, |roots| roots.len());
    Ok(format!("{haiku} / {count} root(s)"))
}

/// How many times the sign-in was checked: a stand-in for your own records, which a real
/// sign-in page would update; here the sign-in lands on the second check.
#[derive(Default)]
pub struct SignIns(pub AtomicU32);

/// Sends the user to a sign-in page, then checks on later rounds until it landed.
#[mrtr::tool]
pub async fn sign_in(cx: &Context) -> Result<String, ToolError> {
    let consent = ask!(elicit::url(
        "Sign in to continue",
        "https://example.com/sign-in"
    ));
    if !consent.is_accepted() {
        return Ok("Not signed in.".into());
    }
    let mut checks = 0u32;
    while cx.state::<Arc<SignIns>>().0.fetch_add(1, Ordering::SeqCst) < 1 {
        checks += 1;
        if checks > 5 {
            return Ok("The sign-in did not land.".into());
        }
        ask!(recheck());
    }
    Ok("Signed in.".into())
}

#[derive(Form, Debug)]
pub struct Destination {
    /// Where to?
    pub city: String,
}

/// A travel prompt that asks where to first.
#[mrtr::prompt]
pub async fn plan_trip() -> Result<Vec<PromptMessage>, ToolError> {
    let destination = ask!(elicit::form::<Destination>("Where to?")).accepted()?;
    Ok(vec![PromptMessage::user(format!(
        "Plan three days in {}.",
        destination.city
    ))])
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct NoteArgs {
    /// Whose notes
    pub owner: String,
}

/// Someone's notes: which list is asked first.
#[mrtr::resource(uri = "notes://{owner}", mime_type = "text/plain")]
pub async fn notes(args: NoteArgs) -> Result<String, ToolError> {
    let list = ask!(elicit::choice("Which list?", ["todo", "ideas"]).field("list")).accepted()?;
    Ok(format!("{}'s {list} list is empty.", args.owner))
}

/// Suggests whose notes to read while the user types the `owner` of `notes://{owner}`.
pub async fn owners(request: CompletionRequest) -> Result<Completion, ToolError> {
    let typed = request.value.to_lowercase();
    Ok(Completion::new(
        ["ada", "alan", "grace"]
            .into_iter()
            .filter(|owner| owner.starts_with(&typed)),
    ))
}

/// Every tool, prompt and resource above on one server.
pub fn server() -> Result<Server, mrtr::BuildError> {
    Server::builder("both-generations", "1.0.0")
        .state(Arc::new(SignIns::default()))
        .tool(book_table)
        .tool(pick_even)
        .tool(choose_flight)
        .tool(delete_file)
        .tool(haiku_and_roots)
        .tool(sign_in)
        .prompt(plan_trip)
        .resource(notes)
        .completion(owners)
        .build()
}

#[allow(dead_code)]
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mcp = McpServer::new(server()?);
    if std::env::args().nth(1).as_deref() == Some("stdio") {
        mcp.serve_stdio().await?;
        return Ok(());
    }
    let port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|port| port.parse().ok())
        .unwrap_or(3000);
    eprintln!("both generations on http://127.0.0.1:{port}/mcp");
    mcp.serve_http(("127.0.0.1", port)).await?;
    Ok(())
}
