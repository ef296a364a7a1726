//! Which bindings each block needs on entry: the classic backward dataflow over the blocks,
//! `live_in(B) = (used(B) − declared(B)) ∪ ⋃ (live_in(S) − declared(B))` for each successor S.
//! Parameters are left out: every block that uses one rebuilds it from the request.

use std::collections::BTreeSet;

use super::lower::{BlockId, Program};
use super::scope::{BindingId, BindingKind};

pub(crate) fn live_in(program: &Program) -> Vec<BTreeSet<BindingId>> {
    let tracked = |id: &BindingId| program.bindings[*id].kind.is_kept();
    let mut live = vec![BTreeSet::new(); program.blocks.len()];
    loop {
        let mut changed = false;
        for (index, block) in program.blocks.iter().enumerate().rev() {
            let mut needed: BTreeSet<BindingId> = block
                .used
                .difference(&block.declared)
                .copied()
                .filter(tracked)
                .collect();
            for successor in &block.successors {
                needed.extend(
                    live[*successor]
                        .iter()
                        .filter(|id| !block.declared.contains(id)),
                );
            }
            if needed != live[index] {
                live[index] = needed;
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}

/// Blocks in reverse postorder from the start (unreachable ones last): every block comes
/// after the blocks that jump to it, except along loop back edges. Emitting in this order lets
/// rustc infer a kept value's type from where it is stored before it meets where it is used.
pub(crate) fn emission_order(program: &Program) -> Vec<BlockId> {
    fn visit(program: &Program, block: BlockId, seen: &mut Vec<bool>, post: &mut Vec<BlockId>) {
        seen[block] = true;
        for successor in &program.blocks[block].successors {
            if !seen[*successor] {
                visit(program, *successor, seen, post);
            }
        }
        post.push(block);
    }
    let mut seen = vec![false; program.blocks.len()];
    let mut post = Vec::new();
    visit(program, 0, &mut seen, &mut post);
    post.reverse();
    post.extend((0..program.blocks.len()).filter(|block| !seen[*block]));
    post
}

/// Bindings that are declared without a value but must cross a block (`let x;` then an ask).
pub(crate) fn uninitialized_kept(
    program: &Program,
    live: &[BTreeSet<BindingId>],
) -> Vec<BindingId> {
    live.iter()
        .flatten()
        .filter(|id| program.bindings[**id].kind == BindingKind::Uninit)
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}
