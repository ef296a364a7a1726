//! What the code after each `let` and each construct needs, recorded in the program before the
//! walk reads it.

use std::collections::BTreeSet;

use crate::tool::ir::{BranchShape, Code, Node, Program};
use crate::tool::scope::BindingId;

/// Records what the code after each `let` and each construct needs ([`Node::Let`]'s and
/// [`Branch`]'s `needed_after`, and a construct's arms too, [`Branch::needed`]): what it
/// reads, and what the blocks it may go to need.
/// The block's successors may need more than the code from a given point on: after a
/// construct whose asking arms return, the code goes on in the block where it started, whose
/// successors include those arms' resume points. A value moved away before that point is
/// needed by them, not here: it is not put away again (hidden by a `let`, it is forgotten).
pub(crate) fn note_needs(program: &mut Program, live: &[BTreeSet<BindingId>]) {
    for block in 0..program.blocks.len() {
        let mut nodes = std::mem::take(&mut program.blocks[block].nodes);
        needs_of(program, live, &mut nodes, BTreeSet::new());
        program.blocks[block].nodes = nodes;
    }
}

/// What `nodes` need where they start, `after` being what the code after them needs.
fn needs_of(
    program: &Program,
    live: &[BTreeSet<BindingId>],
    nodes: &mut [Node],
    mut after: BTreeSet<BindingId>,
) -> BTreeSet<BindingId> {
    let code_needs = |code: &Code, needed: &mut BTreeSet<BindingId>| {
        needed.extend(code.uses.iter().copied());
        for hole in &code.holes {
            needed.extend(live[program.holes[*hole].target].iter().copied());
        }
    };
    for node in nodes.iter_mut().rev() {
        match node {
            Node::Stmt(code) | Node::Tail(code) => code_needs(code, &mut after),
            Node::Let {
                init,
                diverge,
                declares,
                needed_after,
                ..
            } => {
                *needed_after = after.clone();
                for id in declares.iter() {
                    after.remove(id);
                }
                code_needs(init, &mut after);
                if let Some(diverge) = diverge {
                    code_needs(diverge, &mut after);
                }
            }
            Node::Jump { target, .. } => after = live[*target].clone(),
            Node::Suspend { site, .. } => {
                let site = &program.sites[*site];
                after = live[site.resume].clone();
                after.extend(site.uses.iter().copied());
            }
            Node::Branch(branch) => {
                if let Some(join) = branch.dest.join() {
                    after.extend(live[join].iter().copied());
                }
                branch.needed_after = after.clone();
                let mut needed = after.clone();
                for arm in &mut branch.arms {
                    let mut arm_needs = needs_of(program, live, &mut arm.nodes, after.clone());
                    for id in &arm.declares {
                        arm_needs.remove(id);
                    }
                    needed.extend(arm_needs);
                }
                branch.needed = needed.clone();
                match &branch.shape {
                    BranchShape::If { cond, .. } => code_needs(cond, &mut needed),
                    BranchShape::Match { scrutinee, heads } => {
                        code_needs(scrutinee, &mut needed);
                        for head in heads {
                            code_needs(head, &mut needed);
                        }
                    }
                    BranchShape::Block => {}
                }
                after = needed;
            }
        }
    }
    after
}
