//! Which bindings each block needs on entry: the classic backward dataflow over the blocks,
//! `live_in(B) = (used(B) − declared(B)) ∪ ⋃ (live_in(S) − declared(B))` for each successor S,
//! where a binding that B assigns before reading it counts as declared in B, unless a block
//! that B may leave to before the assignment needs it. Parameters are left out: every block
//! that uses one rebuilds it from the request.

use std::collections::BTreeSet;

use super::ir::{BlockId, Program};
use super::scope::{BindingId, BindingKind};

pub(crate) fn live_in(program: &Program) -> Vec<BTreeSet<BindingId>> {
    let tracked = |id: &BindingId| program.bindings[*id].kind.is_kept();
    let mut live = vec![BTreeSet::new(); program.blocks.len()];
    loop {
        let mut changed = false;
        for (index, block) in program.blocks.iter().enumerate().rev() {
            let overwritten = |id: &BindingId| {
                block
                    .assigned_first
                    .get(id)
                    .is_some_and(|exits| exits.iter().all(|exit| !live[*exit].contains(id)))
            };
            let needed_on_entry = |id: &BindingId| !block.declared.contains(id) && !overwritten(id);
            let mut needed: BTreeSet<BindingId> = block
                .used
                .iter()
                .copied()
                .filter(needed_on_entry)
                .filter(tracked)
                .collect();
            for successor in &block.successors {
                needed.extend(live[*successor].iter().filter(|id| needed_on_entry(id)));
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

/// Blocks in the order their code appears in the source, so rustc meets a value where it is
/// stored before it meets where it is used, and infers types in the order the author reads.
pub(crate) fn emission_order(program: &Program) -> Vec<BlockId> {
    let mut order: Vec<BlockId> = (0..program.blocks.len()).collect();
    order.sort_by_key(|block| program.blocks[*block].source_order);
    order
}

/// Bindings that cross from one block to another (live where some block starts).
pub(crate) fn crossing(live: &[BTreeSet<BindingId>]) -> BTreeSet<BindingId> {
    live.iter().flatten().copied().collect()
}

/// Bindings that are declared without a value but must cross a block (`let x;` then an ask).
pub(crate) fn uninitialized_kept(
    program: &Program,
    live: &[BTreeSet<BindingId>],
) -> Vec<BindingId> {
    live.iter()
        .flatten()
        .filter(|id| matches!(program.bindings[**id].kind, BindingKind::Uninit { .. }))
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}
