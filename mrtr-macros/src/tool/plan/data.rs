//! The plan as data: for each block its prelude, and for each of its nodes what goes into a
//! slot and what comes out of one there, laid out as the nodes are (a [`NodePlan`] per
//! [`Node`](crate::tool::ir::Node), an [`ArmPlan`] per arm), plus the values no plan can save.
//! Emission prints it; `check` reports its refusals.

use std::collections::BTreeMap;

use crate::tool::ir::BlockId;
use crate::tool::scope::BindingId;

/// The bindings one jump, suspension or hole moves from their locals into their slots.
pub(crate) type Saves = Vec<BindingId>;

/// The saves of each hole of a piece of the author's code, in the order of its holes.
pub(crate) type Holes = Vec<Saves>;

/// Every block's plan, and what no plan could do.
pub(crate) struct Plan {
    /// The blocks emission writes, by id.
    pub(crate) blocks: BTreeMap<BlockId, BlockPlan>,
    /// Kept values that would have to be saved where another binding hides their name (at a
    /// jump, a suspension, a hole, or the end of an arm whose own pattern hides them), each
    /// once, in the order the walk met them.
    pub(crate) refused: Vec<BindingId>,
}

/// How a binding in force at the start of a block gets there.
pub(crate) enum Entry {
    /// Not needed in this block (or declared by it).
    Absent,
    /// A context lookup, done again here as written.
    Rebuilt,
    /// Taken out of its slot.
    Taken,
    /// Given a new value before it is read: declared without one.
    Declared,
}

pub(crate) struct BlockPlan {
    /// Whether the prelude builds the argument parameter's bindings.
    pub(crate) args: bool,
    /// The bindings in force where the block starts that its prelude brings in, in the order
    /// of their names (none is [`Entry::Absent`]).
    pub(crate) entries: Vec<(BindingId, Entry)>,
    pub(crate) nodes: Vec<NodePlan>,
}

/// The plan of one node, of the same kind as the node.
pub(crate) enum NodePlan {
    Stmt { exits: Exits, holes: Holes },
    Tail { holes: Holes },
    Let(LetPlan),
    Jump { saves: Saves },
    Suspend { saves: Saves },
    Branch(BranchPlan),
}

/// Values put away around an author's statement whose `break`/`continue` leaves from where an
/// inner binding hides them (`Layout::hidden_at_exits`).
pub(crate) struct Exits {
    /// Put into their slots before the statement.
    pub(crate) put_away: Vec<BindingId>,
    /// Taken back after it.
    pub(crate) back: Vec<BindingId>,
}

pub(crate) struct LetPlan {
    pub(crate) exits: Exits,
    pub(crate) init: Holes,
    /// Put into their slots after the initializer ran, before the pattern hides them.
    pub(crate) hidden: Vec<BindingId>,
    /// Of those, the ones the `else` of a `let .. else` reads: it takes them back first.
    pub(crate) retaken: Vec<BindingId>,
    /// The holes of the `else` (none without one).
    pub(crate) diverge: Holes,
    /// A `mut` binding of the pattern is used again in a later block (after its value is
    /// taken out of its slot there): this block alone may not use its `mut`.
    pub(crate) crosses: bool,
}

pub(crate) struct BranchPlan {
    /// Put into their slots before the construct (`Layout::early`).
    pub(crate) early: Vec<BindingId>,
    /// Put into their slots once the scrutinee is evaluated (`Layout::late`).
    pub(crate) late: Vec<BindingId>,
    pub(crate) arms: Vec<ArmPlan>,
    /// The holes of an `if`'s condition or a `match`'s scrutinee.
    pub(crate) head: Holes,
    /// The holes of each `match` arm's pattern and guard.
    pub(crate) patterns: Vec<Holes>,
    /// What the jump to the join block saves, where there is one.
    pub(crate) join: Saves,
    /// Taken back after the construct where the code goes on in place.
    pub(crate) taken_back: Vec<BindingId>,
}

pub(crate) struct ArmPlan {
    /// Put away before the construct and not hidden by the arm: taken back where it starts.
    pub(crate) retake: Vec<BindingId>,
    /// The arm's nodes without the value it hands out (`split_tail`).
    pub(crate) nodes: Vec<NodePlan>,
    /// The holes of the value it hands out, if it has one.
    pub(crate) tail: Holes,
    /// Put into their slots at its end, where arms disagree on what they hold.
    pub(crate) put_away: Vec<BindingId>,
}
