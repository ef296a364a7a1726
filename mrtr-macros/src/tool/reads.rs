//! How an expression reads a name: whole, or through a path of named fields, and whether that
//! may move what it reads. `scope::Uses` asks these while it resolves names, so that a value
//! can be kept field by field (`fields.rs`) from the reads of exactly that binding.

use proc_macro2::{Delimiter, Spacing, TokenTree};
use syn::{Expr, ExprField, Ident, Member};

/// Methods known to take `&self`: a field read as their receiver is only borrowed. Any other
/// method may take the field by value, so it counts as a move.
const BY_REFERENCE: &[&str] = &[
    "as_deref",
    "as_ref",
    "as_slice",
    "as_str",
    "borrow",
    "clone",
    "contains",
    "ends_with",
    "first",
    "get",
    "is_empty",
    "is_none",
    "is_some",
    "iter",
    "keys",
    "last",
    "len",
    "starts_with",
    "to_owned",
    "to_string",
    "to_vec",
    "values",
];

/// The standard macros that format their arguments: they take comma-separated expressions
/// (`scope::Uses` reads them as such) and only borrow them.
pub(crate) const STD_FORMATTING: &[&str] = &[
    "format",
    "format_args",
    "print",
    "println",
    "eprint",
    "eprintln",
    "write",
    "writeln",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
];

/// The logging macros, which also only borrow what they format (their tokens are read as
/// tokens: `target: ..` and `field = value` are not expressions).
const LOGGING: &[&str] = &["trace", "debug", "info", "warn", "error"];

pub(crate) fn borrows_receiver(method: &Ident) -> bool {
    BY_REFERENCE.iter().any(|known| method == known)
}

pub(crate) fn formats_arguments(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|segment| {
        STD_FORMATTING
            .iter()
            .chain(LOGGING)
            .any(|known| segment.ident == known)
    })
}

/// `name.a.b` as `(name, [a, b])`, if `expr` is a chain of named fields on a plain name.
pub(crate) fn field_chain(expr: &Expr) -> Option<(&Ident, Vec<Ident>)> {
    match expr {
        Expr::Field(field) => field_chain_of(field),
        _ => None,
    }
}

/// [`field_chain`] of a field expression.
pub(crate) fn field_chain_of(field: &ExprField) -> Option<(&Ident, Vec<Ident>)> {
    let mut path = Vec::new();
    let mut field = field;
    loop {
        let Member::Named(member) = &field.member else {
            return None;
        };
        path.push(member.clone());
        match &*field.base {
            Expr::Field(base) => field = base,
            Expr::Path(base) if base.qself.is_none() => {
                path.reverse();
                return Some((base.path.get_ident()?, path));
            }
            _ => return None,
        }
    }
}

/// The named fields in `.a.b` at the start of another macro's tokens `after`, as far as they
/// are field reads (not `.0`, a method call, `.await` or a range).
pub(crate) fn token_field_path(after: &[TokenTree]) -> Vec<Ident> {
    let mut path = Vec::new();
    let mut rest = after;
    while let [TokenTree::Punct(dot), TokenTree::Ident(field), tail @ ..] = rest {
        let call = matches!(tail.first(), Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis)
            || matches!(tail.first(), Some(TokenTree::Punct(punct)) if punct.as_char() == ':');
        if dot.as_char() != '.' || dot.spacing() == Spacing::Joint || field == "await" || call {
            break;
        }
        path.push(field.clone());
        rest = tail;
    }
    path
}
