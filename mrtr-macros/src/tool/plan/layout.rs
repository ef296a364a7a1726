//! The decisions, each a function of the program, its liveness and what is held where it is
//! asked: what a block takes from its slots, what a jump saves and what it cannot, what goes
//! into a slot around a `let`, a construct or an exit hidden in the author's code. `walk` asks
//! them, once per point; `check` asks [`Layout::entry`] alone, for a refusal of its own.

use std::collections::BTreeSet;

use proc_macro2::TokenTree;

use super::data::Entry;
use super::held::Held;
use crate::tool::ir::{Arm, BlockId, Branch, BranchShape, Code, Flow, Node, Program};
use crate::tool::lower::HOLE;
use crate::tool::scope::{BindingId, BindingKind, Visible};
use crate::tool::syntax::borrows;

/// The program and its liveness, which every decision reads.
#[derive(Clone, Copy)]
pub(crate) struct Layout<'a> {
    pub(crate) program: &'a Program,
    pub(crate) live: &'a [BTreeSet<BindingId>],
}

impl Layout<'_> {
    pub(super) fn is_kept(&self, id: BindingId) -> bool {
        self.program.bindings[id].kind.is_kept()
    }

    /// What the block's successors need.
    pub(super) fn live_out(&self, block: BlockId) -> BTreeSet<BindingId> {
        self.program.blocks[block]
            .successors
            .iter()
            .flat_map(|successor| self.live[*successor].iter().copied())
            .collect()
    }

    /// Whether the block builds the argument parameter's bindings in its prelude (`kept`: the
    /// parameter is `mut`, built once in the first block and kept like a local).
    pub(super) fn rebuilds_args(&self, block: BlockId, bindings: &[BindingId], kept: bool) -> bool {
        if kept {
            block == 0
        } else {
            bindings
                .iter()
                .any(|id| self.program.blocks[block].used.contains(id))
        }
    }

    /// How binding `id`, in force where `block` starts, gets there.
    pub(crate) fn entry(&self, block: BlockId, id: BindingId) -> Entry {
        let data = &self.program.blocks[block];
        let binding = &self.program.bindings[id];
        if !data.used.contains(&id) || data.declared.contains(&id) {
            return Entry::Absent;
        }
        match binding.kind {
            BindingKind::Derived if binding.rebuild.is_some() => Entry::Rebuilt,
            kind if kind.is_kept() && self.live[block].contains(&id) => Entry::Taken,
            kind if kind.is_kept() && data.assigned_first.contains_key(&id) => Entry::Declared,
            _ => Entry::Absent,
        }
    }

    /// The values a jump to `target` must save that it cannot: held here, needed there, but
    /// hidden by another binding of the same name where the jump is (`visible`, `hidden`).
    pub(super) fn unsavable(
        &self,
        held: &Held,
        target: BlockId,
        visible: &Visible,
        hidden: &BTreeSet<String>,
    ) -> Vec<BindingId> {
        self.live[target]
            .intersection(held.locals())
            .copied()
            .filter(|id| {
                let name = self.program.bindings[*id].ident.to_string();
                visible.get(&name) != Some(id) || hidden.contains(&name)
            })
            .collect()
    }

    /// A `break`/`continue` inside the author's statement may leave from where an inner
    /// binding hides a value the target needs. Such a value, if the statement does not use it
    /// itself, goes into its slot before the statement (the first list) and, unless the
    /// statement declares its name again, comes back after it (the second).
    pub(super) fn hidden_at_exits(
        &self,
        held: &Held,
        codes: &[&Code],
        declares: &[BindingId],
    ) -> (Vec<BindingId>, Vec<BindingId>) {
        let mut hidden = BTreeSet::new();
        for code in codes {
            for hole in &code.holes {
                let exit = &self.program.holes[*hole];
                for id in self.live[exit.target].intersection(held.locals()) {
                    let name = self.program.bindings[*id].ident.to_string();
                    let visible =
                        exit.visible.get(&name) == Some(id) && !exit.hidden.contains(&name);
                    let used = codes.iter().any(|code| code.uses.contains(id));
                    if !visible && !used && self.is_kept(*id) {
                        hidden.insert(*id);
                    }
                }
            }
        }
        let redeclared: BTreeSet<String> = declares
            .iter()
            .map(|id| self.program.bindings[*id].ident.to_string())
            .collect();
        let back = hidden
            .iter()
            .copied()
            .filter(|id| !redeclared.contains(&self.program.bindings[*id].ident.to_string()))
            .collect();
        (hidden.into_iter().collect(), back)
    }

    /// A value the machine still needs is put in its slot before a `let` of an inner scope
    /// hides its name, after the initializer (which may read it) ran.
    pub(super) fn hidden_by_let(
        &self,
        held: &Held,
        hides: &[BindingId],
        live_out: &BTreeSet<BindingId>,
        needed_after: &BTreeSet<BindingId>,
    ) -> Vec<BindingId> {
        hides
            .iter()
            .copied()
            .filter(|id| {
                held.holds(*id)
                    && self.is_kept(*id)
                    && live_out.contains(id)
                    && needed_after.contains(id)
            })
            .collect()
    }

    /// Values the `let` hides that nothing after it needs: no longer held (not put away; the
    /// code before may have moved them).
    pub(super) fn forgotten_by_let(
        &self,
        held: &Held,
        hides: &[BindingId],
        needed_after: &BTreeSet<BindingId>,
    ) -> Vec<BindingId> {
        hides
            .iter()
            .copied()
            .filter(|id| held.holds(*id) && !needed_after.contains(id))
            .collect()
    }

    /// A value that an arm hides by name, and that the construct's head does not read, is
    /// put away before the construct; arms that do not hide it take it back. A name declared
    /// only in the bodies of arms that never complete in place (they return, jump or ask and
    /// go on elsewhere) needs no such care: those arms save what they hide themselves (at the
    /// `let`), and the others hold the value as it is, which a live borrow of it allows.
    pub(super) fn early(
        &self,
        held: &Held,
        live_out: &BTreeSet<BindingId>,
        branch: &Branch,
    ) -> Vec<BindingId> {
        let head_uses: BTreeSet<BindingId> = match &branch.shape {
            BranchShape::If { cond, .. } => cond.uses.clone(),
            BranchShape::Match { scrutinee, heads } => heads
                .iter()
                .flat_map(|head| head.uses.iter().copied())
                .chain(scrutinee.uses.iter().copied())
                .collect(),
            BranchShape::Block => BTreeSet::new(),
        };
        held.locals
            .iter()
            .copied()
            .filter(|id| {
                let name = self.program.bindings[*id].ident.to_string();
                self.is_kept(*id)
                    && live_out.contains(id)
                    && branch.needed.contains(id)
                    && !head_uses.contains(id)
                    && hidden_where_the_code_after_goes_on(branch, &name)
                    && branch.visible.get(&name) == Some(id)
            })
            .collect()
    }

    /// One the `match` (or `if let`) reads and an arm's pattern hides goes away once the
    /// scrutinee is evaluated, before the arms bind.
    pub(super) fn late(
        &self,
        held: &Held,
        live_out: &BTreeSet<BindingId>,
        branch: &Branch,
    ) -> Vec<BindingId> {
        let (scrutinee, heads) = match &branch.shape {
            BranchShape::Match { scrutinee, heads } => (scrutinee, &heads[..]),
            BranchShape::If {
                pattern: Some(_),
                cond,
            } => (cond, &[][..]),
            _ => return Vec::new(),
        };
        held.locals
            .iter()
            .copied()
            .filter(|id| {
                let name = self.program.bindings[*id].ident.to_string();
                self.is_kept(*id)
                    && live_out.contains(id)
                    && branch.needed.contains(id)
                    && scrutinee.uses.contains(id)
                    && !borrows(&scrutinee.tokens, &name)
                    && !heads.iter().any(|head| head.uses.contains(id))
                    && branch.arms.iter().any(|arm| arm.hides.contains(id))
                    && branch.visible.get(&name) == Some(id)
            })
            .collect()
    }

    /// What an arm holds where it starts: what the construct held, the values put away
    /// before it that the arm does not hide (`early`, taken back in the arm), and the arm's
    /// own bindings.
    pub(super) fn arm_entry(&self, held: &Held, early: &[BindingId], arm: &Arm) -> Held {
        let mut arm_held = Held {
            locals: held.locals.clone(),
            taken_in_arm: BTreeSet::new(),
        };
        arm_held.take_back(early.iter().copied().filter(|id| !arm.hides.contains(id)));
        arm_held.declare(arm.declares.iter().copied());
        arm_held
    }

    /// After the construct, a binding is held where every arm that completes in place (given
    /// as what each holds at its end) still holds it, in the local it had before the
    /// construct.
    pub(super) fn kept_by_all<'h>(
        held: &Held,
        completing: impl Iterator<Item = &'h Held> + Clone,
    ) -> BTreeSet<BindingId> {
        held.locals
            .iter()
            .copied()
            .filter(|id| completing.clone().all(|arm| arm.kept_through_arm(*id)))
            .collect()
    }

    /// Where the code after a construct goes on in place, the values put away before or in
    /// its arms come back: the ones held before it (`before`) that it does not still hold.
    pub(super) fn taken_back(
        before: &Held,
        after: &Held,
        needed_after: &BTreeSet<BindingId>,
    ) -> Vec<BindingId> {
        before
            .locals
            .difference(&after.locals)
            .filter(|id| needed_after.contains(id))
            .copied()
            .collect()
    }

    /// Where arms disagree, the ones still holding a value put it away at their end (a value
    /// taken back inside the arm always: its local ends with the arm, see `kept_by_all`).
    pub(super) fn put_away(
        held: &Held,
        early: &[BindingId],
        arm_held: &Held,
        completes: bool,
        kept_by_all: &BTreeSet<BindingId>,
        live_out: &BTreeSet<BindingId>,
        needed_after: &BTreeSet<BindingId>,
    ) -> Vec<BindingId> {
        held.locals
            .iter()
            .chain(early)
            .copied()
            .filter(|id| {
                completes
                    && arm_held.holds(*id)
                    && !kept_by_all.contains(id)
                    && live_out.contains(id)
                    && needed_after.contains(id)
            })
            .collect()
    }
}

/// An arm's nodes and the value it hands out, kept apart so that values can be put away
/// before the value is handed out.
pub(crate) fn split_tail(nodes: &[Node]) -> (&[Node], Option<&Code>) {
    match nodes.split_last() {
        Some((Node::Tail(tail), nodes)) => (nodes, Some(tail)),
        _ => (nodes, None),
    }
}

/// Whether a binding named `name` declared by the construct may hide a value on a way that
/// reaches the code after it in place: in its head, or in an arm that may complete there.
fn hidden_where_the_code_after_goes_on(branch: &Branch, name: &str) -> bool {
    branch.head_names.contains(name)
        || branch
            .arms
            .iter()
            .any(|arm| arm.declared_names.contains(name) && may_complete_in_place(&arm.nodes))
}

/// Whether the end of `nodes` may be reached where they stand: not after a suspension or a
/// jump, a visible `return`/`break`/`continue`, or a construct that goes on elsewhere or
/// whose arms all end so. When unsure, yes.
fn may_complete_in_place(nodes: &[Node]) -> bool {
    match nodes.last() {
        None | Some(Node::Tail(_) | Node::Let { .. }) => true,
        Some(Node::Suspend { .. } | Node::Jump { .. }) => false,
        Some(node @ Node::Stmt(_)) => !visibly_diverges(node),
        Some(Node::Branch(branch)) => match branch.dest {
            Flow::Return => false,
            Flow::Discard(Some(_)) | Flow::Value(_, Some(_)) => false,
            Flow::Discard(None) | Flow::Value(_, None) | Flow::Tail => branch
                .arms
                .iter()
                .any(|arm| may_complete_in_place(&arm.nodes)),
        },
    }
}

/// A statement of the author's that visibly never completes: `return ..;`, or a `break` or
/// `continue` (a hole, or left as written).
pub(super) fn visibly_diverges(node: &Node) -> bool {
    let Node::Stmt(code) = node else {
        return false;
    };
    match code.tokens.clone().into_iter().next() {
        Some(TokenTree::Ident(ident)) => {
            ident == HOLE || ident == "return" || ident == "break" || ident == "continue"
        }
        _ => false,
    }
}
