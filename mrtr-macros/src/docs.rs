//! Doc comments as text: a tool's or field's description comes from what its author already
//! wrote for rustdoc.

use syn::{Attribute, Expr, Lit, Meta};

/// The `///` lines of `attrs`, trimmed and joined with newlines; `None` when there are none.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(expr) => match &expr.lit {
                    Lit::Str(text) => Some(text.value().trim().to_owned()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
