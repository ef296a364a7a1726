//! What an author writes a tool, prompt or resource with: the answers an `ask!` returns
//! ([`answer`]), the questions it asks ([`ask`]), the context every body gets ([`context`]),
//! the results and content it returns ([`results`], [`content`]), its error ([`error`]) and
//! argument completion ([`completion`]). The crate root re-exports each of them; the machine
//! contract these compile to is [`crate::machine`].

pub mod answer;
pub mod ask;
pub mod completion;
pub mod content;
pub mod context;
pub mod error;
pub mod results;
