//! The one walk over the blocks: it threads what is held through each block's nodes, asks
//! `Layout` each decision once, where it is made, and writes the answers down as the plan.
//! What it cannot save where a name is hidden it records as refused instead.

use std::collections::BTreeSet;

use super::data::{
    ArmPlan, BlockPlan, BranchPlan, Entry, Exits, Holes, LetPlan, NodePlan, Plan, Saves,
};
use super::held::Held;
use super::layout::{Layout, split_tail, visibly_diverges};
use crate::tool::ir::{BlockId, Branch, BranchShape, Code, Flow, Node};
use crate::tool::scope::{BindingId, Visible};

/// The machine's argument parameter, as the blocks rebuild it: its bindings, and whether it
/// is kept like a local (`mut`).
pub(crate) struct Args<'a> {
    pub(crate) bindings: &'a [BindingId],
    pub(crate) kept: bool,
}

/// The plan of the blocks in `order` (the order emission writes them in, which the refusals
/// follow).
pub(crate) fn plan(layout: Layout<'_>, order: &[BlockId], args: Option<&Args<'_>>) -> Plan {
    let mut walk = Walk {
        layout,
        refused: Vec::new(),
    };
    let blocks = order
        .iter()
        .map(|block| (*block, walk.block(*block, args)))
        .collect();
    Plan {
        blocks,
        refused: walk.refused,
    }
}

struct Walk<'a> {
    layout: Layout<'a>,
    /// The bindings refused so far, in the order found.
    refused: Vec<BindingId>,
}

impl Walk<'_> {
    fn refuse(&mut self, ids: impl IntoIterator<Item = BindingId>) {
        for id in ids {
            if !self.refused.contains(&id) {
                self.refused.push(id);
            }
        }
    }

    fn block(&mut self, block: BlockId, args: Option<&Args<'_>>) -> BlockPlan {
        let layout = self.layout;
        let data = &layout.program.blocks[block];
        let mut held = Held::default();
        let rebuilds_args =
            args.filter(|args| layout.rebuilds_args(block, args.bindings, args.kept));
        if let Some(args) = rebuilds_args {
            held.declare(args.bindings.iter().copied());
        }
        let mut entries = Vec::new();
        for id in data.entry.values() {
            let entry = layout.entry(block, *id);
            match entry {
                Entry::Absent => continue,
                Entry::Taken | Entry::Declared => held.declare([*id]),
                Entry::Rebuilt => {}
            }
            entries.push((*id, entry));
        }
        let live_out = layout.live_out(block);
        let (nodes, _) = self.nodes(&live_out, &mut held, &data.nodes);
        BlockPlan {
            args: rebuilds_args.is_some(),
            entries,
            nodes,
        }
    }

    /// Plans a sequence; also says whether it can complete (hand a value out) in place.
    fn nodes(
        &mut self,
        live_out: &BTreeSet<BindingId>,
        held: &mut Held,
        nodes: &[Node],
    ) -> (Vec<NodePlan>, bool) {
        let mut completes = true;
        let plans = nodes
            .iter()
            .map(|node| {
                let (plan, node_completes) = self.node(live_out, held, node);
                completes = node_completes;
                plan
            })
            .collect();
        (plans, completes)
    }

    fn node(
        &mut self,
        live_out: &BTreeSet<BindingId>,
        held: &mut Held,
        node: &Node,
    ) -> (NodePlan, bool) {
        let layout = self.layout;
        match node {
            Node::Stmt(code) => {
                let exits = self.exits(held, &[code], &[]);
                let holes = self.fill(held, code);
                held.take_back(exits.back.iter().copied());
                (NodePlan::Stmt { exits, holes }, true)
            }
            Node::Tail(code) => {
                let holes = self.fill(held, code);
                (NodePlan::Tail { holes }, true)
            }
            Node::Let {
                init,
                diverge,
                declares,
                hides,
                needed_after,
                ..
            } => {
                let codes: Vec<&Code> = std::iter::once(init).chain(diverge.as_ref()).collect();
                let exits = self.exits(held, &codes, declares);
                let init = self.fill(held, init);
                let hidden = layout.hidden_by_let(held, hides, live_out, needed_after);
                let forgotten = layout.forgotten_by_let(held, hides, needed_after);
                // The `else` of a `let .. else` runs after the values were put away: it finds
                // them in their slots, and takes back the ones it reads.
                let retaken: Vec<BindingId> = hidden
                    .iter()
                    .copied()
                    .filter(|id| diverge.as_ref().is_some_and(|code| code.uses.contains(id)))
                    .collect();
                let diverge = match diverge {
                    Some(diverge) => {
                        let mut diverge_held = held.clone();
                        diverge_held.put_away(hidden.iter().filter(|id| !retaken.contains(id)));
                        self.fill(&diverge_held, diverge)
                    }
                    None => Vec::new(),
                };
                held.put_away(&hidden);
                held.put_away(&forgotten);
                held.declare(declares.iter().copied());
                held.take_back(exits.back.iter().copied());
                let program = layout.program;
                let crosses = declares.iter().any(|id| {
                    program.bindings[*id].mutable
                        && (live_out.contains(id)
                            || program
                                .blocks
                                .iter()
                                .any(|block| block.assigned_first.contains_key(id)))
                });
                let plan = LetPlan {
                    exits,
                    init,
                    hidden,
                    retaken,
                    diverge,
                    crosses,
                };
                (NodePlan::Let(plan), true)
            }
            Node::Jump { target, visible } => {
                let saves = self.jump(held, *target, visible, &BTreeSet::new());
                (NodePlan::Jump { saves }, false)
            }
            Node::Suspend { site, visible } => {
                let resume = layout.program.sites[*site].resume;
                let saves = self.jump(held, resume, visible, &BTreeSet::new());
                (NodePlan::Suspend { saves }, false)
            }
            Node::Branch(branch) => {
                let (plan, completes) = self.branch(live_out, held, branch);
                (NodePlan::Branch(plan), completes)
            }
        }
    }

    /// The values the author's statement puts away around it, for its `break`/`continue`
    /// (see `Layout::hidden_at_exits`); the ones put away are no longer held.
    fn exits(&mut self, held: &mut Held, codes: &[&Code], declares: &[BindingId]) -> Exits {
        let (put_away, back) = self.layout.hidden_at_exits(held, codes, declares);
        held.put_away(&put_away);
        Exits { put_away, back }
    }

    /// What a jump to `target` saves: the held values `target` needs. Those it cannot save,
    /// their name being hidden where it is, are refused.
    fn jump(
        &mut self,
        held: &Held,
        target: BlockId,
        visible: &Visible,
        hidden: &BTreeSet<String>,
    ) -> Saves {
        let unsavable = self.layout.unsavable(held, target, visible, hidden);
        self.refuse(unsavable);
        self.layout.live[target]
            .intersection(held.locals())
            .copied()
            .collect()
    }

    /// The jumps out of lowered loops in the author's code (its holes).
    fn fill(&mut self, held: &Held, code: &Code) -> Holes {
        let program = self.layout.program;
        code.holes
            .iter()
            .map(|hole| {
                let exit = &program.holes[*hole];
                let mut held = held.clone();
                if let Some((Some(binding), _)) = &exit.value {
                    held.declare([*binding]);
                }
                self.jump(&held, exit.target, &exit.visible, &exit.hidden)
            })
            .collect()
    }

    fn branch(
        &mut self,
        live_out: &BTreeSet<BindingId>,
        held: &mut Held,
        branch: &Branch,
    ) -> (BranchPlan, bool) {
        let layout = self.layout;
        let before = held.clone();
        let early = layout.early(held, live_out, branch);
        held.put_away(&early);
        let late = layout.late(held, live_out, branch);
        held.put_away(&late);
        let put_away_before: Vec<BindingId> = early.iter().chain(&late).copied().collect();
        // Each arm starts from the same bindings; after the construct, a binding is held
        // where every arm that completes in place still holds it.
        let mut arms = Vec::new();
        for arm in &branch.arms {
            let mut arm_held = layout.arm_entry(held, &put_away_before, arm);
            let retake = put_away_before
                .iter()
                .copied()
                .filter(|id| !arm.hides.contains(id))
                .collect();
            let (nodes, tail) = split_tail(&arm.nodes);
            let (nodes_plan, mut completes) = self.nodes(live_out, &mut arm_held, nodes);
            if tail.is_none() && nodes.last().is_some_and(visibly_diverges) {
                completes = false;
            }
            let tail = match tail {
                Some(tail) => {
                    completes = true;
                    self.fill(&arm_held, tail)
                }
                None => Vec::new(),
            };
            let plan = ArmPlan {
                retake,
                nodes: nodes_plan,
                tail,
                put_away: Vec::new(),
            };
            arms.push((plan, completes, arm_held));
        }
        let completes = arms.iter().any(|(_, completes, _)| *completes);
        let kept_by_all = Layout::kept_by_all(
            held,
            arms.iter()
                .filter(|(_, completes, _)| *completes)
                .map(|(_, _, arm_held)| arm_held),
        );
        for ((plan, completes, arm_held), arm) in arms.iter_mut().zip(&branch.arms) {
            plan.put_away = Layout::put_away(
                held,
                &put_away_before,
                arm_held,
                *completes,
                &kept_by_all,
                live_out,
                &branch.needed_after,
            );
            // An arm that must put a value away at its end cannot if its own pattern hides it.
            let hidden = plan
                .put_away
                .iter()
                .copied()
                .filter(|id| arm.hides.contains(id));
            let hidden: Vec<BindingId> = hidden.collect();
            self.refuse(hidden);
        }
        held.keep_only(&kept_by_all);
        let (head, patterns) = match &branch.shape {
            BranchShape::If { cond, .. } => (self.fill(held, cond), Vec::new()),
            BranchShape::Match { scrutinee, heads } => {
                let scrutinee = self.fill(held, scrutinee);
                let patterns = heads.iter().map(|head| self.fill(held, head)).collect();
                (scrutinee, patterns)
            }
            BranchShape::Block => (Vec::new(), Vec::new()),
        };
        let mut plan = BranchPlan {
            early,
            late,
            arms: arms.into_iter().map(|(plan, _, _)| plan).collect(),
            head,
            patterns,
            join: Vec::new(),
            taken_back: Vec::new(),
        };
        match branch.dest {
            Flow::Tail => return (plan, completes),
            Flow::Return => return (plan, false),
            Flow::Discard(_) => {}
            Flow::Value(binding, _) => held.declare([binding]),
        }
        match branch.dest.join() {
            Some(join) => {
                plan.join = self.jump(held, join, &branch.visible, &BTreeSet::new());
                (plan, false)
            }
            // Going on in place, where only an arm that completes here gets to.
            None if completes => {
                plan.taken_back = Layout::taken_back(&before, held, &branch.needed_after);
                held.take_back(plan.taken_back.iter().copied());
                (plan, true)
            }
            None => (plan, false),
        }
    }
}
