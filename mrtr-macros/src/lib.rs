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

// The documentation is shared with the README's rules, which a test keeps in step.
#[doc = include_str!("../doc/tool.md")]
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(tool::Kind::Tool, attr.into(), item.into()).into()
}

/// Turns an `async fn` with `ask!` points into a multi-round MCP prompt (`prompts/get`), with
/// the same rules as `#[mrtr::tool]`.
///
/// The argument parameter, if any, is a struct of `String` (required) and `Option<String>`
/// (optional) fields deriving `Deserialize` and `JsonSchema`: its properties are the prompt's
/// arguments in `prompts/list`. The function returns `Result<T, E>` with `T` a
/// `mrtr::PromptOutput` (a `String`, a `mrtr::PromptMessage` or a `Vec` of them). Options:
/// `name`, `description`, `version`, `max_rounds`, `crate`, as for `#[mrtr::tool]`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(tool::Kind::Prompt, attr.into(), item.into()).into()
}

/// Turns an `async fn` with `ask!` points into a resource or resource template whose
/// `resources/read` may ask, with the same rules as `#[mrtr::tool]`.
///
/// `#[mrtr::resource(uri = "notes://{owner}/{id}")]`: the argument parameter, if any, is a
/// struct with one `String` field per template variable, as sent (still percent-encoded). A
/// value that is `.` or `..` (also encoded, `%2E%2E`), or holds `\`, `%2F` or `%5C` (either
/// case), does not match, so a read that builds a path from it cannot leave its directory
/// (see `mrtr::UriTemplate::matches`). A template is listed by
/// `resources/templates/list`; a URI without variables (`uri = "notes://readme"`) names one
/// resource, listed by `resources/list`. The function returns `Result<T, E>` with `T` a
/// `mrtr::ResourceOutput`. Options: `uri` (required), `name`, `description`, `mime_type`,
/// `ttl_ms` and `cache_scope` (`"public"` or `"private"`: the cache hint of a read that carried
/// no retry fields; a read that did always gets `ttlMs: 0`, `private`), `version`,
/// `max_rounds`, `crate`, as for `#[mrtr::tool]`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(tool::Kind::Resource, attr.into(), item.into()).into()
}
