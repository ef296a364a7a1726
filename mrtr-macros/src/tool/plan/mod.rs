//! The plan: what the machine holds, saves and restores at each point of each block, decided
//! once, before anything is printed, as rustc's coroutine transform lays out its saved locals
//! before it rewrites the body.
//!
//! A value that crosses blocks lives in a slot between them; inside a block it is held as a
//! local under its own name, or put away in its slot where an inner binding hides that name.
//! `walk` goes through every block once, tracking what is held (`held`), and asks `layout`'s
//! decisions where they are made: the result is a [`Plan`] (`data`) shaped like the blocks'
//! nodes, with the values that no save could reach (their name hidden where they would have
//! to be saved) recorded as refused. `check` reports those refusals; emission prints the plan
//! and decides nothing. `needs` records, before the walk, what the code after each `let` and
//! construct needs, which the decisions read.

mod data;
mod held;
mod layout;
mod needs;
mod walk;

pub(crate) use data::{ArmPlan, BranchPlan, Entry, Exits, LetPlan, NodePlan, Plan, Saves};
pub(crate) use layout::{Layout, split_tail};
pub(crate) use needs::note_needs;
pub(crate) use walk::{Args, plan};
