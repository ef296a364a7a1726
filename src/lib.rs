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
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use mrtr_macros::{Choice, Form, tool};
pub use mrtr_runtime::*;
