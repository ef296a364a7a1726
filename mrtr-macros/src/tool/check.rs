//! Refusals, all made before anything is emitted, so that emission only prints and cannot
//! fail. Every error goes into one collector (`Errors`) and is reported at the author's
//! tokens, all at once.
//!
//! Before the lowering (`attributes`, `body`): attributes that would wrap the function, and
//! what the author's code does that the machine cannot keep as written, read from the syntax
//! alone (an attribute on a statement that asks, an `ask!` in a `let .. else` or a match
//! guard, a key used twice in one batch). The lowering goes on past these, so that what it
//! cannot take apart is reported with them (`unlowerable`: where an `ask!` stands, items in
//! blocks that ask, jumps hidden in macros; the lowering records them as
//! [`Unlowerable`], this file says why and what to do).
//!
//! After the lowering (`machine`), each group only when the ones before found nothing (a
//! later group's findings would follow from the earlier errors): what liveness shows (a
//! value kept without one, a kept value a macro may hide, a borrow kept across an ask); then
//! the values that would have to be saved where another binding hides their name, which the
//! plan emission prints records as refused (`plan`: this file only reports them); then resume
//! points whose ids collide.

use std::collections::BTreeSet;

use syn::ext::IdentExt;
use syn::visit::{self, Visit};
use syn::{Ident, ItemFn, Stmt};

use super::ask::{self, AskCall};
use super::ir::{Program, Unlowerable};
use super::liveness;
use super::plan::{Entry, Layout, Plan};
use super::resume;
use super::scope::{BindingId, BindingKind};
use super::syntax::{contains_ask, stmt_asks, stmt_attrs};
use crate::errors::Errors;

/// What the lowering could not take apart, each with its way out.
pub(crate) fn unlowerable(refusals: Vec<Unlowerable>, errors: &mut Errors) {
    for refusal in refusals {
        match refusal {
            Unlowerable::MalformedAsk(error) => errors.push(error),
            Unlowerable::AskWithoutKey(request) => errors.spanned(request, "ask! needs a key: bind the answer with `let name = ask!(..)`, or name it with `ask!(name = ..)`"),
            Unlowerable::AskNotEvaluatedFirst(at) => errors.push(syn::Error::new(at, "ask! must be the first thing its statement evaluates (a `let` initializer, the operand of `?`, a method call's receiver, a condition); bind it first: `let answer = ask!(..);`")),
            Unlowerable::SecondAskInPlace(at) => errors.push(syn::Error::new(at, "only one ask! can be evaluated in place per statement; bind the others first with `let name = ask!(..);`")),
            Unlowerable::AskInLabeledBlock(label) => errors.spanned(label, "ask! cannot be used inside a labeled block; use a loop or a function instead"),
            Unlowerable::AskInUnsafeBlock(keyword) => errors.spanned(keyword, "ask! cannot be used inside an `unsafe` block; move it out of the block"),
            Unlowerable::AskInThisPosition(expr) => errors.spanned(expr, "ask! is not supported in this position"),
            Unlowerable::ItemInABlockThatAsks(name) => errors.spanned(name, "an item (`fn`, `const`, `struct`, `use`, `macro_rules!`, ..) cannot go inside a block that asks: the machine takes the block apart and declares its items for the whole body, where this one would hide others of its name; move it to the top of the body or out of the function"),
            Unlowerable::MacroDefinedTwice(name) => errors.spanned(&name, format!("`{name}!` is defined twice in the body: the machine declares the body's items once, before its code, so uses before the second definition would see it too; give the second one another name")),
            Unlowerable::MacroReadsALocal { name, local } => errors.spanned(&local, format!("`{name}!` reads the local `{local}`: the machine declares the body's items before its code, where `{local}` is not in scope; pass `{local}` to the macro as an argument")),
            Unlowerable::JumpInsideAnotherMacro { at, jump, name } => errors.push(syn::Error::new(at, format!("`{jump}` inside `{name}!` cannot leave a loop that asks: #[mrtr::tool] does not see the macro's expansion; set a flag inside the macro and `{jump}` after it"))),
        }
    }
}

/// Refuses the attributes that would wrap or change a function, which the tool no longer is.
pub(crate) fn attributes(function: &ItemFn, what: &str, errors: &mut Errors) {
    let known = [
        "doc", "cfg", "cfg_attr", "allow", "warn", "deny", "forbid", "expect",
    ];
    for attr in &function.attrs {
        if !known.iter().any(|name| attr.path().is_ident(name)) {
            errors.spanned(attr, format!("only doc comments, `#[cfg]` and lint attributes (`#[allow]`, `#[expect]`, ..) can go on a #[mrtr::{what}] function: it becomes a resumable machine, so an attribute that wraps or rewrites the function would not see its code; put this attribute on a function the body calls"));
        }
    }
}

/// The refusals the syntax of the body shows, each at its tokens. Closures, async blocks and
/// nested items are left out, as the lowering leaves them (an `ask!` there is refused by
/// `placement`).
pub(crate) fn body(block: &syn::Block, errors: &mut Errors) {
    Body { errors }.visit_block(block);
}

struct Body<'e> {
    errors: &'e mut Errors,
}

impl<'ast> Visit<'ast> for Body<'_> {
    fn visit_block(&mut self, block: &'ast syn::Block) {
        // The block's value (its last expression without `;`) is not a statement the
        // lowering takes apart.
        let statements = match block.stmts.last() {
            Some(Stmt::Expr(_, None)) => block.stmts.len() - 1,
            _ => block.stmts.len(),
        };
        for (index, stmt) in block.stmts.iter().enumerate() {
            if index < statements && stmt_asks(stmt) {
                self.statement_attributes(stmt_attrs(stmt));
            }
            visit::visit_stmt(self, stmt);
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init
            && let Some((_, diverge)) = &init.diverge
            && contains_ask(diverge)
        {
            self.errors.spanned(
                diverge,
                "ask! cannot be used in the `else` of a `let .. else`; bind the answer first",
            );
        }
        visit::visit_local(self, local);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if let Some((_, guard)) = &arm.guard
            && contains_ask(guard)
        {
            self.errors.spanned(
                guard,
                "ask! cannot be used in a match guard; ask before the match",
            );
        }
        visit::visit_arm(self, arm);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if !ask::is_ask(mac) {
            return;
        }
        // A call that does not parse is reported by the lowering.
        let Ok(call) = AskCall::parse(mac) else {
            return;
        };
        let mut seen: Vec<String> = Vec::new();
        for key in call
            .questions
            .iter()
            .filter_map(|question| question.key.as_ref())
        {
            let name = key.unraw().to_string();
            if seen.contains(&name) {
                self.errors.push(syn::Error::new(key.span(), format!("duplicate key `{name}` in one ask!: an earlier question of this batch has it already, and each question of a round needs its own key; rename one of them")));
            }
            seen.push(name);
        }
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl Body<'_> {
    /// The machine takes a statement that asks apart into steps, so an attribute on it would
    /// not cover what it covered: `#[cfg]` would no longer remove the ask. Lint attributes
    /// and tool attributes (`#[rustfmt::skip]`) change nothing the machine does.
    fn statement_attributes(&mut self, attrs: &[syn::Attribute]) {
        for attr in attrs {
            let path = attr.path();
            let lint = ["allow", "warn", "deny", "forbid", "expect"]
                .iter()
                .any(|lint| path.is_ident(lint));
            let tool = path.segments.len() > 1
                && ["rustfmt", "clippy"]
                    .iter()
                    .any(|tool| path.segments[0].ident == tool);
            if lint || tool {
                continue;
            }
            let message = if path.is_ident("cfg") || path.is_ident("cfg_attr") {
                let name = path.get_ident().map(Ident::to_string).unwrap_or_default();
                format!(
                    "`#[{name}]` cannot go on a statement that asks: #[mrtr::tool] takes the statement apart into the machine's steps, where the attribute would no longer leave the ask out; test the condition at run time (`if cfg!(..) {{ .. }}`), or put the attribute on a `let` that does not ask"
                )
            } else {
                "this attribute cannot go on a statement that asks: #[mrtr::tool] takes the statement apart into the machine's steps, which the attribute would not see; only lint attributes (`#[allow]`, `#[expect]`, ..) and tool attributes (`#[rustfmt::skip]`) are kept there".to_owned()
            };
            self.errors.spanned(attr, message);
        }
    }
}

/// Every refusal of a lowered body (see the module's docs for the order).
pub(crate) fn machine(layout: Layout<'_>, plan: &Plan, errors: &mut Errors) {
    liveness_refusals(layout, errors);
    if !errors.is_empty() {
        return;
    }
    hidden_saves(layout.program, plan, errors);
    if !errors.is_empty() {
        return;
    }
    resume_points(layout.program, errors);
}

/// `let x;` with no type, in a block that never gives `x` a value, and `x = ..` in a later
/// block: the machine declares `x` again there, and rustc finds nothing at the author's `let`
/// to infer its type from.
fn untyped_and_given_a_value_later(layout: Layout<'_>) -> Vec<BindingId> {
    let blocks = &layout.program.blocks;
    (0..layout.program.bindings.len())
        .filter(|id| {
            layout.program.bindings[*id].kind == BindingKind::Uninit { typed: false }
                && !blocks
                    .iter()
                    .any(|block| block.declared.contains(id) && block.used.contains(id))
                && (0..blocks.len())
                    .any(|block| matches!(layout.entry(block, *id), Entry::Declared))
        })
        .collect()
}

/// What liveness shows: a value declared without one and kept, a kept value a statement
/// macro may declare again, a borrow that would cross a step.
fn liveness_refusals(layout: Layout<'_>, errors: &mut Errors) {
    let Layout { program, live } = layout;
    let kept: BTreeSet<_> = program
        .sites
        .iter()
        .flat_map(|site| live[site.resume].iter().copied())
        .collect();
    for id in untyped_and_given_a_value_later(layout) {
        let ident = &program.bindings[id].ident;
        errors.spanned(ident, format!("`{ident}` is declared without a value or a type, and given its value after an ask!, where the machine declares it again; give it its value where it is declared (`let {ident} = ..;`), or a type (`let {ident}: T;`)"));
    }
    for id in liveness::uninitialized_kept(program, live) {
        let ident = &program.bindings[id].ident;
        errors.spanned(ident, format!("`{ident}` is declared without a value and used after an ask!; give it its value where it is declared (e.g. `let {ident} = if .. {{ .. }} else {{ .. }};`)"));
    }
    let crossing = liveness::crossing(live);
    for (ident, name, id) in &program.macro_binds {
        let binding = &program.bindings[*id];
        if crossing.contains(id) && binding.kind.is_kept() {
            errors.spanned(ident, format!("`{name}!` may declare a new `{ident}` here, which would hide the kept `{ident}` until this block ends: #[mrtr::tool] does not see the macro's expansion, so it could not tell them apart; declare it with `let {ident} = ..;`, or let the macro bind another name"));
        }
    }
    for id in crossing {
        let binding = &program.bindings[id];
        if !binding.borrowed {
            continue;
        }
        let ident = &binding.ident;
        if kept.contains(&id) {
            errors.spanned(ident, format!("`{ident}` is a borrow used after an ask!, and a borrow cannot be kept in requestState; keep an owned value instead (e.g. `.to_owned()`), or borrow again after the ask"));
        } else {
            errors.spanned(ident, format!("`{ident}` is a borrow used after a construct that asks (an `if`, `match`, loop or block with an ask! in it), so the machine would have to carry it from one step to the next; keep an owned value instead (e.g. `.to_owned()`), or borrow again after the construct"));
        }
    }
}

/// Two resume points with the same id could not be told apart by another build.
fn resume_points(program: &Program, errors: &mut Errors) {
    let identities = resume::identities(program);
    for (index, identity) in identities.iter().enumerate() {
        let Some(other) = identities[..index]
            .iter()
            .find(|other| other.id == identity.id)
        else {
            continue;
        };
        let span = program.sites[index]
            .questions
            .first()
            .map_or_else(proc_macro2::Span::call_site, |question| question.1);
        errors.push(syn::Error::new(
            span,
            format!(
                "this ask's resume point has the same id as `{}`; rename one of their keys",
                other.label
            ),
        ));
    }
}

/// The kept values that a jump, a suspension or the end of an arm would have to save where
/// another binding hides their name, as the plan found them: each refused once, at the
/// author's variable.
fn hidden_saves(program: &Program, plan: &Plan, errors: &mut Errors) {
    for id in &plan.refused {
        let ident = &program.bindings[*id].ident;
        errors.push(syn::Error::new(
            ident.span(),
            format!(
                "`{ident}` is kept across an ask!, but another binding named `{ident}` hides it where the machine has to keep it; rename one of the two"
            ),
        ));
    }
}
