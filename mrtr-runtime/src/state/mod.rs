//! The state wing: what a flow keeps between rounds, in its binary layout, above the token
//! codec that seals it (which knows nothing of this layout).
//!
//! * [`saved`]: the whole state: resume point, kept-types signature, frame, pending questions.
//! * [`frame`]: the values a machine keeps across a suspension.
//! * [`known_forms`]: the forms a server's machines ask by type, named by id in a state.
//! * `inspect`: an opened token's payload rendered as JSON for operators and tests.

pub(crate) mod frame;
mod inspect;
pub(crate) mod known_forms;
pub(crate) mod saved;

pub use frame::Frame;
