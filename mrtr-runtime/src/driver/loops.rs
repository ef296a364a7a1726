//! Loop cursors: what a `for` loop whose body asks keeps between rounds (the remaining items
//! of a collection, or a range's cursor), so that it resumes where it stood.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::slots::Kept;

/// What a `for` loop whose body asks iterates over. Its state is kept in `requestState`
/// between rounds, so the machine must own it and be able to serialize it: the remaining items
/// of a collection, or a range's cursor. A lazy iterator (`.iter().map(..)`, `.filter(..)`)
/// would run its side effects up front or not survive a round, so it is refused.
#[diagnostic::on_unimplemented(
    message = "a `for` loop that asks cannot iterate over `{Self}`",
    label = "the loop asks, so what it iterates over is kept in requestState",
    note = "iterate over an owned collection (`Vec`, array, `VecDeque`, set, map) or a bounded \
            range (`a..b`, `a..=b`); collect a lazy iterator first, e.g. \
            `for item in items.iter().cloned().collect::<Vec<_>>()`, or iterate over a clone \
            (`for item in items.clone()`) instead of a reference"
)]
pub trait IntoLoopState {
    /// The kept iteration state.
    type State: LoopState;
    /// Starts the loop.
    fn into_loop_state(self) -> Self::State;
}

/// The kept state of a `for` loop that asks.
pub trait LoopState: Serialize + Deserialize<'static> {
    /// The loop's item.
    type Item;
    /// The next item, if any.
    fn next_item(&mut self) -> Option<Self::Item>;
}

/// Starts a `for` loop that asks.
pub fn loop_state<I: IntoLoopState>(iterable: I) -> LoopCursor<I::State> {
    LoopCursor(iterable.into_loop_state())
}

/// A `for` loop's kept state, with the `next` the lowered loop calls.
#[derive(Debug, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct LoopCursor<S>(S);

impl<S: LoopState> LoopCursor<S> {
    /// The next item.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<S::Item> {
        self.0.next_item()
    }
}

/// The remaining items of a collection.
#[derive(Debug, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Remaining<T> {
    items: std::collections::VecDeque<T>,
}

impl<T: Kept> LoopState for Remaining<T> {
    type Item = T;
    fn next_item(&mut self) -> Option<T> {
        self.items.pop_front()
    }
}

macro_rules! collection_loops {
    ($(impl[$($generics:tt)*] $ty:ty => $item:ty;)*) => {$(
        impl<$($generics)*> IntoLoopState for $ty {
            type State = Remaining<$item>;
            fn into_loop_state(self) -> Self::State {
                Remaining { items: self.into_iter().collect() }
            }
        }
    )*};
}

collection_loops! {
    impl[T: Kept] Vec<T> => T;
    impl[T: Kept] std::collections::VecDeque<T> => T;
    impl[T: Kept, const N: usize] [T; N] => T;
    impl[T: Kept] Option<T> => T;
    impl[T: Kept] std::collections::BTreeSet<T> => T;
    impl[T: Kept, S] std::collections::HashSet<T, S> => T;
    impl[K: Kept, V: Kept] std::collections::BTreeMap<K, V> => (K, V);
    impl[K: Kept, V: Kept, S] std::collections::HashMap<K, V, S> => (K, V);
}

/// The cursor of a range: only where it stands is kept.
#[derive(Debug, Serialize, serde::Deserialize)]
pub struct RangeState<T> {
    next: T,
    end: T,
    inclusive: bool,
    done: bool,
}

/// Values a [`RangeState`] can walk: integers and `char`.
pub trait RangeIndex: Copy + PartialOrd + Serialize + DeserializeOwned {
    /// The value after `self`, or `None` at the type's maximum.
    fn successor(self) -> Option<Self>;
}

macro_rules! range_index {
    ($($ty:ty),*) => {$(
        impl RangeIndex for $ty {
            fn successor(self) -> Option<Self> {
                self.checked_add(1)
            }
        }
    )*};
}

range_index!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

impl RangeIndex for char {
    fn successor(self) -> Option<Self> {
        // The surrogates are not chars: after U+D7FF comes U+E000.
        match self {
            '\u{D7FF}' => Some('\u{E000}'),
            other => char::from_u32(u32::from(other) + 1),
        }
    }
}

impl<T: RangeIndex> IntoLoopState for std::ops::Range<T> {
    type State = RangeState<T>;
    fn into_loop_state(self) -> RangeState<T> {
        RangeState {
            next: self.start,
            end: self.end,
            inclusive: false,
            done: false,
        }
    }
}

impl<T: RangeIndex> IntoLoopState for std::ops::RangeInclusive<T> {
    type State = RangeState<T>;
    fn into_loop_state(self) -> RangeState<T> {
        // A range that iteration exhausted keeps its bounds (`start == end`); only
        // `is_empty` knows it has no items left.
        let done = self.is_empty();
        let (start, end) = self.into_inner();
        RangeState {
            next: start,
            end,
            inclusive: true,
            done,
        }
    }
}

impl<T: RangeIndex> LoopState for RangeState<T> {
    type Item = T;
    fn next_item(&mut self) -> Option<T> {
        let in_range = if self.inclusive {
            self.next <= self.end
        } else {
            self.next < self.end
        };
        if self.done || !in_range {
            return None;
        }
        let current = self.next;
        match current.successor() {
            Some(next) => self.next = next,
            None => self.done = true,
        }
        if self.inclusive && current == self.end {
            self.done = true;
        }
        Some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<S: LoopState>(state: &S) -> S {
        let bytes = crate::kept::encode(state).unwrap();
        S::deserialize(&mut crate::kept::reader(&bytes, &[])).unwrap()
    }

    #[test]
    fn ranges_survive_a_round_trip() {
        let mut range = (250u8..=255).into_loop_state();
        assert_eq!(range.next_item(), Some(250));
        let mut range = round_trip(&range);
        let rest: Vec<u8> = std::iter::from_fn(|| range.next_item()).collect();
        assert_eq!(rest, [251, 252, 253, 254, 255]);
        assert_eq!((3..3).into_loop_state().next_item(), None);
        #[allow(clippy::reversed_empty_ranges)]
        let empty = 5..=4;
        assert_eq!(empty.into_loop_state().next_item(), None);
        let mut spent = 7..=7;
        spent.next();
        assert_eq!(spent.into_loop_state().next_item(), None);
        let mut spent = 254u8..=255;
        spent.next_back();
        spent.next_back();
        assert_eq!(spent.into_loop_state().next_item(), None);
        let mut chars = ('\u{D7FE}'..='\u{E000}').into_loop_state();
        let chars: Vec<char> = std::iter::from_fn(|| chars.next_item()).collect();
        assert_eq!(chars, ['\u{D7FE}', '\u{D7FF}', '\u{E000}']);
    }

    #[test]
    fn collections_keep_their_remaining_items() {
        let mut items = vec!["a".to_owned(), "b".to_owned()].into_loop_state();
        assert_eq!(items.next_item().as_deref(), Some("a"));
        let mut items = round_trip(&items);
        assert_eq!(items.next_item().as_deref(), Some("b"));
        assert_eq!(items.next_item(), None);
    }
}
