//! Task ids: unguessable, so that knowing an id is never what grants access (the principal
//! check is), and no id can be predicted from another.

use std::fmt;

/// A task's id: 128 random bits from the operating system, written as 32 lowercase hex digits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(String);

impl TaskId {
    /// A fresh id.
    ///
    /// # Panics
    ///
    /// When the operating system's random source is unavailable (as every id-minting path
    /// of the runtime does: a predictable id would be worse).
    pub fn random() -> Self {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the operating system's random source is unavailable");
        let mut text = String::with_capacity(32);
        for byte in bytes {
            text.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
            text.push(char::from_digit(u32::from(byte & 0x0f), 16).unwrap_or('0'));
        }
        Self(text)
    }

    /// The id a client sent, if it has the shape of one (anything else cannot name a task, and
    /// is answered like an unknown id).
    pub fn parse(text: &str) -> Option<Self> {
        let shaped = text.len() == 32
            && text
                .bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte));
        shaped.then(|| Self(text.to_owned()))
    }

    /// The id as sent on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::TaskId;

    #[test]
    fn ids_are_fresh_and_parse_back() {
        let first = TaskId::random();
        let second = TaskId::random();
        assert_ne!(first, second);
        assert_eq!(TaskId::parse(first.as_str()), Some(first.clone()));
        assert_eq!(first.as_str().len(), 32);
    }

    #[test]
    fn only_the_shape_of_an_id_parses() {
        assert_eq!(TaskId::parse("tasks-conformance-isolation-probe"), None);
        assert_eq!(TaskId::parse(&"A".repeat(32)), None);
        assert_eq!(TaskId::parse(&"a".repeat(31)), None);
        assert!(TaskId::parse(&"0f".repeat(16)).is_some());
    }
}
