//! Hashing syntax so that only the syntax counts: the canonical form of tokens and the hash
//! the resume points' ids are taken from. A resume point's id must survive a rustfmt run and a
//! compiler or `proc-macro2` upgrade, or a toolchain change alone would refuse every flow in
//! flight.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// The source of `tokens` in a canonical form that depends only on the tokens themselves: one
/// space after each token (none inside a joint operator such as `::`), strings by their value.
/// `TokenStream::to_string()` is not that: its spacing has changed between compiler and
/// `proc-macro2` versions, and a toolchain upgrade must not refuse every flow in flight.
pub(crate) fn canonical(tokens: TokenStream) -> String {
    let mut out = String::new();
    write_canonical(tokens, &mut out);
    out
}

/// Rust's operators of more than one character, longest first.
const OPERATORS: [&str; 24] = [
    "<<=", ">>=", "...", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "..",
];

fn write_canonical(tokens: TokenStream, out: &mut String) {
    // Punctuation joined in the source (`..=&&`): spacing only says whether whitespace
    // followed, so the run is split into the operators the parser sees (`..=`, `&&`).
    let mut run = String::new();
    for token in tokens {
        if let TokenTree::Punct(punct) = &token {
            run.push(punct.as_char());
            if punct.spacing() == Spacing::Alone || punct.as_char() == '\'' {
                write_operators(&run, out);
                run.clear();
            }
            continue;
        }
        write_operators(&run, out);
        run.clear();
        match token {
            TokenTree::Punct(_) => {}
            TokenTree::Ident(ident) => {
                out.push_str(&ident.to_string());
                out.push(' ');
            }
            TokenTree::Literal(literal) => {
                // A string (or a doc comment's text) by its value: `"a"`, `r"a"` and `r#"a"#`
                // are the same string, however a compiler prints it.
                let text = literal.to_string();
                match syn::parse_str::<syn::LitStr>(&text) {
                    Ok(string) => out.push_str(&format!("{:?}", string.value())),
                    Err(_) => out.push_str(&text),
                }
                out.push(' ');
            }
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("( ", ") "),
                    Delimiter::Brace => ("{ ", "} "),
                    Delimiter::Bracket => ("[ ", "] "),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_canonical(group.stream(), out);
                out.push_str(close);
            }
        }
    }
    write_operators(&run, out);
}

fn write_operators(mut run: &str, out: &mut String) {
    while let Some(first) = run.chars().next() {
        // A lifetime's quote stays on its name.
        if first == '\'' {
            out.push(first);
            run = &run[1..];
            continue;
        }
        let operator = OPERATORS
            .iter()
            .find(|operator| run.starts_with(*operator))
            .map_or(&run[..first.len_utf8()], |operator| *operator);
        out.push_str(operator);
        out.push(' ');
        run = &run[operator.len()..];
    }
}

/// FNV-1a (32 bits) over `data`. Not a security measure (the token's tag is): it only has to
/// tell the resume points of one tool apart, and the macro refuses a collision.
pub(crate) fn hash(data: &str) -> u32 {
    data.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn the_canonical_form_is_fixed_by_the_tokens() {
        let tokens = quote!(let x: &'a _ = a::b(r"s", "s", 1_000u8) ..= &&y; { #[doc = " d"] z });
        assert_eq!(
            super::canonical(tokens),
            r#"let x : & 'a _ = a :: b ( "s" , "s" , 1_000u8 ) ..= && y ; { # [ doc = " d" ] z } "#
        );
        let spaced: proc_macro2::TokenStream =
            "let   x:&'a _=a :: b(r\"s\",\"s\",1_000u8)..=&& y;{#[doc=\" d\"]z}"
                .parse()
                .unwrap();
        let dense: proc_macro2::TokenStream =
            "let x : &'a _ = a::b(r\"s\", \"s\", 1_000u8) ..= &&y; { #[doc = \" d\"] z }"
                .parse()
                .unwrap();
        assert_eq!(super::canonical(spaced), super::canonical(dense));
    }

    #[test]
    fn differs_with_the_input() {
        assert_ne!(super::hash("a"), super::hash("b"));
        assert_eq!(super::hash("a"), super::hash("a"));
    }
}
