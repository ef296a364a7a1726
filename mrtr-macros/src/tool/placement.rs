//! `ask!` where the machine cannot suspend: inside a closure, an async block or a nested item.
//! Those are reported here, each at its own `ask!`. (An `ask!` inside another macro's
//! arguments is never seen by the attribute; the fallback `ask!` macro reports it.)

use syn::visit::{self, Visit};

use super::ask;
use crate::errors::Errors;

struct Placement<'e> {
    inside: Vec<&'static str>,
    errors: &'e mut Errors,
}

impl Placement<'_> {
    fn within(&mut self, place: &'static str, f: impl FnOnce(&mut Self)) {
        self.inside.push(place);
        f(self);
        self.inside.pop();
    }
}

impl<'ast> Visit<'ast> for Placement<'_> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if ask::is_ask(mac)
            && let Some(place) = self.inside.last()
        {
            self.errors.spanned(mac, format!("ask! cannot be used inside {place}: the machine can only suspend in the function's own body; move the ask! out and pass the answer in"));
        }
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        self.within("a closure", |placement| {
            visit::visit_expr_closure(placement, closure)
        });
    }

    fn visit_expr_async(&mut self, block: &'ast syn::ExprAsync) {
        self.within("an async block", |placement| {
            visit::visit_expr_async(placement, block)
        });
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        self.within("a nested item", |placement| {
            visit::visit_item(placement, item)
        });
    }
}

pub(crate) fn check(body: &syn::Block, errors: &mut Errors) {
    Placement {
        inside: Vec::new(),
        errors,
    }
    .visit_block(body);
}
