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
//! [`macro@tool`] turns an `async fn` with `ask!` points into a resumable machine; its
//! documentation states the contract and the rules (what runs once, what is kept, what is
//! refused at compile time), its options (`version`, `max_rounds`, ..) and how to test a tool.
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

pub use mrtr_macros::{Choice, Form};
// The attributes' documentation lives on the macros themselves (one copy, shown here too).
pub use mrtr_macros::{prompt, resource, tool};

/// `#[mrtr::tool]`'s documentation, whose examples run here, as `mrtr`'s doctests.
#[cfg(doctest)]
#[doc = include_str!("../mrtr-macros/doc/tool.md")]
struct ToolDocumentation;

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
