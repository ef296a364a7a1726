//! Emission: the lowered blocks become a `loop { match pc { .. } }` inside the body future.
//! Values cross blocks in `Option` slots (moved in at a jump, moved out where a block uses
//! them); at a suspension the slots live at the resume point are serialized into the frame, and
//! at a resume they are deserialized back. Everything else of the author's code stays as written.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::{Pat, Type};

use super::lower::{BlockId, JUMP_MARKER, Node, Program, witness_ident};
use super::scope::{BindingId, BindingKind};

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
}

fn slot(id: BindingId) -> Ident {
    format_ident!("__mrtr_slot_{}", id, span = Span::mixed_site())
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
            let name = program.bindings[*id]
                .ident
                .to_string()
                .trim_start_matches("r#")
                .to_owned();
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
    /// The statements of the body future: slots, the resume dispatch and the machine loop.
    pub(crate) fn body(&self) -> TokenStream {
        let slots = self
            .live
            .iter()
            .flatten()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|id| slot(*id));
        let witnesses = self
            .program
            .sites
            .iter()
            .enumerate()
            .flat_map(|(site, data)| {
                (0..data.questions.len()).map(move |index| witness_ident(site, index))
            });
        let resumes = self.program.sites.iter().map(|site| {
            let pc = site.resume as u32;
            let restores = self.live[site.resume].iter().map(|id| {
                let (slot, name) = (slot(*id), &self.frame_names[id]);
                let (span, slot_span) = at_binding(&self.program.bindings[*id].ident);
                let slot = Ident::new(&slot.to_string(), slot_span);
                quote_spanned!(span=> #slot = __mrtr_try!(__mrtr_private::restore(&__mrtr_frame, #name));)
            });
            quote!(#pc => { #(#restores)* })
        });
        let blocks = self.order.iter().map(|block| {
            let pc = *block as u32;
            let code = self.block(*block);
            quote!(#pc => { #code })
        });
        let label = machine_label();
        quote! {
            #(let mut #slots = ::core::option::Option::None;)*
            #(let mut #witnesses = ::core::option::Option::None;)*
            let mut __mrtr_pc: u32 = __mrtr_pc_in;
            match __mrtr_pc {
                0 => {}
                #(#resumes)*
                _ => {
                    let __mrtr_error = __mrtr_private::StepError::Frame(::std::format!("no resume point {}", __mrtr_pc));
                    match __mrtr_private::fail(&__mrtr_channel, __mrtr_error).await {}
                }
            }
            #label: loop {
                match __mrtr_pc {
                    #(#blocks)*
                    _ => {
                        let __mrtr_error = __mrtr_private::StepError::Internal(::std::format!("no block {}", __mrtr_pc));
                        match __mrtr_private::fail(&__mrtr_channel, __mrtr_error).await {}
                    }
                }
            }
        }
    }

    /// Bindings a block has as locals: declared in it, or taken out of their slot because it
    /// uses them. Others live in the block pass through in their slots untouched.
    fn locals(&self, block: BlockId) -> BTreeSet<BindingId> {
        let data = &self.program.blocks[block];
        data.declared
            .iter()
            .chain(self.live[block].intersection(&data.used))
            .copied()
            .collect()
    }

    fn block(&self, block: BlockId) -> TokenStream {
        let data = &self.program.blocks[block];
        let mut prelude = TokenStream::new();
        if let Some(args) = &self.args {
            let rebuild = if args.kept {
                block == 0
            } else {
                args.bindings.iter().any(|id| data.used.contains(id))
            };
            if rebuild {
                let (pat, ty) = (args.pat, args.ty);
                prelude.extend(quote!(let #pat: #ty = __mrtr_try!(__mrtr_private::arguments(__mrtr_arguments));));
            }
        }
        // Context lookups declared in another block are done again here.
        for id in data.used.difference(&data.declared) {
            let binding = &self.program.bindings[*id];
            if let (BindingKind::Derived, Some(rebuild)) = (binding.kind, &binding.rebuild) {
                let ident = &binding.ident;
                prelude.extend(quote!(let #ident = #rebuild;));
            }
        }
        for id in self.live[block].intersection(&data.used) {
            let binding = &self.program.bindings[*id];
            let (ident, slot, name) = (&binding.ident, slot(*id), ident_name(&binding.ident));
            let mutability = binding.mutable.then(|| quote!(mut));
            prelude.extend(quote!(let #mutability #ident = __mrtr_try!(__mrtr_private::unslot(&mut #slot, #name));));
        }
        let locals = self.locals(block);
        let nodes = self.nodes(block, &locals, &data.nodes);
        quote!(#prelude #nodes)
    }

    fn nodes(&self, block: BlockId, locals: &BTreeSet<BindingId>, nodes: &[Node]) -> TokenStream {
        nodes
            .iter()
            .map(|node| self.node(block, locals, node))
            .collect()
    }

    fn node(&self, block: BlockId, locals: &BTreeSet<BindingId>, node: &Node) -> TokenStream {
        match node {
            Node::Code(tokens) => self.markers(locals, tokens.clone()),
            Node::Jump(target) => self.jump(locals, *target),
            Node::Suspend(site) => self.suspend(locals, *site),
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.markers(locals, cond.clone());
                let (then, otherwise) = (
                    self.nodes(block, locals, then),
                    self.nodes(block, locals, otherwise),
                );
                quote!(if #cond { #then } else { #otherwise })
            }
            Node::Match { scrutinee, arms } => {
                let scrutinee = self.markers(locals, scrutinee.clone());
                let arms = arms.iter().map(|(head, body)| {
                    let head = self.markers(locals, head.clone());
                    let body = self.nodes(block, locals, body);
                    quote!(#head => { #body })
                });
                quote!(match #scrutinee { #(#arms)* })
            }
        }
    }

    /// Moves what `target` needs from this block's locals into their slots.
    fn saves(&self, locals: &BTreeSet<BindingId>, target: BlockId) -> TokenStream {
        self.live[target]
            .intersection(locals)
            .map(|id| {
                let (ident, slot) = (&self.program.bindings[*id].ident, slot(*id));
                quote!(#slot = ::core::option::Option::Some(#ident);)
            })
            .collect()
    }

    fn jump(&self, locals: &BTreeSet<BindingId>, target: BlockId) -> TokenStream {
        let saves = self.saves(locals, target);
        let (pc, label) = (target as u32, machine_label());
        quote!({ #saves __mrtr_pc = #pc; continue #label; })
    }

    fn suspend(&self, locals: &BTreeSet<BindingId>, site: usize) -> TokenStream {
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
        let saves = self.saves(locals, data.resume);
        // Each kept value is serialized at the span of its binding: a value that cannot be kept
        // is reported at the author's variable.
        let keeps = self.live[data.resume].iter().map(|id| {
            let (slot, name) = (slot(*id), &self.frame_names[id]);
            let (span, slot_span) = at_binding(&self.program.bindings[*id].ident);
            let slot = Ident::new(&slot.to_string(), slot_span);
            quote_spanned!(span=> __mrtr_try!(__mrtr_private::keep(&mut __mrtr_frame_out, #name, &#slot));)
        });
        let asks = data
            .questions
            .iter()
            .zip(&questions)
            .map(|((key, _, _), question)| quote!(.ask(#key, #question)));
        let pc = data.resume as u32;
        quote!({
            #(#requests)*
            #(#witnesses)*
            #saves
            let mut __mrtr_frame_out = __mrtr_private::Map::new();
            #(#keeps)*
            let __mrtr_suspension = __mrtr_private::Suspension::new(#pc, __mrtr_private::Value::Object(__mrtr_frame_out)) #(#asks)*;
            match __mrtr_private::suspend(&__mrtr_channel, __mrtr_suspension).await {}
        })
    }

    /// Replaces the jump markers the lowering left in the author's code.
    fn markers(&self, locals: &BTreeSet<BindingId>, tokens: TokenStream) -> TokenStream {
        let mut out = Vec::new();
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                TokenTree::Ident(ident) if ident == JUMP_MARKER => {
                    let _bang = tokens.next();
                    let target = match tokens.next() {
                        Some(TokenTree::Group(group)) => group
                            .stream()
                            .to_string()
                            .trim_end_matches("usize")
                            .trim()
                            .parse::<BlockId>()
                            .ok(),
                        _ => None,
                    };
                    let target = target.expect("a jump marker names its block");
                    out.push(TokenTree::Group(Group::new(
                        Delimiter::Brace,
                        self.jump(locals, target),
                    )));
                }
                TokenTree::Group(group) => {
                    let mut inner =
                        Group::new(group.delimiter(), self.markers(locals, group.stream()));
                    inner.set_span(group.span());
                    out.push(TokenTree::Group(inner));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }
}

fn ident_name(ident: &Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_owned()
}
