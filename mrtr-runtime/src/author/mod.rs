//! What an author writes a tool, prompt or resource with: the questions an `ask!` asks
//! ([`ask`]), the context every body gets ([`context`]),
//! the results and content it returns ([`results`], [`content`]), its error ([`error`]) and
//! argument completion ([`completion`]). The crate root re-exports each of them; the machine
//! contract these compile to is [`crate::machine`].
//!
//! The answers an `ask!` returns stay at the crate root (`answer.rs`): the type name of
//! `Answer<T>` is part of every resume point's fingerprint, so moving the module would refuse
//! every state in flight across an upgrade (`tests/deploys.rs` checks it).

pub mod ask;
pub mod completion;
pub mod content;
pub mod context;
pub mod error;
pub mod results;
