//! Procedural macros of [mrtr](https://docs.rs/mrtr). Depend on `mrtr`, not on this crate:
//! the generated code names runtime items through `mrtr`'s hidden `__private` module.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
