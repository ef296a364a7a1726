//! `#[mrtr::tool]`, `#[mrtr::prompt]` and `#[mrtr::resource]`: parse the attribute and the
//! function, validate the signature and the placement of every `ask!`, lower the body into a
//! machine, then expand the machine into a unit struct (returned by a function of the tool's
//! name) that implements the runtime's `Machine` trait and the descriptor trait of its kind.
//!
//! This file is the conductor only: it runs the passes in order and stops at the first pass
//! that reports errors. The code it writes lives in `expand` (the templates), the refusals in
//! the passes that find them, the lowering in `lower`, the machine's body in `emit`.

mod ask;
mod canonical;
mod emit;
mod expand;
mod fields;
mod flow;
mod ir;
mod kind;
mod liveness;
mod lower;
mod options;
mod placement;
mod resume;
mod scope;
mod signature;
#[cfg(test)]
mod snapshots;
mod syntax;

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::ItemFn;

use crate::errors::Errors;
use emit::{ArgsParam, Emitter};
use ir::Program;
pub(crate) use kind::Kind;
use lower::Lowerer;
use options::Options;
use signature::Signature;

pub(crate) fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let options = options::parse(kind, attr, &mut errors);
    let function: ItemFn = match syn::parse2(item) {
        Ok(function) => function,
        Err(error) => {
            let message = format!("#[mrtr::{}] goes on an `async fn`", kind.attribute());
            errors.push(syn::Error::new(error.span(), message));
            return errors.into_compile_errors();
        }
    };
    let signature = signature::validate(&function, kind.attribute(), &mut errors);
    check_attributes(&function, kind.attribute(), &mut errors);
    placement::check(&function.block, &mut errors);
    let machine = match (&signature, errors.is_empty()) {
        (Some(signature), true) => machine(kind, &function, signature, &options, &mut errors),
        _ => None,
    };
    let item = match machine {
        Some(machine) if errors.is_empty() => machine,
        // On a method, a free-standing fallback would only add errors.
        _ if function.sig.receiver().is_some() => TokenStream::new(),
        _ => {
            let unlowered = expand::unlowered(&function, &options.krate);
            let fallback = expand::fallback(kind, &function, &options);
            quote!(#fallback #unlowered)
        }
    };
    let compile_errors = errors.into_compile_errors();
    quote!(#item #compile_errors)
}

/// The lowered body and everything derived from it.
struct Lowered {
    program: Program,
    live: Vec<BTreeSet<scope::BindingId>>,
    args_bindings: Vec<scope::BindingId>,
    args_kept: bool,
}

fn lower(function: &ItemFn, signature: &Signature<'_>, errors: &mut Errors) -> Lowered {
    let context = signature
        .context
        .as_ref()
        .and_then(|context| match context.pat {
            syn::Pat::Ident(pat) => Some(pat.ident.to_string()),
            _ => None,
        });
    let mut lowerer = Lowerer::new(errors, context);
    let (args_bindings, args_kept) = match &signature.args {
        Some(args) => {
            let kept = scope::pattern_bindings(args.pat, &|_| true)
                .iter()
                .any(|(_, mutable)| *mutable);
            (lowerer.parameter(args.pat, kept), kept)
        }
        None => (Vec::new(), false),
    };
    let mut program = lowerer.lower_body(&function.block);
    program.literals = syntax::string_literals(function.block.to_token_stream());
    let live = liveness::live_in(&program);
    Lowered {
        program,
        live,
        args_bindings,
        args_kept,
    }
}

fn machine(
    kind: Kind,
    function: &ItemFn,
    signature: &Signature<'_>,
    options: &Options,
    errors: &mut Errors,
) -> Option<TokenStream> {
    let lowered = lower(function, signature, errors);
    let kept: BTreeSet<_> = lowered
        .program
        .sites
        .iter()
        .flat_map(|site| lowered.live[site.resume].iter().copied())
        .collect();
    for id in liveness::uninitialized_kept(&lowered.program, &lowered.live) {
        let ident = &lowered.program.bindings[id].ident;
        errors.spanned(ident, format!("`{ident}` is declared without a value and used after an ask!; give it its value where it is declared (e.g. `let {ident} = if .. {{ .. }} else {{ .. }};`)"));
    }
    let crossing = liveness::crossing(&lowered.live);
    for (ident, name, id) in &lowered.program.macro_binds {
        let binding = &lowered.program.bindings[*id];
        if crossing.contains(id) && binding.kind.is_kept() {
            errors.spanned(ident, format!("`{name}!` may declare a new `{ident}` here, which would hide the kept `{ident}` until this block ends: #[mrtr::tool] does not see the macro's expansion, so it could not tell them apart; declare it with `let {ident} = ..;`, or let the macro bind another name"));
        }
    }
    for id in liveness::crossing(&lowered.live) {
        let binding = &lowered.program.bindings[id];
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
    if !errors.is_empty() {
        return None;
    }
    let Lowered {
        program,
        live,
        args_bindings,
        args_kept,
    } = lowered;
    let order = liveness::emission_order(&program);
    let mut emitter = Emitter {
        program: &program,
        live: &live,
        order: &order,
        args: signature.args.as_ref().map(|args| ArgsParam {
            pat: args.pat,
            ty: args.ty,
            bindings: args_bindings,
            kept: args_kept,
        }),
        frame_names: emit::frame_names(&program, &liveness::crossing(&live)),
        fields: fields::kept_by_field(&program, &liveness::crossing(&live)),
        errors: Vec::new(),
    };
    let body = emitter.body();
    for error in std::mem::take(&mut emitter.errors) {
        errors.push(error);
    }
    if !errors.is_empty() {
        return None;
    }
    let identities = resume::identities(&program, errors);
    if !errors.is_empty() {
        return None;
    }
    Some(expand::expand_machine(
        kind,
        function,
        signature,
        options,
        &program,
        body,
        &identities,
    ))
}

/// Refuses the attributes that would wrap or change a function, which the tool no longer is.
fn check_attributes(function: &ItemFn, what: &str, errors: &mut Errors) {
    let known = [
        "doc", "cfg", "cfg_attr", "allow", "warn", "deny", "forbid", "expect",
    ];
    for attr in &function.attrs {
        if !known.iter().any(|name| attr.path().is_ident(name)) {
            errors.spanned(attr, format!("only doc comments, `#[cfg]` and lint attributes (`#[allow]`, `#[expect]`, ..) can go on a #[mrtr::{what}] function: it becomes a resumable machine, so an attribute that wraps or rewrites the function would not see its code; put this attribute on a function the body calls"));
        }
    }
}
