//! Emission: the lowered blocks become a `loop { match pc { .. } }` inside the body future.
//!
//! A value that crosses blocks lives in a slot (an `Option` named after its variable) between
//! them. Inside a block it is an ordinary local under its own name: taken out of its slot at
//! the start of a block that uses it, or declared there. It goes back into its slot at a jump
//! or a suspension that needs it, or just before a `let` of an inner scope hides its name. At
//! a suspension the slots live at the resume point are serialized into the frame; at a resume
//! they are deserialized back. The author's code stays as written, in the author's scopes.
//!
//! Where each value is held, saved and taken back was decided before emission, in the
//! [`Plan`](super::plan::Plan): emission walks each block's nodes beside their plans and
//! prints them, deciding nothing and refusing nothing (what could not be written was refused
//! by `check` from the same plan).
//!
//! This file writes the machine around the blocks and each block's prelude; `nodes` writes a
//! block's code, `slots` where values live between blocks and the code that moves them,
//! `suspend` what a suspension asks and keeps, `holes` what fills the author's tokens, and
//! `checks` the type checks of kept values.

mod checks;
mod holes;
mod nodes;
mod slots;
mod suspend;

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Pat, Type};

use super::fields::FieldPath;
use super::ir::{BlockId, Program};
use super::lower::{guard_ident, witness_ident};
use super::plan::{Entry, Plan};
use super::scope::BindingId;
use slots::Slot;

/// The machine's argument parameter, as the blocks rebuild it.
pub(crate) struct ArgsParam<'a> {
    pub(crate) pat: &'a Pat,
    pub(crate) ty: &'a Type,
}

pub(crate) struct Emitter<'a> {
    pub(crate) program: &'a Program,
    pub(crate) live: &'a [BTreeSet<BindingId>],
    pub(crate) order: &'a [BlockId],
    /// What each block holds, saves and restores where (`plan`): emission prints it.
    pub(crate) plan: &'a Plan,
    pub(crate) args: Option<ArgsParam<'a>>,
    pub(crate) frame_names: HashMap<BindingId, String>,
    /// Bindings kept field by field (see `fields.rs`), with the field paths they keep.
    pub(crate) fields: HashMap<BindingId, Vec<FieldPath>>,
}

/// A span resolving like the generated code but pointing at `binding`, so that a kept value's
/// errors are reported at the author's variable (once: keep and restore share the location).
fn at_binding(binding: &Ident) -> (Span, Span) {
    let location = binding.span();
    (
        Span::call_site().located_at(location),
        Span::mixed_site().located_at(location),
    )
}

/// The table of the body's string literals (see `Program::literals`).
fn literals_ident() -> Ident {
    Ident::new("__MRTR_LITERALS", Span::mixed_site())
}

/// The machine's pc once a suspension is built: the round then waits at the top of the
/// machine, where only the slots are alive.
const SUSPENDED: u32 = u32::MAX;

fn machine_label() -> syn::Lifetime {
    syn::Lifetime::new("'__mrtr_machine", Span::mixed_site())
}

/// Frame names of the kept bindings: their own names, made unique where shadowing repeats one.
pub(crate) fn frame_names(
    program: &Program,
    kept: &BTreeSet<BindingId>,
) -> HashMap<BindingId, String> {
    let mut taken: HashMap<String, usize> = HashMap::new();
    kept.iter()
        .map(|id| {
            let name = ident_name(&program.bindings[*id].ident);
            let count = taken.entry(name.clone()).or_insert(0);
            *count += 1;
            let unique = if *count == 1 {
                name
            } else {
                format!("{name}.{count}")
            };
            (*id, unique)
        })
        .collect()
}

impl Emitter<'_> {
    /// The statements of the body future: items, slots, the resume dispatch and the machine.
    pub(crate) fn body(&self) -> TokenStream {
        // Refused by `check` before emission: every save the plan lists can be written.
        debug_assert!(self.plan.refused.is_empty());
        let items = &self.program.items;
        let crossing: BTreeSet<BindingId> = self.live.iter().flatten().copied().collect();
        let slots: Vec<Ident> = crossing
            .iter()
            .flat_map(|id| self.slots(*id))
            .map(|slot| slot.ident)
            .collect();
        let structs: Vec<TokenStream> = crossing
            .iter()
            .filter_map(|id| Some(self.fields_structs(*id, self.fields.get(id)?)))
            .collect();
        let witnesses = self
            .program
            .sites
            .iter()
            .enumerate()
            .flat_map(|(site, data)| {
                (0..data.questions.len()).map(move |index| witness_ident(site, index))
            });
        let resumes: Vec<TokenStream> = self
            .program
            .sites
            .iter()
            .enumerate()
            .map(|(index, site)| {
                let pc = site.resume as u32;
                let kept_types = self.kept_types(index);
                let restores = self.live[site.resume].iter().flat_map(|id| {
                    let (span, slot_span) = at_binding(&self.program.bindings[*id].ident);
                    self.slots(*id).into_iter().map(move |Slot { ident, frame, .. }| {
                        let slot = Ident::new(&ident.to_string(), slot_span);
                        let literals = literals_ident();
                        {
                            let restore = Ident::new("__mrtr_restore", span);
                            quote_spanned!(span=> #slot = __mrtr_try!(#restore(&__mrtr_frame, #frame, #literals));)
                        }
                    })
                });
                quote!(#pc => {
                    __mrtr_try!(__mrtr_private::check_kept_types(__mrtr_kept_types_in, #kept_types));
                    #(#restores)*
                })
            })
            .collect();
        let arguments = self.args.as_ref().map(|args| {
            let ty = args.ty;
            quote! {
                // Parsed and checked once, before any of the author's code runs.
                #[allow(unused_mut, unused_variables)]
                let mut __mrtr_parsed_arguments: ::core::option::Option<#ty> = ::core::option::Option::Some(__mrtr_try!(__mrtr_private::arguments(__mrtr_arguments)));
            }
        });
        let blocks: Vec<TokenStream> = self
            .order
            .iter()
            .map(|block| {
                let pc = *block as u32;
                let code = self.block(*block);
                quote!(#pc => { #code })
            })
            .collect();
        let label = machine_label();
        let guards: TokenStream = self
            .program
            .guards
            .iter()
            .enumerate()
            .map(|(index, call)| {
                // Declared at the attribute: at the call, rustc would suggest `ref` there.
                let guard = Ident::new(&guard_ident(index, *call).to_string(), Span::mixed_site());
                quote! {
                    #[allow(unused_mut, unused_assignments)]
                    let mut #guard = (__mrtr_private::ContinueInsideAnotherMacroCannotReachALoopThatAsks,);
                }
            })
            .collect();
        let literals = literals_ident();
        let texts = &self.program.literals;
        let suspended = SUSPENDED;
        let checks = self.checks(&crossing);
        quote! {
            #(#items)*
            #(#structs)*
            const #literals: &[&str] = &[#(#texts),*];
            #arguments
            #guards
            #(#[allow(unused_mut, unused_assignments)] let mut #slots = ::core::option::Option::None;)*
            #(#[allow(unused_mut, unused_assignments)] let mut #witnesses = ::core::option::Option::None;)*
            #checks
            #[allow(unused_mut, unused_assignments)]
            let mut __mrtr_suspended: ::core::option::Option<__mrtr_private::Suspension> = ::core::option::Option::None;
            #[allow(unused_mut)]
            let mut __mrtr_pc: u32 = __mrtr_pc_in;
            match __mrtr_pc {
                0 => {}
                #(#resumes)*
                _ => {
                    let __mrtr_error = __mrtr_private::StepError::Frame(::std::format!("no resume point {}", __mrtr_pc));
                    match __mrtr_private::fail(&__mrtr_channel, __mrtr_error).await {}
                }
            }
            // The machine only leaves its loop by suspending or returning: a `break` that
            // reaches it (from inside another macro's expansion) fails to type-check here.
            #[allow(unreachable_code, clippy::never_loop)]
            let __mrtr_stopped: __mrtr_private::BreakInsideAnotherMacroCannotLeaveALoopThatAsks = #label: loop {
                match __mrtr_pc {
                    #(#blocks)*
                    #suspended => match __mrtr_suspended.take() {
                        ::core::option::Option::Some(__mrtr_suspension) => match __mrtr_private::suspend(&__mrtr_channel, __mrtr_suspension).await {},
                        ::core::option::Option::None => {
                            let __mrtr_error = __mrtr_private::StepError::Internal(::std::string::String::from("no suspension to wait at"));
                            match __mrtr_private::fail(&__mrtr_channel, __mrtr_error).await {}
                        }
                    },
                    _ => {
                        let __mrtr_error = __mrtr_private::StepError::Internal(::std::format!("no block {}", __mrtr_pc));
                        match __mrtr_private::fail(&__mrtr_channel, __mrtr_error).await {}
                    }
                }
            };
            #[allow(unreachable_code)]
            match __mrtr_stopped {}
        }
    }

    fn block(&self, block: BlockId) -> TokenStream {
        let plan = &self.plan.blocks[&block];
        let mut prelude = TokenStream::new();
        if let Some(args) = &self.args
            && plan.args
        {
            let (pat, ty) = (args.pat, args.ty);
            prelude.extend(quote! {
                #[allow(unused_variables, unused_mut)]
                let #pat: #ty = __mrtr_try!(__mrtr_private::reuse_arguments(&mut __mrtr_parsed_arguments, __mrtr_arguments));
            });
        }
        for (id, entry) in &plan.entries {
            let binding = &self.program.bindings[*id];
            match entry {
                // Context lookups declared in another block are done again here, as written.
                Entry::Rebuilt => {
                    let rebuild = &binding.rebuild;
                    prelude.extend(quote! {
                        #[allow(unused_variables, unused_mut)]
                        #rebuild
                    })
                }
                Entry::Taken => prelude.extend(self.take(*id)),
                // Given a new value before it is read: declared here, without its old value.
                Entry::Declared => {
                    let ident = &binding.ident;
                    let mutable = binding.mutable.then(|| quote!(mut));
                    prelude.extend(quote! {
                        #[allow(unused_mut)]
                        let #mutable #ident;
                    });
                }
                Entry::Absent => {}
            }
        }
        let code = self.nodes(&self.program.blocks[block].nodes, &plan.nodes);
        quote!(#prelude #code)
    }
}

fn ident_name(ident: &Ident) -> String {
    ident.unraw().to_string()
}
