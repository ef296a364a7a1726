//! Runtime of [mrtr](https://docs.rs/mrtr): everything the `#[mrtr::tool]` macro's generated
//! code relies on, and the building blocks for hosts and advanced users.
//!
//! * [`token`]: the sealed `requestState` (AEAD or HMAC, key ring, bindings, claims).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod token;
