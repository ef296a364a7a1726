//! Kept values in their slots: how generated code writes a value into a suspension's frame and
//! reads it back exactly, and the signature that says what a resume point keeps.

use std::marker::PhantomData;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::machine::StepError;
use crate::state::frame::Frame;

/// A value kept in `requestState` across an `ask!`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept in requestState across an `ask!`",
    label = "this value is used after an `ask!`, so it is kept in requestState",
    note = "kept values must implement Serialize and DeserializeOwned (derive them, forms and \
            choices included) and cannot be references (except a `&'static str` that is one of \
            the tool's string literals); or create the value again after the ask, or reach it \
            through the context (`cx.state()`)"
)]
pub trait Kept: Serialize + Deserialize<'static> {}

impl<T: Serialize + Deserialize<'static>> Kept for T {}

/// Writes a kept value into the frame of a suspension, in its own slot, in CBOR with every
/// `Some` marked (see `kept.rs`), so that `Some(None)` does not come back as `None`.
pub fn keep<T: Kept>(frame: &mut Frame, name: &str, slot: &Option<T>) -> Result<(), StepError> {
    let value = slot.as_ref().ok_or_else(|| {
        StepError::Internal(format!("kept value `{name}` is missing at this suspension"))
    })?;
    let bytes = crate::kept::encode(value)
        .map_err(|error| StepError::Internal(format!("`{name}` does not serialize: {error}")))?;
    frame.put(name, bytes);
    Ok(())
}

/// Reads a kept value back from a verified frame: it must decode exactly, with nothing left
/// and nothing skipped (a field the type no longer has is not silently dropped).
///
/// Kept values are owned, except a `&'static str` equal to one of `literals` (the tool body's
/// string literals, sorted), which comes back as that literal.
pub fn restore<T: Kept>(
    frame: &Frame,
    name: &str,
    literals: &'static [&'static str],
) -> Result<Option<T>, StepError> {
    let bytes = frame
        .get(name)
        .ok_or_else(|| StepError::Frame(format!("`{name}` is missing")))?;
    // The serde error can quote the value; only the slot's name is reported.
    let undecodable = || match std::any::type_name::<T>().contains('&') {
        // A borrowed string that was not one of the body's literals when it was kept.
        true => StepError::Frame(format!(
            "`{name}` holds a borrowed string that is not one of the tool's string literals; \
             keep a `String` instead"
        )),
        false => StepError::Frame(format!("`{name}` does not decode as its type")),
    };
    let mut reader = crate::kept::reader(bytes, literals);
    let Strict { value, skipped } =
        Deserialize::deserialize(&mut reader).map_err(|_| undecodable())?;
    if let Some(path) = skipped {
        return Err(StepError::Frame(format!(
            "`{name}` holds `{path}`, which its type does not have"
        )));
    }
    if !reader.is_at_end() {
        return Err(StepError::Frame(format!("`{name}` has trailing bytes")));
    }
    Ok(Some(value))
}

/// A value decoded with note of the first part of the input its type skipped.
struct Strict<T> {
    value: T,
    skipped: Option<String>,
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Strict<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut skipped = None;
        let value = serde_ignored::deserialize(deserializer, |path| {
            skipped.get_or_insert_with(|| path.to_string());
        })?;
        Ok(Self { value, skipped })
    }
}

/// The signature of what a resume point keeps and expects: the name and type of each kept
/// slot and the type of each answer, listed by the macro in a fixed order. FNV-1a, so it is the
/// same in every build and on every platform for the same list.
pub fn kept_types(entries: &[(&str, &str)]) -> u32 {
    let parts: Vec<&[u8]> = entries
        .iter()
        .flat_map(|(name, type_name)| [name.as_bytes(), &[0], type_name.as_bytes(), &[0]])
        .collect();
    crate::bytes::fnv1a(&parts)
}

/// [`kept_types`] of one resume point, computed once per process in `cache` (a tool is not
/// generic, so what a resume point keeps has one set of types).
pub fn kept_types_once(cache: &'static OnceLock<u32>, entries: &[(&str, &str)]) -> u32 {
    *cache.get_or_init(|| kept_types(entries))
}

/// Checks, before a frame is decoded, that the state was minted by a build that keeps and
/// expects at this resume point exactly what this build does (`minted` is the state's
/// [`kept_types`]; `cache` as for [`kept_types_once`]).
pub fn check_kept_types(
    minted: u32,
    cache: &'static OnceLock<u32>,
    entries: &[(&str, &str)],
) -> Result<(), StepError> {
    if kept_types_once(cache, entries) == minted {
        return Ok(());
    }
    let now: Vec<String> = entries
        .iter()
        .map(|(name, type_name)| format!("{name}: {type_name}"))
        .collect();
    Err(StepError::Changed(format!(
        "what is kept or asked here changed since the state was minted; this build has [{}]",
        now.join(", ")
    )))
}

/// The type a slot holds, for [`kept_types`].
pub fn type_of<T>(_: &Option<T>) -> &'static str {
    std::any::type_name::<T>()
}

/// The type an answer decodes into, for [`kept_types`].
pub fn answer_type_of<A>(_: &Option<PhantomData<A>>) -> &'static str {
    std::any::type_name::<A>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Before {
        city: String,
        nights: u8,
    }

    #[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
    struct After {
        city: String,
    }

    fn frame_of<T: Kept>(value: T) -> Frame {
        let mut frame = Frame::new();
        keep(&mut frame, "trip", &Some(value)).unwrap();
        frame
    }

    #[test]
    fn a_kept_value_decodes_only_into_a_type_that_reads_all_of_it() {
        let frame = frame_of(Before {
            city: "Oslo".into(),
            nights: 2,
        });
        let error = restore::<After>(&frame, "trip", &[])
            .unwrap_err()
            .to_string();
        assert!(error.contains("`trip` holds `nights`"), "{error}");
        assert!(!error.contains("Oslo"), "values are never quoted: {error}");
        assert!(
            restore::<Before>(
                &frame_of(After {
                    city: "Oslo".into()
                }),
                "trip",
                &[]
            )
            .is_err()
        );
        assert_eq!(
            restore::<Before>(&frame, "trip", &[]).unwrap(),
            Some(Before {
                city: "Oslo".into(),
                nights: 2
            })
        );
    }

    #[test]
    fn the_kept_types_signature_follows_names_and_types_only() {
        let a = kept_types(&[("city", "alloc::string::String"), ("n", "u8")]);
        assert_eq!(
            a,
            kept_types(&[("city", "alloc::string::String"), ("n", "u8")])
        );
        assert_ne!(
            a,
            kept_types(&[("city", "alloc::string::String"), ("n", "u16")])
        );
        assert_ne!(
            a,
            kept_types(&[("cityn", "alloc::string::String"), ("", "u8")])
        );
        // Pinned: the same list gives the same signature in every build.
        assert_eq!(
            kept_types(&[("city", "alloc::string::String")]),
            0xcf63_bb15
        );
        static CACHE: OnceLock<u32> = OnceLock::new();
        let entries = [("city", "alloc::string::String"), ("n", "u8")];
        assert_eq!(kept_types_once(&CACHE, &entries), a);
        assert!(check_kept_types(a, &CACHE, &entries).is_ok());
        let changed = check_kept_types(a ^ 1, &CACHE, &entries);
        let message = changed.unwrap_err().to_string();
        assert!(
            message.contains("[city: alloc::string::String, n: u8]"),
            "{message}"
        );
    }

    #[test]
    fn kept_values_round_trip_exactly_whatever_json_makes_of_them() {
        fn check<T: Kept + PartialEq + std::fmt::Debug>(value: T) {
            let (expected, mut frame) = (format!("{value:?}"), Frame::new());
            keep(&mut frame, "v", &Some(value)).unwrap();
            let restored: T = restore(&frame.into_value(), "v", &[]).unwrap().unwrap();
            assert_eq!(format!("{restored:?}"), expected);
        }
        check(None::<u8>);
        check(());
        check(serde_json::Value::Null);
        check(f64::NAN);
        check(f64::INFINITY);
        check(f64::NEG_INFINITY);
        check(-0.0f64);
        check(u64::MAX);
        check(i128::MIN);
        check('\u{10FFFF}');
        check(Some(serde_json::Value::Null));
        check(Some(None::<u8>));
        check(Some(()));
        check(vec![Some(Some(())), Some(None), None]);
    }

    #[test]
    fn a_kept_value_of_another_type_is_refused() {
        let mut frame = Frame::new();
        keep(&mut frame, "v", &Some("text".to_owned())).unwrap();
        let frame = frame.into_value();
        assert!(matches!(
            restore::<u32>(&frame, "v", &[]),
            Err(StepError::Frame(_))
        ));
        assert!(matches!(
            restore::<u32>(&frame, "w", &[]),
            Err(StepError::Frame(_))
        ));
    }
}
