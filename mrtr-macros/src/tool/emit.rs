//! Emission: the lowered blocks become a `loop { match pc { .. } }` inside the body future.
//!
//! A value that crosses blocks lives in a slot (an `Option` named after its variable) between
//! them. Inside a block it is an ordinary local under its own name: taken out of its slot at
//! the start of a block that uses it, or declared there. It goes back into its slot at a jump
//! or a suspension that needs it, or just before a `let` of an inner scope hides its name. At
//! a suspension the slots live at the resume point are serialized into the frame; at a resume
//! they are deserialized back. The author's code stays as written, in the author's scopes.

use std::collections::{BTreeSet, HashMap};
use syn::ext::IdentExt;

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::{Pat, Type};

use super::fields::FieldPath;
use super::ir::{BlockId, Branch, BranchShape, Code, Flow, Node, Program};
use super::lower::{HOLE, guard_ident, witness_ident};
use super::plan::{self, Entry, Held, Layout};
use super::scope::{BindingId, Visible};

/// The machine's argument parameter, as the blocks rebuild it.
pub(crate) struct ArgsParam<'a> {
    pub(crate) pat: &'a Pat,
    pub(crate) ty: &'a Type,
    pub(crate) bindings: Vec<BindingId>,
    /// `mut`: built once in the first block and kept like a local.
    pub(crate) kept: bool,
}

pub(crate) struct Emitter<'a> {
    pub(crate) program: &'a Program,
    pub(crate) live: &'a [BTreeSet<BindingId>],
    pub(crate) order: &'a [BlockId],
    pub(crate) args: Option<ArgsParam<'a>>,
    pub(crate) frame_names: HashMap<BindingId, String>,
    /// Bindings kept field by field (see `fields.rs`), with the field paths they keep.
    pub(crate) fields: HashMap<BindingId, Vec<FieldPath>>,
}

/// One slot of a binding: the whole value, or one field of a value kept field by field.
struct Slot {
    ident: Ident,
    /// The name in the frame (`name`, `name.field` or `name.field.inner`).
    frame: String,
    field: Option<FieldPath>,
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
    /// The slot's variable: numbered by the binding, so that no two slots share a name
    /// whatever the author's names are (a second `page`, kept as `page.2`, and a `page_2`).
    fn slot(&self, id: BindingId) -> Ident {
        let name = ident_name(&self.program.bindings[id].ident);
        let name = name.trim_start_matches("__mrtr_");
        format_ident!("__mrtr_slot_{}_{}", id, name, span = Span::mixed_site())
    }

    /// The slots a binding lives in between blocks.
    fn slots(&self, id: BindingId) -> Vec<Slot> {
        let (ident, frame) = (self.slot(id), self.frame_name(id));
        match self.fields.get(&id) {
            None => vec![Slot {
                ident,
                frame,
                field: None,
            }],
            Some(paths) => paths
                .iter()
                .map(|path| Slot {
                    ident: format_ident!(
                        "{}__{}",
                        ident,
                        joined(path, "__"),
                        span = Span::mixed_site()
                    ),
                    frame: format!("{frame}.{}", joined(path, ".")),
                    field: Some(path.clone()),
                })
                .collect(),
        }
    }

    fn frame_name(&self, id: BindingId) -> String {
        self.frame_names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| ident_name(&self.program.bindings[id].ident))
    }

    /// The struct a binding kept field by field is rebuilt as, generic over its fields' types;
    /// a field split further (`prefix`, non-empty) is rebuilt as a struct of its own.
    fn fields_struct(&self, id: BindingId, prefix: &[Ident]) -> Ident {
        let slot = self.slot(id).to_string();
        let name = slot.trim_start_matches("__mrtr_slot_");
        let nested: String = prefix
            .iter()
            .map(|field| format!("__{}", ident_name(field)))
            .collect();
        format_ident!(
            "__mrtr_fields_{}{}",
            name,
            nested,
            span = Span::mixed_site()
        )
    }

    /// The rebuilt structs of a binding kept field by field: one for the value, one for each
    /// field split further.
    fn fields_structs(&self, id: BindingId, paths: &[FieldPath]) -> TokenStream {
        split_fields(paths)
            .into_iter()
            .map(|(prefix, fields)| {
                let name = self.fields_struct(id, &prefix);
                let types: Vec<Ident> = (0..fields.len())
                    .map(|index| format_ident!("__MrtrField{}", index))
                    .collect();
                quote! {
                    #[allow(non_camel_case_types)]
                    struct #name<#(#types),*> { #(#fields: #types),* }
                }
            })
            .collect()
    }

    /// The value rebuilt from its slots under `prefix`: `S { a: .., item: S_item { .. } }`
    /// (`structs` is [`split_fields`] of the kept paths).
    fn rebuild(
        &self,
        id: BindingId,
        prefix: &[Ident],
        structs: &[(Vec<Ident>, Vec<Ident>)],
        slots: &[Slot],
    ) -> TokenStream {
        let fields = structs
            .iter()
            .find(|(split, _)| split.as_slice() == prefix)
            .map_or(&[][..], |(_, fields)| fields.as_slice());
        let values = fields.iter().map(|field| {
            let mut path = prefix.to_vec();
            path.push(field.clone());
            match slots.iter().find(|slot| slot.field.as_ref() == Some(&path)) {
                Some(Slot { ident, frame, .. }) => {
                    quote!(__mrtr_try!(__mrtr_private::unslot(&mut #ident, #frame)))
                }
                None => self.rebuild(id, &path, structs, slots),
            }
        });
        let name = self.fields_struct(id, prefix);
        quote!(#name { #(#fields: #values),* })
    }

    /// Moves a held value into its slots: `slot = Some(value)`, or a slot per kept field.
    fn store(&self, id: BindingId) -> TokenStream {
        let ident = &self.program.bindings[id].ident;
        self.slots(id)
            .into_iter()
            .map(
                |Slot {
                     ident: slot, field, ..
                 }| match field {
                    None => quote!(#slot = ::core::option::Option::Some(#ident);),
                    Some(path) => quote!(#slot = ::core::option::Option::Some(#ident #(.#path)*);),
                },
            )
            .collect()
    }

    fn layout(&self) -> Layout<'_> {
        Layout {
            program: self.program,
            live: self.live,
        }
    }

    /// The statements of the body future: items, slots, the resume dispatch and the machine.
    pub(crate) fn body(&mut self) -> TokenStream {
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
        let order = self.order.to_vec();
        let blocks: Vec<TokenStream> = order
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

    fn block(&mut self, block: BlockId) -> TokenStream {
        let data = &self.program.blocks[block];
        let mut prelude = TokenStream::new();
        let mut held = Held::default();
        if let Some(args) = &self.args
            && self
                .layout()
                .rebuilds_args(block, &args.bindings, args.kept)
        {
            let (pat, ty) = (args.pat, args.ty);
            prelude.extend(quote! {
                #[allow(unused_variables, unused_mut)]
                let #pat: #ty = __mrtr_try!(__mrtr_private::reuse_arguments(&mut __mrtr_parsed_arguments, __mrtr_arguments));
            });
            held.0.extend(args.bindings.iter().copied());
        }
        for id in data.entry.values() {
            let binding = &self.program.bindings[*id];
            match self.layout().entry(block, *id) {
                // Context lookups declared in another block are done again here, as written.
                Entry::Rebuilt => {
                    let rebuild = &binding.rebuild;
                    prelude.extend(quote! {
                        #[allow(unused_variables, unused_mut)]
                        #rebuild
                    })
                }
                Entry::Taken => {
                    prelude.extend(self.take(*id));
                    held.0.insert(*id);
                }
                // Given a new value before it is read: declared here, without its old value.
                Entry::Declared => {
                    let ident = &binding.ident;
                    let mutable = binding.mutable.then(|| quote!(mut));
                    prelude.extend(quote! {
                        #[allow(unused_mut)]
                        let #mutable #ident;
                    });
                    held.0.insert(*id);
                }
                Entry::Absent => {}
            }
        }
        let live_out = self.layout().live_out(block);
        let nodes = &self.program.blocks[block].nodes;
        let (code, _) = self.nodes(block, &live_out, &mut held, nodes);
        quote!(#prelude #code)
    }

    /// The bounds on the slots, each reported once, at the author's variable.
    ///
    /// A kept value is written and read through `__mrtr_keep` and `__mrtr_restore`, whose
    /// bound is one trait: rustc reports a type that cannot be kept once, naming it, instead of
    /// each unmet part (`Serialize`, `Deserialize`, at any depth of the type). A value living
    /// in a slot must be `Send`, as the round's future is: an error naming the value, where
    /// rustc would report the future on the attribute. Each trait has a second impl that never
    /// applies, so that rustc reports the unmet bound itself instead of its parts. Each slot's
    /// `Send` check is a block of its own, so its items cannot meet the author's.
    fn checks(&self, crossing: &BTreeSet<BindingId>) -> TokenStream {
        let mut checks = TokenStream::new();
        if !self.program.sites.is_empty() {
            checks.extend(quote! {
                #[allow(dead_code)]
                trait __MrtrNeverImplemented {}
                #[diagnostic::on_unimplemented(
                    message = "`{Self}` cannot be kept in requestState across an `ask!`",
                    label = "this value is used after an `ask!`, so it is kept in requestState",
                    note = "kept values must implement Serialize and DeserializeOwned (derive them, forms and choices included) and cannot be references (except a `&'static str` that is one of the tool's string literals); or create the value again after the ask, or reach it through the context (`cx.state()`)"
                )]
                trait KeptAcrossAsk<M>: __mrtr_private::Kept {}
                impl<T: __mrtr_private::Kept> KeptAcrossAsk<()> for T {}
                impl<T: __mrtr_private::Kept + __MrtrNeverImplemented> KeptAcrossAsk<u8> for T {}
                fn __mrtr_keep<M, T: KeptAcrossAsk<M>>(
                    frame: &mut __mrtr_private::Frame,
                    name: &str,
                    slot: &::core::option::Option<T>,
                ) -> ::core::result::Result<(), __mrtr_private::StepError> {
                    __mrtr_private::keep(frame, name, slot)
                }
                fn __mrtr_restore<M, T: KeptAcrossAsk<M>>(
                    frame: &__mrtr_private::Frame,
                    name: &str,
                    literals: &'static [&'static str],
                ) -> ::core::result::Result<::core::option::Option<T>, __mrtr_private::StepError> {
                    let value = __mrtr_private::restore(frame, name, literals)?;
                    // With mrtr's `testing` feature, fails when the value does not encode
                    // back to its bytes; otherwise nothing.
                    __mrtr_private::check_kept_round_trip(frame, name, &value);
                    ::core::result::Result::Ok(value)
                }
            });
        }
        for id in crossing {
            let binding = &self.program.bindings[*id].ident;
            let (span, slot_span) = at_binding(binding);
            for Slot { ident, field, .. } in self.slots(*id) {
                let slot = Ident::new(&ident.to_string(), slot_span);
                let name = match &field {
                    None => ident_name(binding),
                    Some(path) => format!("{}.{}", ident_name(binding), joined(path, ".")),
                };
                let message = format!(
                    "`{name}` cannot live across an `ask!`: its type `{{Self}}` is not `Send`"
                );
                // Called where it never runs: the slot's type is checked, not its value.
                let send_check = Ident::new("send_across_ask", span);
                let call = quote_spanned!(span=> #slot = #send_check(););
                checks.extend(quote! {
                    {
                        trait NeverImplemented {}
                        #[diagnostic::on_unimplemented(
                            message = #message,
                            label = "this value lives across an `ask!`",
                            note = "a tool's rounds may run on any thread, so a value that lives across an `ask!` must be `Send`: use `Arc` instead of `Rc` and `std::sync::Mutex` instead of `RefCell`, or create the value again after the ask"
                        )]
                        trait SendAcrossAsk<M> {}
                        impl<T: ::core::marker::Send> SendAcrossAsk<()> for T {}
                        impl<T: ::core::marker::Send + NeverImplemented> SendAcrossAsk<u8> for T {}
                        fn send_across_ask<M, T: SendAcrossAsk<M>>() -> ::core::option::Option<T> {
                            ::core::option::Option::None
                        }
                        #[allow(unreachable_code, unused_assignments)]
                        if false {
                            #call
                        }
                    }
                });
            }
        }
        checks
    }

    /// Emits a sequence; also says whether it can complete (hand a value out) in place.
    fn nodes(
        &mut self,
        block: BlockId,
        live_out: &BTreeSet<BindingId>,
        held: &mut Held,
        nodes: &[Node],
    ) -> (TokenStream, bool) {
        let mut out = TokenStream::new();
        let mut completes = true;
        for node in nodes {
            let (code, node_completes) = self.node(block, live_out, held, node);
            out.extend(code);
            completes = node_completes;
        }
        (out, completes)
    }

    fn node(
        &mut self,
        block: BlockId,
        live_out: &BTreeSet<BindingId>,
        held: &mut Held,
        node: &Node,
    ) -> (TokenStream, bool) {
        match node {
            Node::Stmt(code) => {
                let (before, after, back) = self.around_hidden_exits(held, &[code], &[]);
                let code = self.fill(held, code);
                held.0.extend(back);
                (quote!(#before #code #after), true)
            }
            Node::Tail(code) => (self.fill(held, code), true),
            Node::Let {
                attrs,
                pat,
                init,
                diverge,
                declares,
                hides,
            } => {
                let codes: Vec<&Code> = std::iter::once(init).chain(diverge.as_ref()).collect();
                let (before, after, back) = self.around_hidden_exits(held, &codes, declares);
                let init = self.fill(held, init);
                // A value the machine still needs is put in its slot before a `let` of an
                // inner scope hides its name, after the initializer (which may read it) ran.
                let hidden = self.layout().hidden_by_let(held, hides, live_out);
                // The `else` of a `let .. else` runs after that: it finds those values in their
                // slots, and takes back the ones it reads.
                let retaken: Vec<BindingId> = hidden
                    .iter()
                    .copied()
                    .filter(|id| diverge.as_ref().is_some_and(|code| code.uses.contains(id)))
                    .collect();
                let mut diverge_held = held.clone();
                diverge_held
                    .0
                    .retain(|id| !hidden.contains(id) || retaken.contains(id));
                let diverge = diverge
                    .as_ref()
                    .map(|diverge| self.fill(&diverge_held, diverge));
                // `mut` may be used only in a later block, where the value is taken out of its
                // slot again: this block alone would warn of an unused `mut` the source has not.
                let crosses = declares.iter().any(|id| {
                    self.program.bindings[*id].mutable
                        && (live_out.contains(id)
                            || self
                                .program
                                .blocks
                                .iter()
                                .any(|block| block.assigned_first.contains_key(id)))
                });
                let attrs = match crosses {
                    true => quote!(#attrs #[allow(unused_mut)]),
                    false => attrs.clone(),
                };
                let retakes: TokenStream = retaken.iter().map(|id| self.take(*id)).collect();
                let diverge = diverge.map(|diverge| match retakes.is_empty() {
                    true => quote!(else #diverge),
                    false => quote!(else { #retakes #diverge }),
                });
                let code = if hidden.is_empty() {
                    quote!(#attrs let #pat = #init #diverge;)
                } else {
                    let saves = self.move_to_slots(held, &hidden);
                    let value = Ident::new("__mrtr_initializer", Span::mixed_site());
                    quote!(let #value = #init; #saves #attrs let #pat = #value #diverge;)
                };
                held.0.extend(declares.iter().copied());
                held.0.extend(back);
                (quote!(#before #code #after), true)
            }
            Node::Jump { target, visible } => {
                let jump = self.jump(held, *target, visible, &BTreeSet::new());
                (quote!(#[allow(unreachable_code)] #jump), false)
            }
            Node::Suspend { site, visible } => (self.suspend(held, *site, visible), false),
            Node::Branch(branch) => self.branch(block, live_out, held, branch),
        }
    }

    /// Puts away, around the author's statement, the values its `break`/`continue` cannot save
    /// where an inner binding hides them (see `Layout::hidden_at_exits`): the code before and
    /// after the statement, and the values held again after it.
    fn around_hidden_exits(
        &mut self,
        held: &mut Held,
        codes: &[&Code],
        declares: &[BindingId],
    ) -> (TokenStream, TokenStream, Vec<BindingId>) {
        let (hidden, back) = self.layout().hidden_at_exits(held, codes, declares);
        let before = self.move_to_slots(held, &hidden);
        let after = back.iter().map(|id| self.take(*id)).collect();
        (before, after, back)
    }

    /// Takes a value out of its slot into a local of its own name.
    fn take(&self, id: BindingId) -> TokenStream {
        let binding = &self.program.bindings[id];
        let ident = &binding.ident;
        let mutability = binding.mutable.then(|| quote!(mut));
        let unslot = |Slot { ident, frame, .. }: &Slot| {
            quote!(__mrtr_try!(__mrtr_private::unslot(&mut #ident, #frame)))
        };
        let slots = self.slots(id);
        let value = match self.fields.get(&id) {
            None => unslot(&slots[0]),
            Some(paths) => self.rebuild(id, &[], &split_fields(paths), &slots),
        };
        quote! {
            #[allow(unused_mut, unused_variables)]
            let #mutability #ident = #value;
        }
    }

    fn move_to_slots(&self, held: &mut Held, ids: &[BindingId]) -> TokenStream {
        ids.iter()
            .map(|id| {
                held.0.remove(id);
                let store = self.store(*id);
                quote!(#[allow(unused_assignments, unreachable_code)] { #store })
            })
            .collect()
    }

    fn branch(
        &mut self,
        block: BlockId,
        live_out: &BTreeSet<BindingId>,
        held: &mut Held,
        branch: &Branch,
    ) -> (TokenStream, bool) {
        let before = held.clone();
        let early = self.layout().early(held, live_out, branch);
        let early_saves = self.move_to_slots(held, &early);
        let late = self.layout().late(held, live_out, branch);
        let late_saves = self.move_to_slots(held, &late);
        let early: Vec<BindingId> = early.into_iter().chain(late).collect();
        // Each arm starts from the same bindings; after the construct, a binding is held
        // where every arm that completes in place still holds it.
        let mut arms = Vec::new();
        for arm in &branch.arms {
            let mut arm_held = self.layout().arm_entry(held, &early, arm);
            let retake: TokenStream = early
                .iter()
                .filter(|id| !arm.hides.contains(id))
                .map(|id| self.take(*id))
                .collect();
            let (nodes, tail) = plan::split_tail(&arm.nodes);
            let (code, mut completes) = self.nodes(block, live_out, &mut arm_held, nodes);
            if tail.is_none() && nodes.last().is_some_and(plan::visibly_diverges) {
                completes = false;
            }
            let tail = tail.map(|tail| {
                completes = true;
                self.fill(&arm_held, tail)
            });
            arms.push((retake, code, tail, completes, arm_held));
        }
        let completes = arms.iter().any(|(_, _, _, completes, _)| *completes);
        let kept_by_all = Layout::kept_by_all(
            held,
            arms.iter()
                .filter(|(_, _, _, completes, _)| *completes)
                .map(|(_, _, _, _, arm)| arm),
        );
        let mut bodies = Vec::new();
        for ((retake, code, tail, completes, arm_held), arm) in arms.into_iter().zip(&branch.arms) {
            let put_away =
                Layout::put_away(held, &early, &arm_held, completes, &kept_by_all, live_out);
            // Refused by `check` before emission.
            debug_assert!(put_away.iter().all(|id| !arm.hides.contains(id)));
            let saves = self.move_to_slots(&mut arm_held.clone(), &put_away);
            let value = Ident::new("__mrtr_arm_value", Span::mixed_site());
            let body = match tail {
                Some(tail) if !put_away.is_empty() => {
                    quote!(#retake #code let #value = #tail; #saves #value)
                }
                Some(tail) => quote!(#retake #code #tail),
                // An arm ending with a construct kept in place has that construct's value: the
                // arm's code becomes a block, so that the values are put away after it.
                None if !put_away.is_empty() => {
                    quote!(#retake let #value = { #code }; #saves #value)
                }
                None => quote!(#retake #code),
            };
            bodies.push(body);
        }
        held.0 = kept_by_all;
        let construct = match &branch.shape {
            BranchShape::If { pattern, cond } => {
                let cond = self.fill(held, cond);
                let cond = match pattern {
                    Some(pattern) => {
                        let scrutinee = after_saves(cond, &late_saves);
                        quote!(let #pattern = #scrutinee)
                    }
                    None => cond,
                };
                let (then, otherwise) = (&bodies[0], &bodies[1]);
                quote!(if #cond { #then } else { #otherwise })
            }
            BranchShape::Match { scrutinee, heads } => {
                let scrutinee = self.fill(held, scrutinee);
                let scrutinee = after_saves(scrutinee, &late_saves);
                let heads: Vec<TokenStream> =
                    heads.iter().map(|head| self.fill(held, head)).collect();
                quote!(match #scrutinee { #(#heads => { #bodies })* })
            }
            BranchShape::Block => {
                let body = &bodies[0];
                quote!({ #body })
            }
        };
        let code = match branch.dest {
            Flow::Tail => return (quote!(#early_saves #construct), completes),
            Flow::Return => {
                let code = quote!(#[allow(unreachable_code)] return #construct;);
                return (quote!(#early_saves #code), false);
            }
            Flow::Discard(_) => quote!(#[allow(unreachable_code)] { #construct };),
            Flow::Value(binding, _) => {
                let ident = &self.program.bindings[binding].ident;
                held.0.insert(binding);
                let ty = self.program.bindings[binding]
                    .annotation
                    .as_ref()
                    .map(|ty| quote!(: #ty));
                quote!(#[allow(unreachable_code)] let #ident #ty = #construct;)
            }
        };
        match branch.dest.join() {
            Some(join) => {
                let jump = self.jump(held, join, &branch.visible, &BTreeSet::new());
                (
                    quote!(#early_saves #code #[allow(unreachable_code)] #jump),
                    false,
                )
            }
            // Going on in place, where only an arm that completes here gets to.
            None if completes => {
                let back = Layout::taken_back(&before, held);
                let retakes: TokenStream = back.iter().map(|id| self.take(*id)).collect();
                held.0.extend(back);
                (quote!(#early_saves #code #retakes), true)
            }
            None => (quote!(#early_saves #code), false),
        }
    }

    /// Saves what `target` needs and jumps there.
    fn jump(
        &mut self,
        held: &Held,
        target: BlockId,
        visible: &Visible,
        hidden: &BTreeSet<String>,
    ) -> TokenStream {
        let saves = self.saves(held, target, visible, hidden);
        let (pc, label) = (target as u32, machine_label());
        quote!({ #saves __mrtr_pc = #pc; continue #label; })
    }

    /// Moves the values `target` needs from this block's locals into their slots (the others
    /// are in their slots already).
    fn saves(
        &mut self,
        held: &Held,
        target: BlockId,
        visible: &Visible,
        hidden: &BTreeSet<String>,
    ) -> TokenStream {
        // Refused by `check` before emission.
        debug_assert!(
            self.layout()
                .unsavable(held, target, visible, hidden)
                .is_empty()
        );
        self.live[target]
            .intersection(&held.0)
            .flat_map(|id| self.store(*id))
            .collect()
    }

    fn suspend(&mut self, held: &Held, site: usize, visible: &Visible) -> TokenStream {
        let data = &self.program.sites[site];
        let questions: Vec<Ident> = (0..data.questions.len())
            .map(|index| format_ident!("__mrtr_question_{}", index, span = Span::mixed_site()))
            .collect();
        let requests = data
            .questions
            .iter()
            .zip(&questions)
            .map(|((_, _, request), question)| quote!(let #question = #request;));
        let witnesses = questions.iter().enumerate().map(|(index, question)| {
            let witness = witness_ident(site, index);
            quote!(#witness = ::core::option::Option::Some(__mrtr_private::answer_type(&#question));)
        });
        let resume = data.resume;
        let saves = self.saves(held, resume, visible, &BTreeSet::new());
        // Each kept value is serialized at the span of its binding: a value that cannot be kept
        // is reported at the author's variable.
        let keeps = self.live[resume].iter().flat_map(|id| {
            let (span, slot_span) = at_binding(&self.program.bindings[*id].ident);
            self.slots(*id).into_iter().map(move |Slot { ident, frame, .. }| {
                let slot = Ident::new(&ident.to_string(), slot_span);
                {
                let keep = Ident::new("__mrtr_keep", span);
                quote_spanned!(span=> __mrtr_try!(#keep(&mut __mrtr_frame_out, #frame, &#slot));)
            }
            })
        });
        let data = &self.program.sites[site];
        let asks = data
            .questions
            .iter()
            .zip(&questions)
            .map(|((key, _, _), question)| quote!(.ask(#key, #question)));
        let pc = resume as u32;
        let kept_types = self.kept_types(site);
        let (suspended, label) = (SUSPENDED, machine_label());
        quote!(#[allow(unreachable_code, unused_assignments)] {
            #(#requests)*
            #(#witnesses)*
            #saves
            let mut __mrtr_frame_out = __mrtr_private::Frame::new();
            #(#keeps)*
            __mrtr_suspended = ::core::option::Option::Some(__mrtr_private::Suspension::new(#pc, __mrtr_frame_out.into_value())
                .keeping(__mrtr_private::kept_types_once(#kept_types))
                #(#asks)*);
            // The round ends outside the author's scopes: what is not kept drops here.
            __mrtr_pc = #suspended;
            continue #label;
        })
    }

    /// The arguments naming what resume point `site` keeps and expects, for its signature: its
    /// cache, then each kept slot's name and type and each answer's type, sorted by name so
    /// that declaration order does not count.
    fn kept_types(&self, site: usize) -> TokenStream {
        let data = &self.program.sites[site];
        let mut entries: Vec<(String, TokenStream)> = self.live[data.resume]
            .iter()
            .flat_map(|id| self.slots(*id))
            .map(|Slot { ident, frame, .. }| (frame, quote!(__mrtr_private::type_of(&#ident))))
            .collect();
        for (index, (key, _, _)) in data.questions.iter().enumerate() {
            let witness = witness_ident(site, index);
            entries.push((
                format!("ask {key}"),
                quote!(__mrtr_private::answer_type_of(&#witness)),
            ));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let entries = entries
            .iter()
            .map(|(name, type_name)| quote!((#name, #type_name)));
        // The signature is hashed once per process; each use site has its own cache.
        quote!(
            {
                static __MRTR_KEPT_TYPES: ::std::sync::OnceLock<u32> = ::std::sync::OnceLock::new();
                &__MRTR_KEPT_TYPES
            },
            &[#(#entries),*]
        )
    }

    /// The code with its holes filled: each a jump out of a lowered loop.
    fn fill(&mut self, held: &Held, code: &Code) -> TokenStream {
        if code.holes.is_empty() {
            return code.tokens.clone();
        }
        let mut holes = code.holes.iter();
        self.fill_tokens(held, code.tokens.clone(), &mut holes)
    }

    fn fill_tokens(
        &mut self,
        held: &Held,
        tokens: TokenStream,
        holes: &mut std::slice::Iter<'_, usize>,
    ) -> TokenStream {
        let mut out = Vec::new();
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if ident == HOLE => {
                    let hole = *holes.next().expect("one hole per placeholder");
                    let exit = &self.program.holes[hole];
                    let mut held = held.clone();
                    let value = exit.value.as_ref().map(|(binding, value)| {
                        let value = value.clone().unwrap_or_else(|| quote!(()));
                        match binding {
                            Some(binding) => {
                                held.0.insert(*binding);
                                let ident = &self.program.bindings[*binding].ident;
                                let ty = self.program.bindings[*binding]
                                    .annotation
                                    .as_ref()
                                    .map(|ty| quote!(: #ty));
                                quote!(let #ident #ty = #value;)
                            }
                            None => quote!(let _ = #value;),
                        }
                    });
                    let (target, visible, hidden) =
                        (exit.target, exit.visible.clone(), exit.hidden.clone());
                    let jump = self.jump(&held, target, &visible, &hidden);
                    out.push(TokenTree::Group(proc_macro2::Group::new(
                        proc_macro2::Delimiter::Brace,
                        quote!(#value #jump),
                    )));
                }
                TokenTree::Group(group) => {
                    let mut inner = proc_macro2::Group::new(
                        group.delimiter(),
                        self.fill_tokens(held, group.stream(), holes),
                    );
                    inner.set_span(group.span());
                    out.push(TokenTree::Group(inner));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }
}

/// A scrutinee that puts values away once it is evaluated, before a pattern binds.
fn after_saves(scrutinee: TokenStream, saves: &TokenStream) -> TokenStream {
    if saves.is_empty() {
        return scrutinee;
    }
    let value = Ident::new("__mrtr_scrutinee", Span::mixed_site());
    quote!({ let #value = #scrutinee; #saves #value })
}

fn ident_name(ident: &Ident) -> String {
    ident.unraw().to_string()
}

/// A field path's names joined by `separator`.
fn joined(path: &[Ident], separator: &str) -> String {
    path.iter()
        .map(ident_name)
        .collect::<Vec<_>>()
        .join(separator)
}

/// The structs a value kept along `paths` is rebuilt from: for the value (prefix `[]`) and for
/// each field split further, its prefix and its fields in the order first read.
fn split_fields(paths: &[FieldPath]) -> Vec<(Vec<Ident>, Vec<Ident>)> {
    let mut structs: Vec<(Vec<Ident>, Vec<Ident>)> = Vec::new();
    for path in paths {
        for depth in 0..path.len() {
            let (prefix, field) = (&path[..depth], &path[depth]);
            match structs
                .iter_mut()
                .find(|(known, _)| known.as_slice() == prefix)
            {
                Some((_, fields)) if fields.contains(field) => {}
                Some((_, fields)) => fields.push(field.clone()),
                None => structs.push((prefix.to_vec(), vec![field.clone()])),
            }
        }
    }
    structs
}
