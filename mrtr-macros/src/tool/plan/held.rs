//! Which bindings the walk finds held as locals at each point, the others being put away in
//! their slots: the state `walk` threads through a block, not kept in the plan.

use std::collections::BTreeSet;

use crate::tool::scope::BindingId;

/// Which bindings the code being walked holds as locals (the others live in their slots).
#[derive(Clone, Default)]
pub(super) struct Held {
    pub(super) locals: BTreeSet<BindingId>,
    /// Of those, the ones taken out of their slots inside the arm being walked: their locals
    /// end with the arm, so an arm that completes in place puts them away again.
    pub(super) taken_in_arm: BTreeSet<BindingId>,
}

impl Held {
    /// The bindings held as locals.
    pub(super) fn locals(&self) -> &BTreeSet<BindingId> {
        &self.locals
    }

    pub(super) fn holds(&self, id: BindingId) -> bool {
        self.locals.contains(&id)
    }

    /// Bindings declared (or rebuilt) in the scope being walked.
    pub(super) fn declare(&mut self, ids: impl IntoIterator<Item = BindingId>) {
        self.locals.extend(ids);
    }

    /// Bindings moved into their slots, or no longer needed: not held any more.
    pub(super) fn put_away<'a>(&mut self, ids: impl IntoIterator<Item = &'a BindingId>) {
        for id in ids {
            self.locals.remove(id);
            self.taken_in_arm.remove(id);
        }
    }

    /// Bindings taken out of their slots into locals of the scope being walked.
    pub(super) fn take_back(&mut self, ids: impl IntoIterator<Item = BindingId> + Clone) {
        self.locals.extend(ids.clone());
        self.taken_in_arm.extend(ids);
    }

    /// After a construct: only `kept` is still held.
    pub(super) fn keep_only(&mut self, kept: &BTreeSet<BindingId>) {
        self.locals = kept.clone();
        self.taken_in_arm.retain(|id| kept.contains(id));
    }

    /// Whether an arm holds `id` at its end in a local of the scope around the construct.
    pub(super) fn kept_through_arm(&self, id: BindingId) -> bool {
        self.holds(id) && !self.taken_in_arm.contains(&id)
    }
}
