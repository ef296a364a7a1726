//! `#[name(key = value, ...)]` helper attributes: parsed into a list of keyed values, with
//! unknown and duplicate keys reported at their own spans.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::{Attribute, Expr, Ident, Lit, LitStr, Path, Token};

use crate::errors::Errors;

/// One `key = value` (or bare `key`) inside a helper attribute.
pub(crate) struct Entry {
    pub(crate) key: Ident,
    pub(crate) value: Option<Expr>,
}

/// Parses every `#[name(..)]` of `attrs` into entries, reporting unknown keys (against
/// `allowed`) and duplicates; entries with problems are dropped.
pub(crate) fn entries(
    attrs: &[Attribute],
    name: &str,
    allowed: &[&str],
    errors: &mut Errors,
) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(name)) {
        let parsed = attr.parse_args_with(|input: ParseStream<'_>| {
            let mut found = Vec::new();
            while !input.is_empty() {
                // `crate` is a keyword: accept it as a key.
                let key = if input.peek(Token![crate]) {
                    let token: Token![crate] = input.parse()?;
                    Ident::new("crate", token.span)
                } else {
                    input.parse::<Ident>()?
                };
                let value = if input.peek(Token![=]) {
                    input.parse::<Token![=]>()?;
                    Some(input.parse::<Expr>()?)
                } else {
                    None
                };
                found.push(Entry { key, value });
                if input.is_empty() {
                    break;
                }
                input.parse::<Token![,]>()?;
            }
            Ok(found)
        });
        match parsed {
            Ok(found) => {
                for entry in found {
                    let key = entry.key.to_string();
                    if !allowed.contains(&key.as_str()) {
                        let expected = expected(allowed);
                        errors.spanned(
                            &entry.key,
                            format!(
                                "unknown `{name}` argument `{key}`; expected one of {expected}"
                            ),
                        );
                    } else if entries.iter().any(|seen| seen.key == entry.key) {
                        errors.spanned(&entry.key, format!("duplicate `{name}` argument `{key}`"));
                    } else {
                        entries.push(entry);
                    }
                }
            }
            Err(error) => errors.push(error),
        }
    }
    entries
}

/// `allowed` as a list for an error message: `` `a`, `b`, `c` ``.
pub(crate) fn expected(allowed: &[&str]) -> String {
    allowed
        .iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The string literal of an entry, or an error at its value.
pub(crate) fn string(entry: &Entry, errors: &mut Errors) -> Option<LitStr> {
    match &entry.value {
        Some(Expr::Lit(expr)) => match &expr.lit {
            Lit::Str(text) => return Some(text.clone()),
            _ => errors.spanned(
                &expr.lit,
                format!(
                    "`{}` takes a string, e.g. `{} = \"...\"`",
                    entry.key, entry.key
                ),
            ),
        },
        Some(other) => errors.spanned(other, format!("`{}` takes a string literal", entry.key)),
        None => errors.spanned(
            &entry.key,
            format!("`{}` needs a value: `{} = \"...\"`", entry.key, entry.key),
        ),
    }
    None
}

/// The `true`/`false` of an entry, or an error at its value.
pub(crate) fn boolean(entry: &Entry, errors: &mut Errors) -> Option<bool> {
    if let Some(Expr::Lit(expr)) = &entry.value
        && let Lit::Bool(flag) = &expr.lit
    {
        return Some(flag.value);
    }
    errors.spanned(
        &entry.key,
        format!(
            "`{}` takes `true` or `false`, e.g. `{} = false`",
            entry.key, entry.key
        ),
    );
    None
}

/// Whether a container's `serde = false` opts out of the generated serde impls (default: they
/// are generated).
pub(crate) fn wants_serde(entries: &[Entry], errors: &mut Errors) -> bool {
    entries
        .iter()
        .find(|entry| entry.key == "serde")
        .and_then(|entry| boolean(entry, errors))
        .unwrap_or(true)
}

/// The path of a `crate = "path"` entry, defaulting to `::mrtr`.
pub(crate) fn crate_path(entries: &[Entry], errors: &mut Errors) -> Path {
    let default = || syn::parse_quote!(::mrtr);
    let Some(entry) = entries.iter().find(|entry| entry.key == "crate") else {
        return default();
    };
    match string(entry, errors).map(|text| text.parse::<Path>()) {
        Some(Ok(path)) => path,
        Some(Err(error)) => {
            errors.push(syn::Error::new(
                error.span(),
                "`crate` must be a path, e.g. `crate = \"::mrtr\"`",
            ));
            default()
        }
        None => default(),
    }
}

/// A span for errors about a whole entry.
pub(crate) fn span(entry: &Entry) -> Span {
    entry.key.span()
}
