//! A block's nodes: the author's code as written, the constructs kept in place, and the jumps,
//! each printed with the saves and retakes its [`NodePlan`] lists.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::{Emitter, machine_label};
use crate::tool::ir::{Arm, BlockId, Branch, BranchShape, Code, Flow, Node};
use crate::tool::plan::{ArmPlan, BranchPlan, Exits, LetPlan, NodePlan, split_tail};
use crate::tool::scope::BindingId;

impl Emitter<'_> {
    /// Emits a sequence as its plan says (a plan per node).
    pub(super) fn nodes(&self, nodes: &[Node], plans: &[NodePlan]) -> TokenStream {
        debug_assert_eq!(nodes.len(), plans.len(), "a plan per node");
        nodes
            .iter()
            .zip(plans)
            .map(|(node, plan)| self.node(node, plan))
            .collect()
    }

    fn node(&self, node: &Node, plan: &NodePlan) -> TokenStream {
        match (node, plan) {
            (Node::Stmt(code), NodePlan::Stmt { exits, holes }) => {
                let (before, after) = self.around_hidden_exits(exits);
                let code = self.fill(code, holes);
                quote!(#before #code #after)
            }
            (Node::Tail(code), NodePlan::Tail { holes }) => self.fill(code, holes),
            (
                Node::Let {
                    attrs,
                    pat,
                    init,
                    diverge,
                    ..
                },
                NodePlan::Let(plan),
            ) => self.let_(attrs, pat, init, diverge.as_ref(), plan),
            (Node::Jump { target, .. }, NodePlan::Jump { saves }) => {
                let jump = self.jump(*target, saves);
                quote!(#[allow(unreachable_code)] #jump)
            }
            (Node::Suspend { site, .. }, NodePlan::Suspend { saves }) => self.suspend(*site, saves),
            (Node::Branch(branch), NodePlan::Branch(plan)) => self.branch(branch, plan),
            _ => unreachable!("the plan is shaped like the nodes"),
        }
    }

    fn let_(
        &self,
        attrs: &TokenStream,
        pat: &TokenStream,
        init: &Code,
        diverge: Option<&Code>,
        plan: &LetPlan,
    ) -> TokenStream {
        let (before, after) = self.around_hidden_exits(&plan.exits);
        let init = self.fill(init, &plan.init);
        // The values the `let` hides go into their slots after the initializer (which may
        // read them) ran; the `else` of a `let .. else` takes back the ones it reads.
        let diverge = diverge.map(|diverge| self.fill(diverge, &plan.diverge));
        // `mut` may be used only in a later block, where the value is taken out of its
        // slot again: this block alone would warn of an unused `mut` the source has not.
        let attrs = match plan.crosses {
            true => quote!(#attrs #[allow(unused_mut)]),
            false => attrs.clone(),
        };
        let retakes: TokenStream = plan.retaken.iter().map(|id| self.take(*id)).collect();
        let diverge = diverge.map(|diverge| match retakes.is_empty() {
            true => quote!(else #diverge),
            false => quote!(else { #retakes #diverge }),
        });
        let code = if plan.hidden.is_empty() {
            quote!(#attrs let #pat = #init #diverge;)
        } else {
            let saves = self.move_to_slots(&plan.hidden);
            let value = Ident::new("__mrtr_initializer", Span::mixed_site());
            quote!(let #value = #init; #saves #attrs let #pat = #value #diverge;)
        };
        quote!(#before #code #after)
    }

    /// Puts away, around the author's statement, the values its `break`/`continue` cannot save
    /// where an inner binding hides them: the code before the statement and after it.
    fn around_hidden_exits(&self, exits: &Exits) -> (TokenStream, TokenStream) {
        let before = self.move_to_slots(&exits.put_away);
        let after = exits.back.iter().map(|id| self.take(*id)).collect();
        (before, after)
    }

    fn branch(&self, branch: &Branch, plan: &BranchPlan) -> TokenStream {
        let early_saves = self.move_to_slots(&plan.early);
        let late_saves = self.move_to_slots(&plan.late);
        debug_assert_eq!(branch.arms.len(), plan.arms.len(), "a plan per arm");
        let bodies: Vec<TokenStream> = branch
            .arms
            .iter()
            .zip(&plan.arms)
            .map(|(arm, plan)| self.arm(arm, plan))
            .collect();
        let construct = match &branch.shape {
            BranchShape::If { pattern, cond } => {
                let cond = self.fill(cond, &plan.head);
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
                let scrutinee = self.fill(scrutinee, &plan.head);
                let scrutinee = after_saves(scrutinee, &late_saves);
                let heads = heads
                    .iter()
                    .zip(&plan.patterns)
                    .map(|(head, holes)| self.fill(head, holes));
                quote!(match #scrutinee { #(#heads => { #bodies })* })
            }
            BranchShape::Block => {
                let body = &bodies[0];
                quote!({ #body })
            }
        };
        let code = match branch.dest {
            Flow::Tail => return quote!(#early_saves #construct),
            Flow::Return => {
                let code = quote!(#[allow(unreachable_code)] return #construct;);
                return quote!(#early_saves #code);
            }
            Flow::Discard(_) => quote!(#[allow(unreachable_code)] { #construct };),
            Flow::Value(binding, _) => {
                let ident = &self.program.bindings[binding].ident;
                let ty = self.program.bindings[binding]
                    .annotation
                    .as_ref()
                    .map(|ty| quote!(: #ty));
                quote!(#[allow(unreachable_code)] let #ident #ty = #construct;)
            }
        };
        match branch.dest.join() {
            Some(join) => {
                let jump = self.jump(join, &plan.join);
                quote!(#early_saves #code #[allow(unreachable_code)] #jump)
            }
            // Going on in place: what the arms put away comes back (nothing where no arm
            // completes here).
            None => {
                let retakes: TokenStream =
                    plan.taken_back.iter().map(|id| self.take(*id)).collect();
                quote!(#early_saves #code #retakes)
            }
        }
    }

    /// An arm: the values put away before the construct that it does not hide taken back,
    /// its code, and where arms disagree the values it puts away at its end.
    fn arm(&self, arm: &Arm, plan: &ArmPlan) -> TokenStream {
        let retake: TokenStream = plan.retake.iter().map(|id| self.take(*id)).collect();
        let (nodes, tail) = split_tail(&arm.nodes);
        let code = self.nodes(nodes, &plan.nodes);
        let tail = tail.map(|tail| self.fill(tail, &plan.tail));
        let ends_with_construct = tail.is_none() && matches!(nodes.last(), Some(Node::Branch(_)));
        let saves = self.move_to_slots(&plan.put_away);
        let value = Ident::new("__mrtr_arm_value", Span::mixed_site());
        match tail {
            Some(tail) if !plan.put_away.is_empty() => {
                quote!(#retake #code let #value = #tail; #saves #value)
            }
            Some(tail) => quote!(#retake #code #tail),
            // An arm ending with a construct kept in place has that construct's value: the
            // arm's code becomes a block, so that the values are put away after it.
            None if !plan.put_away.is_empty() && ends_with_construct => {
                quote!(#retake let #value = { #code }; #saves #value)
            }
            // Its value is `()`: the values are put away after its code, in its scope,
            // where what the code took back is still held.
            None if !plan.put_away.is_empty() => quote!(#retake #code #saves),
            None => quote!(#retake #code),
        }
    }

    /// Saves what the target needs (`saves`, from the plan) and jumps there.
    pub(super) fn jump(&self, target: BlockId, saves: &[BindingId]) -> TokenStream {
        let saves: TokenStream = saves.iter().flat_map(|id| self.store(*id)).collect();
        let (pc, label) = (target as u32, machine_label());
        quote!({ #saves __mrtr_pc = #pc; continue #label; })
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
