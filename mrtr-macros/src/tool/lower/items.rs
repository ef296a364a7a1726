//! What the author's items and macro calls may do: which locals a `macro_rules!` reads, which
//! names a statement macro may bind, the names a `let` chain binds.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Ident;

use crate::tool::scope::Scopes;

/// Where an item is named, to point at it.
pub(super) fn item_name_span(item: &syn::Item) -> TokenStream {
    match item {
        syn::Item::Fn(function) => function.sig.ident.to_token_stream(),
        syn::Item::Const(constant) => constant.ident.to_token_stream(),
        syn::Item::Static(item) => item.ident.to_token_stream(),
        syn::Item::Struct(item) => item.ident.to_token_stream(),
        syn::Item::Enum(item) => item.ident.to_token_stream(),
        syn::Item::Macro(item) => item.ident.as_ref().map_or_else(
            || item.mac.path.to_token_stream(),
            ToTokens::to_token_stream,
        ),
        other => other.to_token_stream(),
    }
}

/// An identifier of a `macro_rules!` definition that names a local in scope where it is
/// defined (not a `$variable`, a field, a method or a path segment).
pub(super) fn reads_a_local(
    tokens: TokenStream,
    scopes: &Scopes,
    earlier: &BTreeSet<String>,
) -> Option<Ident> {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Group(group) => {
                if let Some(found) = reads_a_local(group.stream(), scopes, earlier) {
                    return Some(found);
                }
            }
            TokenTree::Ident(ident) => {
                let before = index.checked_sub(1).map(|before| &tokens[before]);
                let qualified = matches!(before, Some(TokenTree::Punct(punct)) if matches!(punct.as_char(), '$' | '.' | ':'));
                let name = ident.to_string();
                if !qualified && (scopes.lookup(&name).is_some() || earlier.contains(&name)) {
                    return Some(ident.clone());
                }
            }
            _ => {}
        }
    }
    None
}

/// Macros that never declare a name their caller sees: the standard ones a statement calls,
/// and logging macros, whose `field = value` is not a binding.
pub(super) const NEVER_BINDS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "eprint",
    "eprintln",
    "panic",
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "write",
    "writeln",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "event",
];

/// The identifiers among a macro's tokens in a binding position: after `let` or `mut`, or
/// before a lone `=` (`bind!(v = 1)`), where the expansion may declare them.
pub(super) fn binding_positions(tokens: TokenStream) -> Vec<Ident> {
    use proc_macro2::{Spacing, TokenTree};
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut found = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Group(group) => found.extend(binding_positions(group.stream())),
            TokenTree::Ident(ident) if ident != "let" && ident != "mut" => {
                let after_keyword = index > 0
                    && matches!(&tokens[index - 1], TokenTree::Ident(before) if before == "let" || before == "mut");
                let before_assign = matches!(
                    tokens.get(index + 1),
                    Some(TokenTree::Punct(punct)) if punct.as_char() == '=' && punct.spacing() == Spacing::Alone
                ) && !matches!(
                    index.checked_sub(1).map(|before| &tokens[before]),
                    Some(TokenTree::Punct(punct)) if punct.as_char() == '.'
                );
                if after_keyword || before_assign {
                    found.push(ident.clone());
                }
            }
            _ => {}
        }
    }
    found
}
