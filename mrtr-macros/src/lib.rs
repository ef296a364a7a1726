//! Procedural macros of [mrtr](https://docs.rs/mrtr). Depend on `mrtr`, not on this crate:
//! the generated code names runtime items through `mrtr`'s hidden `__private` module
//! (override the path with `crate = "..."`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod attr;
mod choice;
mod docs;
mod errors;
mod form;
mod tool;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `mrtr::Form` for a struct with named fields: the struct becomes a form-mode
/// elicitation. See the `mrtr::Form` documentation for the field types and `#[form(..)]`
/// arguments.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(input: TokenStream) -> TokenStream {
    form::derive(parse_macro_input!(input as DeriveInput)).into()
}

/// Derives `mrtr::Choice` for a unit-only enum: its variants become the options of a
/// single-select field (or of a multi-select, in a `Vec`).
#[proc_macro_derive(Choice, attributes(choice))]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    choice::derive(parse_macro_input!(input as DeriveInput)).into()
}

/// Turns an `async fn` with `ask!` points into a multi-round MCP tool. See the `mrtr` crate
/// documentation for the rules.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(tool::Kind::Tool, attr.into(), item.into()).into()
}

/// Turns an `async fn` with `ask!` points into a multi-round MCP prompt (`prompts/get`).
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(tool::Kind::Prompt, attr.into(), item.into()).into()
}

/// Turns an `async fn` with `ask!` points into a multi-round MCP resource or resource
/// template (`resources/read`).
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(tool::Kind::Resource, attr.into(), item.into()).into()
}
