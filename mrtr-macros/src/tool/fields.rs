//! Values kept field by field. `let name = person.name; ask!(..); person.email` is valid Rust:
//! `person` is partly moved, and only `email` is read later. Such a value cannot go into its
//! slot whole, so when every use of a binding reads a named field, the fields read after the
//! first place the machine may put it away travel in slots of their own, and the blocks that
//! take it back rebuild a struct with just those fields. Fields of fields work the same way
//! (`order.item.name` moved, `order.item.price` read later): each path read later is a slot,
//! and the rebuilt struct nests one struct per field that is itself split.
//!
//! The reads come from the lowering (`scope::Uses`), which resolves every name as rustc does:
//! a read of another binding of the same name, declared by any pattern, is never this one's.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proc_macro2::Ident;

use super::ir::{Branch, BranchShape, Node, Program};
use super::plan::{Entry, Layout};
use super::scope::{BindingId, BindingKind, Read};

/// A field read through a binding: `person.email` is `[email]`, `order.item.price` is
/// `[item, price]`.
pub(crate) type FieldPath = Vec<Ident>;

/// For each crossing binding kept field by field, the paths it keeps (in source order; none is
/// a prefix of another).
pub(crate) fn kept_by_field(
    layout: Layout<'_>,
    crossing: &BTreeSet<BindingId>,
) -> HashMap<BindingId, Vec<FieldPath>> {
    crossing
        .iter()
        .filter_map(|id| Some((*id, fields_of(layout, *id)?)))
        .collect()
}

fn fields_of(layout: Layout<'_>, id: BindingId) -> Option<Vec<FieldPath>> {
    let program = layout.program;
    let binding = &program.bindings[id];
    if binding.kind != BindingKind::Local || binding.ident.to_string().starts_with("r#") {
        return None;
    }
    let mut scan = Scan {
        program,
        id,
        counting: false,
        assigned_afresh: false,
        read_early: false,
        fields: BTreeMap::new(),
    };
    for (index, block) in program.blocks.iter().enumerate() {
        // In the block that declares it, the fields read before the machine could first put
        // it away may be moved out; the others are needed later.
        scan.counting = !block.declared.contains(&id);
        // A block that declares it without a value (it gives it a new one before reading it,
        // and needs nothing of the old one): there the value is whole again, so assigning or
        // using it whole does not touch the kept fields.
        scan.assigned_afresh = matches!(layout.entry(index, id), Entry::Declared);
        scan.nodes(&block.nodes)?;
    }
    // Only a value that may have been partly moved is split: one whose fields are only
    // borrowed before its first slot (`p.name.clone()`, `&p.name`, `format!("{}", p.name)`)
    // stays whole, as does one read only after it, since a type with its own `Drop`, or one
    // reached through an `Arc`, cannot give its fields away.
    if !scan.read_early {
        return None;
    }
    // A path read whole keeps everything under it (`item` and `item.price`: `item`).
    let paths: Vec<&String> = scan.fields.keys().collect();
    let covered = |path: &String| {
        paths
            .iter()
            .any(|other| path.len() > other.len() && path.starts_with(&format!("{other}.")))
    };
    let mut fields: Vec<(usize, FieldPath)> = scan
        .fields
        .iter()
        .filter(|(path, _)| !covered(path))
        .map(|(_, field)| field.clone())
        .collect();
    fields.sort_by_key(|(order, _)| *order);
    (!fields.is_empty()).then(|| fields.into_iter().map(|(_, path)| path).collect())
}

/// Whether emitting `node` may move values into their slots and take them back.
fn may_put_away(node: &Node) -> bool {
    match node {
        Node::Stmt(code) | Node::Tail(code) => !code.holes.is_empty(),
        Node::Let { init, diverge, .. } => {
            !init.holes.is_empty() || diverge.as_ref().is_some_and(|code| !code.holes.is_empty())
        }
        Node::Jump { .. } | Node::Suspend { .. } | Node::Branch(_) => true,
    }
}

struct Scan<'a> {
    program: &'a Program,
    id: BindingId,
    /// Whether the fields read here are needed after a slot.
    counting: bool,
    /// Whether the block being scanned gives the binding a new value before reading it, and
    /// needs nothing of the old one.
    assigned_afresh: bool,
    /// Whether a field may be moved out before the value's first slot.
    read_early: bool,
    /// Path (`item.price`) → (first position seen, path).
    fields: BTreeMap<String, (usize, FieldPath)>,
}

impl Scan<'_> {
    /// `None` when the binding is used other than by reading a named field.
    fn nodes(&mut self, nodes: &[Node]) -> Option<()> {
        for node in nodes {
            if may_put_away(node) {
                self.counting = true;
            }
            self.node(node)?;
        }
        Some(())
    }

    fn node(&mut self, node: &Node) -> Option<()> {
        match node {
            Node::Stmt(code) | Node::Tail(code) => self.reads(&code.reads),
            Node::Let {
                init,
                diverge,
                declares,
                ..
            } => {
                self.reads(&init.reads)?;
                if let Some(diverge) = diverge {
                    self.reads(&diverge.reads)?;
                }
                // Where the binding is declared (in an arm, say), its fields may be moved out
                // again until the machine may next put it away.
                if declares.contains(&self.id) {
                    self.counting = false;
                }
                Some(())
            }
            Node::Jump { .. } => Some(()),
            Node::Suspend { site, .. } => self.reads(&self.program.sites[*site].reads),
            Node::Branch(branch) => self.branch(branch),
        }
    }

    fn branch(&mut self, branch: &Branch) -> Option<()> {
        match &branch.shape {
            BranchShape::If { cond, .. } => self.reads(&cond.reads)?,
            BranchShape::Match { scrutinee, heads } => {
                self.reads(&scrutinee.reads)?;
                for head in heads {
                    self.reads(&head.reads)?;
                }
            }
            BranchShape::Block => {}
        }
        for arm in &branch.arms {
            if arm.declares.contains(&self.id) {
                self.counting = false;
            }
            self.nodes(&arm.nodes)?;
            // The next arm starts where the construct may have put values away.
            self.counting = true;
        }
        Some(())
    }

    /// The code's reads of this binding, which the lowering resolved as rustc does.
    fn reads(&mut self, reads: &[Read]) -> Option<()> {
        for read in reads.iter().filter(|read| read.binding == self.id) {
            if read.path.is_empty() && self.assigned_afresh {
                continue;
            }
            if read.path.is_empty() {
                return None;
            }
            self.read_early |= !self.counting && read.moves;
            if self.counting {
                let order = self.fields.len();
                let key = read
                    .path
                    .iter()
                    .map(Ident::to_string)
                    .collect::<Vec<_>>()
                    .join(".");
                self.fields.entry(key).or_insert((order, read.path.clone()));
            }
        }
        Some(())
    }
}
