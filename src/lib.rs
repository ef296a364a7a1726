//! # mrtr
//!
//! Multi Round-Trip Requests (MCP 2026-07-28, SEP-2322) for Rust MCP servers: write one
//! sequential async function with `ask!` points and get a resumable state machine whose state
//! travels, sealed, in `requestState`.
//!
//! This crate is the facade users depend on: it re-exports [`mrtr_runtime`] and the derives of
//! `mrtr-macros`.
//!
//! ## Forms
//!
//! `#[derive(Form)]` turns a struct into a form-mode elicitation; `#[derive(Choice)]` turns a
//! unit enum into the options of a select. The derive refuses, at compile time, anything the
//! flat MCP form schema cannot express.
//!
//! ```
//! use mrtr::{Choice, Form};
//!
//! #[derive(Choice, Debug, PartialEq)]
//! enum Seat {
//!     #[choice(rename = "window", title = "Window seat")]
//!     Window,
//!     #[choice(rename = "aisle", title = "Aisle seat")]
//!     Aisle,
//! }
//!
//! #[derive(Form, Debug)]
//! struct Booking {
//!     /// Name on the ticket
//!     #[form(min_length = 2, max_length = 40)]
//!     name: String,
//!     #[form(format = "email")]
//!     email: Option<String>,
//!     #[form(minimum = 1, maximum = 9, default = 1)]
//!     travellers: u8,
//!     seat: Seat,
//! }
//!
//! let schema = Booking::requested_schema();
//! assert_eq!(schema["properties"]["name"]["description"], "Name on the ticket");
//! assert_eq!(schema["required"], serde_json::json!(["name", "travellers", "seat"]));
//! ```
//!
//! Field types: `String` (`min_length`, `max_length`, `format` = `email` | `uri` | `date` |
//! `date-time`, or `one_of = [..]` for a plain single-select), `bool`, integers and floats
//! (`minimum`, `maximum`, inclusive; narrow integer types also advertise their range), a
//! `Choice` enum (single-select), `Vec` of a `Choice` enum (multi-select, `min_items`,
//! `max_items`), and `Option` of any of these (not required). Every field takes `rename`,
//! `title`, `description` (default: the doc comment) and `default`.
//!
//! ## Tools
//!
//! [`macro@tool`] turns an `async fn` with `ask!` points into a resumable machine; see the
//! crate README for the rules (what runs once, what is kept, what is rejected at compile time).
//!
//! ```
//! use mrtr::{Form, ToolError, elicit};
//!
//! #[derive(Form)]
//! struct Confirm {
//!     /// Really delete?
//!     sure: bool,
//! }
//!
//! /// Deletes everything, after asking.
//! #[mrtr::tool]
//! async fn delete_all() -> Result<String, ToolError> {
//!     let confirm = ask!(elicit::form::<Confirm>("This deletes everything."));
//!     if confirm.accepted()?.sure {
//!         return Ok("deleted".into());
//!     }
//!     Ok("kept".into())
//! }
//!
//! let server = mrtr::Server::builder("demo", "1.0.0").tool(delete_all).build().unwrap();
//! # let _ = server;
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Turns an `async fn` with `ask!` points into a multi-round MCP tool: a unit value of the
/// same name implementing [`Machine`] and [`Tool`].
///
/// Options: `name = ".."` (default: the function's name), `description = ".."` (default: the
/// doc comment), `max_rounds = N` (default: the server's, 10), `single_use`, and
/// `crate = "path"` when `mrtr` is renamed.
///
/// The function is `async`, returns `Result<T, E>` (`T` a [`ToolOutput`], `E: Display`), and
/// takes at most one argument parameter (`Deserialize + JsonSchema`) and an optional
/// `&Context`. A `String` is one text block, [`Json`] structured content, and
/// [`CallToolResult::with_content`] any blocks ([`content`]: images, audio, embedded
/// resources).
pub use mrtr_macros::tool;

/// Turns an `async fn` with `ask!` points into a multi-round MCP prompt (`prompts/get`), with
/// the same rules as [`macro@tool`].
///
/// The argument parameter, if any, is a struct of `String` (required) and `Option<String>`
/// (optional) fields deriving `Deserialize` and `JsonSchema`: its properties are the prompt's
/// arguments in `prompts/list`. The function returns `Result<T, E>` with `T` a
/// [`PromptOutput`] (a `String`, a [`PromptMessage`] or a `Vec` of them). Options: `name`,
/// `description`, `max_rounds`, `crate`.
pub use mrtr_macros::prompt;

/// Turns an `async fn` with `ask!` points into a resource or resource template whose
/// `resources/read` may ask, with the same rules as [`macro@tool`].
///
/// `#[mrtr::resource(uri = "notes://{owner}/{id}")]`: the argument parameter, if any, is a
/// struct with one `String` field per template variable, as sent (still percent-encoded). A
/// value that is `.` or `..` (also encoded, `%2E%2E`), or holds `\`, `%2F` or `%5C` (either
/// case), does not match, so a read that builds a path from it cannot leave its directory
/// (see [`UriTemplate::matches`](crate::UriTemplate::matches)). A template is listed by
/// `resources/templates/list`; a URI without variables (`uri = "notes://readme"`) names one
/// resource, listed by `resources/list`. The function returns `Result<T, E>`
/// with `T` a [`ResourceOutput`]. Options: `uri` (required), `name`, `description`,
/// `mime_type`, `ttl_ms` and `cache_scope` (`"public"` or `"private"`: the cache hint of a read
/// that carried no retry fields; a read that did always gets `ttlMs: 0`, `private`),
/// `max_rounds`, `crate`.
pub use mrtr_macros::resource;
pub use mrtr_macros::{Choice, Form};

/// A harness for multi-round tools, prompts and resources (feature `testing`): drive a flow
/// round by round with scripted answers, assert what each round asks, attack its tokens.
///
/// ```
/// use mrtr::testing::{Harness, answer};
/// use mrtr::{Form, ToolError, elicit};
/// use serde_json::json;
///
/// #[derive(Form)]
/// struct Login {
///     name: String,
/// }
///
/// #[mrtr::tool]
/// async fn greet() -> Result<String, ToolError> {
///     let login = ask!(elicit::form::<Login>("Who are you?"));
///     Ok(format!("Hello, {}!", login.accepted()?.name))
/// }
///
/// # tokio_test(async {
/// let harness = Harness::tool(greet);
/// let first = harness.call(json!({})).await;
/// first.assert_asks(["login"]);
/// assert_eq!(first.request("login").message(), "Who are you?");
///
/// let done = first.answer([("login", answer::accept(json!({"name": "Ada"})))]).await;
/// assert_eq!(done.text(), "Hello, Ada!");
///
/// // Declined: the tool ends with a tool error.
/// assert!(first.answer([("login", answer::decline())]).await.is_error());
/// // Tampered, or presented by someone else, the token is refused before any code runs.
/// assert_eq!(first.retry().state(first.tampered_state()).send().await.error_code(), -32602);
/// assert_eq!(first.retry().principal("mallory").send().await.error_code(), -32602);
/// // Eleven minutes later, the round has expired.
/// harness.clock().advance(11 * 60);
/// assert_eq!(first.answer([("login", answer::accept(json!({"name": "Ada"})))]).await.error_code(), -32602);
/// # });
/// # fn tokio_test(future: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
/// # }
/// ```
#[cfg(feature = "testing")]
pub use mrtr_runtime::testing;
pub use mrtr_runtime::*;
