//! The `ask!` invocation: `ask!(REQ)`, `ask!(key = REQ)` or a batch `ask!(a = R1, b = R2)`.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprMacro, Ident, Macro, Token};

/// One question of an `ask!`: its explicit key, if written, and the request expression.
pub(crate) struct Question {
    pub(crate) key: Option<Ident>,
    pub(crate) request: Expr,
}

/// A parsed `ask!(..)`.
pub(crate) struct AskCall {
    pub(crate) questions: Vec<Question>,
}

impl Parse for Question {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let keyed = input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]);
        let key = if keyed {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            Some(key)
        } else {
            None
        };
        Ok(Self {
            key,
            request: input.parse()?,
        })
    }
}

/// Whether `mac` is an `ask!` invocation (by its last path segment, so `mrtr::ask!` counts).
pub(crate) fn is_ask(mac: &Macro) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "ask")
}

impl AskCall {
    /// The questions as written, without checking that a batch has keys.
    pub(crate) fn questions(mac: &Macro) -> syn::Result<Vec<Question>> {
        let questions: Punctuated<Question, Token![,]> =
            mac.parse_body_with(Punctuated::parse_terminated)?;
        Ok(questions.into_iter().collect())
    }

    pub(crate) fn parse(mac: &Macro) -> syn::Result<Self> {
        let questions = Self::questions(mac)?;
        if questions.is_empty() {
            return Err(syn::Error::new_spanned(
                mac,
                "ask! needs a question, e.g. `ask!(elicit::form::<Login>(\"..\"))`",
            ));
        }
        if questions.len() > 1
            && let Some(unkeyed) = questions.iter().find(|question| question.key.is_none())
        {
            return Err(syn::Error::new_spanned(
                &unkeyed.request,
                "every question of a batch needs a key: `ask!(seat = .., meal = ..)`",
            ));
        }
        Ok(Self { questions })
    }

    /// Whether this is a state-only `ask!(recheck())` or the hand-off point
    /// `ask!(handoff())`, which need no key.
    pub(crate) fn is_recheck(&self) -> bool {
        match &self.questions[..] {
            [
                Question {
                    key: None,
                    request: Expr::Call(call),
                },
            ] => {
                call.args.is_empty()
                    && matches!(&*call.func, Expr::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "recheck" || s.ident == "handoff"))
            }
            _ => false,
        }
    }
}

/// The `ask!` macro of an expression, if the expression is exactly one.
pub(crate) fn as_ask(expr: &Expr) -> Option<&ExprMacro> {
    match expr {
        Expr::Macro(mac) if is_ask(&mac.mac) => Some(mac),
        Expr::Paren(paren) => as_ask(&paren.expr),
        _ => None,
    }
}
