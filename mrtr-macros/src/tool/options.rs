//! Arguments of `#[mrtr::tool(..)]`, `#[mrtr::prompt(..)]` and `#[mrtr::resource(..)]`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitInt, LitStr, Meta, Path, Token};

use super::kind::Kind;
use crate::errors::Errors;

/// What the author configured on the attribute.
pub(crate) struct Options {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) krate: Path,
    pub(crate) max_rounds: Option<LitInt>,
    pub(crate) single_use: bool,
    pub(crate) uri: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) ttl_ms: Option<LitInt>,
    pub(crate) cache_scope: Option<LitStr>,
    /// The code generation states are minted by (default 1): bumping it refuses every state
    /// in flight, for a change of what kept values mean that their types do not show.
    pub(crate) version: u32,
    /// `task = "optional" | "required"`: the tool may (or must) run as a task (SEP-2663).
    pub(crate) task: Option<LitStr>,
}

pub(crate) fn parse(kind: Kind, attr: TokenStream, errors: &mut Errors) -> Options {
    let mut options = Options {
        name: None,
        description: None,
        krate: syn::parse_quote!(::mrtr),
        max_rounds: None,
        single_use: false,
        uri: None,
        mime_type: None,
        ttl_ms: None,
        cache_scope: None,
        version: 1,
        task: None,
    };
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr.clone()) {
        Ok(metas) => metas,
        Err(error) => {
            errors.push(error);
            return options;
        }
    };
    let allowed = kind.options();
    let mut seen = Vec::new();
    for meta in metas {
        let key = meta
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if !allowed.contains(&key.as_str()) {
            let expected = crate::attr::expected(allowed);
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
        if key == "single_use" {
            match meta {
                Meta::Path(_) => options.single_use = true,
                other => errors.spanned(other, "`single_use` takes no value"),
            }
            continue;
        }
        let Meta::NameValue(pair) = &meta else {
            errors.spanned(&meta, format!("write `{key} = ..`"));
            continue;
        };
        let Expr::Lit(literal) = &pair.value else {
            errors.spanned(&pair.value, format!("`{key}` takes a literal"));
            continue;
        };
        match (key.as_str(), &literal.lit) {
            ("max_rounds", Lit::Int(int))
                if int.base10_parse::<u32>().is_ok_and(|rounds| rounds > 0) =>
            {
                options.max_rounds = Some(int.clone())
            }
            ("max_rounds", other) => errors.spanned(other, "`max_rounds` takes a positive integer"),
            ("version", Lit::Int(int)) if int.base10_parse::<u32>().is_ok_and(|v| v > 0) => {
                options.version = int.base10_parse().expect("checked");
            }
            ("version", other) => errors.spanned(
                other,
                "`version` takes a positive integer; bump it to refuse every state in flight",
            ),
            ("ttl_ms", Lit::Int(int)) if int.base10_parse::<u64>().is_ok() => {
                options.ttl_ms = Some(int.clone())
            }
            ("ttl_ms", other) => {
                errors.spanned(other, "`ttl_ms` takes a whole number of milliseconds")
            }
            ("cache_scope", Lit::Str(text))
                if ["public", "private"].contains(&text.value().as_str()) =>
            {
                options.cache_scope = Some(text.clone())
            }
            ("cache_scope", other) => {
                errors.spanned(other, "`cache_scope` is \"public\" or \"private\"")
            }
            ("crate", Lit::Str(text)) => match text.parse::<Path>() {
                Ok(path) => options.krate = path,
                Err(_) => errors.spanned(text, "`crate` must be a path, e.g. `crate = \"::mrtr\"`"),
            },
            ("name", Lit::Str(text)) => options.name = Some(text.clone()),
            ("description", Lit::Str(text)) => options.description = Some(text.clone()),
            ("uri", Lit::Str(text)) => match mrtr_uri_template::parse(&text.value()) {
                Ok(_) => options.uri = Some(text.clone()),
                Err(why) => errors.spanned(text, why),
            },
            ("mime_type", Lit::Str(text)) => options.mime_type = Some(text.clone()),
            ("task", Lit::Str(text))
                if ["optional", "required"].contains(&text.value().as_str()) =>
            {
                options.task = Some(text.clone())
            }
            ("task", other) => errors.spanned(
                other,
                "`task` is \"optional\" (a task for clients that declared the tasks extension, \
                 the whole body at once for the others) or \"required\" (only as a task); leave \
                 it out for a tool that never runs as a task",
            ),
            (_, other) => errors.spanned(other, format!("`{key}` takes a string")),
        }
    }
    if kind == Kind::Resource && options.uri.is_none() && !seen.iter().any(|key| key == "uri") {
        errors.push(syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[mrtr::resource] needs the URI template it serves: `#[mrtr::resource(uri = \"notes://{id}\")]`",
        ));
    }
    if options.ttl_ms.is_none()
        && let Some(scope) = &options.cache_scope
    {
        errors.spanned(
            scope,
            "`cache_scope` goes with `ttl_ms`: say how long the result may be cached",
        );
    }
    options
}
