//! Arguments of `#[mrtr::tool(..)]`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitStr, Meta, Path, Token};

use crate::errors::Errors;

/// What the author configured on the attribute.
pub(crate) struct Options {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) krate: Path,
    pub(crate) max_rounds: Option<syn::LitInt>,
    pub(crate) single_use: bool,
}

const KEYS: &[&str] = &["name", "description", "crate", "max_rounds", "single_use"];

pub(crate) fn parse(attr: TokenStream, errors: &mut Errors) -> Options {
    let mut options = Options {
        name: None,
        description: None,
        krate: syn::parse_quote!(::mrtr),
        max_rounds: None,
        single_use: false,
    };
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr) {
        Ok(metas) => metas,
        Err(error) => {
            errors.push(error);
            return options;
        }
    };
    let mut seen = Vec::new();
    for meta in metas {
        let key = meta
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if !KEYS.contains(&key.as_str()) {
            let expected = KEYS
                .iter()
                .map(|key| format!("`{key}`"))
                .collect::<Vec<_>>()
                .join(", ");
            errors.spanned(
                meta.path(),
                format!("unknown argument; expected one of {expected}"),
            );
            continue;
        }
        if seen.contains(&key) {
            errors.spanned(meta.path(), format!("duplicate argument `{key}`"));
            continue;
        }
        seen.push(key.clone());
        match (key.as_str(), &meta) {
            ("single_use", Meta::Path(_)) => options.single_use = true,
            (_, Meta::NameValue(pair)) => match (&pair.value, key.as_str()) {
                (Expr::Lit(lit), "max_rounds") => match &lit.lit {
                    Lit::Int(int) if int.base10_parse::<u32>().is_ok_and(|rounds| rounds > 0) => {
                        options.max_rounds = Some(int.clone())
                    }
                    other => errors.spanned(other, "`max_rounds` takes a positive integer"),
                },
                (Expr::Lit(lit), _) => match &lit.lit {
                    Lit::Str(text) => match key.as_str() {
                        "name" => options.name = Some(text.clone()),
                        "description" => options.description = Some(text.clone()),
                        _ => match text.parse::<Path>() {
                            Ok(path) => options.krate = path,
                            Err(_) => errors
                                .spanned(text, "`crate` must be a path, e.g. `crate = \"::mrtr\"`"),
                        },
                    },
                    other => errors.spanned(other, format!("`{key}` takes a string")),
                },
                (other, _) => errors.spanned(other, format!("`{key}` takes a literal")),
            },
            (_, other) => {
                let hint = if key == "single_use" {
                    "`single_use` takes no value".to_owned()
                } else {
                    format!("write `{key} = ..`")
                };
                errors.spanned(other, hint);
            }
        }
    }
    options
}
