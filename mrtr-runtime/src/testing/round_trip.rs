//! Kept values must come back exactly. With the `testing` feature, every kept value a machine
//! restores is encoded again and compared with the bytes it was restored from: a serde impl
//! that loses or reorders something (a `Deserialize` that normalizes, an enum that decodes as
//! another variant, a `HashMap`'s order) makes the round fail at once, naming the value,
//! instead of computing something else than the plain function. Without the feature the check
//! is a no-op (see `__private::check_kept_round_trip`), so production rounds pay nothing.

use serde::Serialize;

use crate::state::frame::Frame;

/// Panics, naming the kept value `name`, when `value` (just restored from `frame`) does not
/// encode to the bytes it was restored from.
pub fn check_kept_round_trip<T: Serialize>(frame: &Frame, name: &str, value: &Option<T>) {
    let (Some(value), Some(kept)) = (value, frame.get(name)) else {
        return;
    };
    let again = match crate::kept::encode(value) {
        Ok(bytes) => bytes,
        Err(error) => panic!("kept value `{name}` does not encode again after decoding: {error}"),
    };
    assert!(
        again == kept,
        "kept value `{name}` does not come back as it was kept: encoded again after decoding, \
         it gives other bytes ({} instead of {}), so the next round would see another value. \
         Its type's serde impls lose or reorder something (a `Deserialize` that normalizes, \
         `#[serde(skip)]`, an `untagged` enum, a `HashMap`'s order): keep a type that \
         round-trips (a `BTreeMap`, plain derives)",
        again.len(),
        kept.len(),
    );
}
