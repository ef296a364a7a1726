//! `#[mrtr::tool]`, `#[mrtr::prompt]` and `#[mrtr::resource]`: parse the attribute and the
//! function, validate the signature and the placement of every `ask!`, lower the body into a
//! machine, then expand the machine into a unit struct (returned by a function of the tool's
//! name) that implements the runtime's `Machine` trait and the descriptor trait of its kind.
//!
//! This file is the conductor only: it runs the passes in order and stops at the first pass
//! that reports errors. Parsing and validation (`options`, `signature`, `placement`), then
//! the lowering (`lower`, which records what it cannot take apart) and liveness, then the
//! plan of what each block holds, saves and takes back (`plan`, which records what it cannot
//! save), then every refusal (`check`, which words those records too), then emission of the
//! machine's body from the plan (`emit`, which cannot fail) and the templates around it
//! (`expand`).

mod ask;
mod canonical;
mod check;
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
mod plan;
mod reads;
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
    check::attributes(&function, kind.attribute(), &mut errors);
    placement::check(&function.block, &mut errors);
    // The lowering goes on past the refusals of the body's syntax, to report its own too.
    let lowerable = errors.is_empty();
    check::body(&function.block, &mut errors);
    let machine = match (&signature, lowerable) {
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
    let mut lowerer = Lowerer::new(context);
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
    check::unlowerable(std::mem::take(&mut program.unlowerable), errors);
    program.literals = syntax::string_literals(function.block.to_token_stream());
    let live = liveness::live_in(&program);
    plan::note_needs(&mut program, &live);
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
    let Lowered {
        program,
        live,
        args_bindings,
        args_kept,
    } = lower(function, signature, errors);
    let layout = plan::Layout {
        program: &program,
        live: &live,
    };
    let order = liveness::emission_order(&program);
    let args = signature.args.as_ref().map(|_| plan::Args {
        bindings: &args_bindings,
        kept: args_kept,
    });
    let plan = plan::plan(layout, &order, args.as_ref());
    check::machine(layout, &plan, errors);
    if !errors.is_empty() {
        return None;
    }
    let crossing = liveness::crossing(&live);
    let emitter = Emitter {
        program: &program,
        live: &live,
        order: &order,
        plan: &plan,
        args: signature.args.as_ref().map(|args| ArgsParam {
            pat: args.pat,
            ty: args.ty,
        }),
        frame_names: emit::frame_names(&program, &crossing),
        fields: fields::kept_by_field(layout, &crossing),
    };
    let body = emitter.body();
    let identities = resume::identities(&program);
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
