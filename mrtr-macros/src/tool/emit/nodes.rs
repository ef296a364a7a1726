//! A block's nodes: the author's code as written, the constructs kept in place, and the jumps
//! with what they put away.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::{Emitter, machine_label};
use crate::tool::ir::{BlockId, Branch, BranchShape, Code, Flow, Node};
use crate::tool::plan::{self, Held, Layout};
use crate::tool::scope::{BindingId, Visible};

impl Emitter<'_> {
    /// Emits a sequence; also says whether it can complete (hand a value out) in place.
    pub(super) fn nodes(
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

    pub(super) fn node(
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
                held.take_back(back);
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
                needed_after,
            } => {
                let codes: Vec<&Code> = std::iter::once(init).chain(diverge.as_ref()).collect();
                let (before, after, back) = self.around_hidden_exits(held, &codes, declares);
                let init = self.fill(held, init);
                // A value the machine still needs is put in its slot before a `let` of an
                // inner scope hides its name, after the initializer (which may read it) ran.
                let hidden = self
                    .layout()
                    .hidden_by_let(held, hides, live_out, needed_after);
                let forgotten = self.layout().forgotten_by_let(held, hides, needed_after);
                // The `else` of a `let .. else` runs after that: it finds those values in their
                // slots, and takes back the ones it reads.
                let retaken: Vec<BindingId> = hidden
                    .iter()
                    .copied()
                    .filter(|id| diverge.as_ref().is_some_and(|code| code.uses.contains(id)))
                    .collect();
                let mut diverge_held = held.clone();
                diverge_held.put_away(hidden.iter().filter(|id| !retaken.contains(id)));
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
                held.put_away(&forgotten);
                held.declare(declares.iter().copied());
                held.take_back(back);
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

    pub(super) fn branch(
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
            let ends_with_construct =
                tail.is_none() && matches!(nodes.last(), Some(Node::Branch(_)));
            arms.push((retake, code, tail, completes, arm_held, ends_with_construct));
        }
        let completes = arms.iter().any(|(_, _, _, completes, _, _)| *completes);
        let kept_by_all = Layout::kept_by_all(
            held,
            arms.iter()
                .filter(|(_, _, _, completes, _, _)| *completes)
                .map(|(_, _, _, _, arm, _)| arm),
        );
        let mut bodies = Vec::new();
        for ((retake, code, tail, completes, arm_held, ends_with_construct), arm) in
            arms.into_iter().zip(&branch.arms)
        {
            let put_away = Layout::put_away(
                held,
                &early,
                &arm_held,
                completes,
                &kept_by_all,
                live_out,
                &branch.needed_after,
            );
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
                None if !put_away.is_empty() && ends_with_construct => {
                    quote!(#retake let #value = { #code }; #saves #value)
                }
                // Its value is `()`: the values are put away after its code, in its scope,
                // where what the code took back is still held.
                None if !put_away.is_empty() => quote!(#retake #code #saves),
                None => quote!(#retake #code),
            };
            bodies.push(body);
        }
        held.keep_only(&kept_by_all);
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
                held.declare([binding]);
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
                let back = Layout::taken_back(&before, held, &branch.needed_after);
                let retakes: TokenStream = back.iter().map(|id| self.take(*id)).collect();
                held.take_back(back);
                (quote!(#early_saves #code #retakes), true)
            }
            None => (quote!(#early_saves #code), false),
        }
    }

    /// Saves what `target` needs and jumps there.
    pub(super) fn jump(
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
    pub(super) fn saves(
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
            .intersection(held.locals())
            .flat_map(|id| self.store(*id))
            .collect()
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
