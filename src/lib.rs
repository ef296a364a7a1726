//! # mrtr
//!
//! Multi Round-Trip Requests (MCP 2026-07-28, SEP-2322) for Rust MCP servers: write one
//! sequential async function with `ask!` points and get a resumable state machine whose state
//! travels, sealed, in `requestState`.
//!
//! This crate is the facade users depend on; it re-exports [`mrtr_runtime`] and
//! [`mrtr_macros`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use mrtr_runtime::token;
