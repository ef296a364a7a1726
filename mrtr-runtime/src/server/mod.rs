//! `mrtr::Server`: a framework-agnostic MCP 2026-07-28 server for mrtr tools, prompts and
//! resource templates. Give it one JSON-RPC request object, get the response object back.
//!
//! One concern per file: [`instance`] is the server and what it was built with, [`builder`]
//! configures it, [`dispatch`] answers a JSON-RPC request, [`method`] names what it answers,
//! [`params`] reads a request into a [`request`], [`round`] runs one, [`reply`] shapes the result, [`listing`]
//! describes the server, [`complete_argument`] answers `completion/complete`, [`tasks`] serves
//! `tasks/*` and [`task_listen`] streams their status.

mod builder;
mod complete_argument;
mod dispatch;
mod instance;
mod listing;
mod method;
mod params;
mod reply;
mod request;
mod round;
mod task_listen;
mod tasks;

pub use builder::{BuildError, DEFAULT_MAX_ROUNDS, ServerBuilder};
// The rmcp host drops a round when rmcp cancels its request.
#[cfg(feature = "rmcp")]
pub(crate) use dispatch::until_cancelled;
pub use instance::{Server, ServerInfo};
pub use task_listen::{MAX_LISTENED_TASKS, TaskListener};
pub(crate) use {method::RoundMethod, request::RoundRequest};
// What the rmcp host builds its rounds and results from.
#[cfg(feature = "rmcp")]
// The rmcp host's way in.
#[cfg(feature = "rmcp")]
pub(crate) use {listing::tool_entry, params::take_checked_meta, reply::RoundReply};
