//! Text from a token, made safe to print: a token is whatever its sender wrote, and a terminal
//! acts on some characters instead of showing them (escape sequences move the cursor, clear
//! the screen or set the window title; bidirectional overrides reorder what follows).

/// Whether `c` may reach a terminal as it is. Not: control characters (C0 with ESC, DEL, C1
/// with CSI), and the invisible characters that reorder or hide text (bidirectional marks,
/// embeddings, overrides and isolates, zero-width characters, line and paragraph separators,
/// the byte-order mark, interlinear annotations, the invisible tag characters).
fn is_safe(c: char) -> bool {
    !(c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{e0000}'..='\u{e007f}'
        ))
}

/// `text` with each unsafe character written `\u{..}`, as Rust writes it.
pub(crate) fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_safe(c) {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    out
}

/// `text` in double quotes, with quotes, backslashes and unsafe characters escaped.
pub(crate) fn quoted(text: &str) -> String {
    // Debug escapes most of them already; `escaped` catches what it leaves as is.
    escaped(&format!("{text:?}"))
}

/// `text` as is when it is plainly a name (ASCII letters, digits, `_ - . / :`), else quoted.
pub(crate) fn name(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':'));
    if plain { text.to_owned() } else { quoted(text) }
}

/// JSON text with each unsafe character written as a JSON escape (`\u202e`, a surrogate
/// pair beyond the basic plane): the same JSON value, safe to print. Unsafe characters only
/// occur inside strings, where such an escape means the character itself.
pub(crate) fn json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_safe(c) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_are_escaped_and_others_kept() {
        assert_eq!(escaped("a\u{1b}[2Jb"), r"a\u{1b}[2Jb");
        assert_eq!(
            escaped("\u{9b}31m\u{202e}\u{7f}"),
            r"\u{9b}31m\u{202e}\u{7f}"
        );
        assert_eq!(escaped("Zürich, 東京 🚀"), "Zürich, 東京 🚀");
        assert_eq!(quoted("say \"hi\"\u{7}"), r#""say \"hi\"\u{7}""#);
        assert_eq!(name("elicitation/create"), "elicitation/create");
        assert_eq!(name("a key"), r#""a key""#);
        assert_eq!(name("\u{1b}[2J"), r#""\u{1b}[2J""#);
        assert_eq!(name(""), r#""""#);
    }

    #[test]
    fn json_stays_the_same_value() {
        let value = serde_json::json!({"\u{202e}k": "\u{7f}\u{9b}\u{1b}x\u{e0001}", "n": 1});
        let text = json(&value.to_string());
        assert!(text.chars().all(is_safe), "{text}");
        assert!(
            text.contains(r"\u202e") && text.contains(r"\u009b"),
            "{text}"
        );
        assert!(text.contains(r"\udb40\udc01"), "a surrogate pair: {text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}
