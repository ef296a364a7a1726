//! Statements: each `let`, expression and item of a block, the tail, and where a value goes.

use std::collections::BTreeSet;

use quote::{ToTokens, quote};
use syn::{Expr, Local, Pat, Stmt};

use super::items::{NEVER_BINDS, binding_positions, item_name_span, reads_a_local};
use super::{Dest, Lowerer, Sink, pat_names, plain, wrap_in_block};
use crate::tool::ask;
use crate::tool::ir::{BlockId, BranchShape, Code, Node, Unlowerable};
use crate::tool::scope::{BindingKind, Found};
use crate::tool::syntax::{
    assigned_key, binding_key, contains_ask, diverges, is_borrow, is_construct, stmt_asks,
};

impl Lowerer {
    pub(super) fn stmts(&mut self, stmts: &[Stmt], dest: Dest) {
        // Items are visible in the whole block, whatever their position: hoist them first.
        let mut rest: Vec<&Stmt> = Vec::new();
        // The names the block's `let`s bind before each item, which a macro may read.
        let mut earlier = BTreeSet::new();
        for stmt in stmts {
            match stmt {
                Stmt::Item(item) => self.hoist_item(item, &earlier),
                other => {
                    if let Stmt::Local(local) = other {
                        earlier.extend(pat_names(&local.pat));
                    }
                    rest.push(other);
                }
            }
        }
        let tail = match rest.last() {
            Some(Stmt::Expr(expr, None)) => Some(expr),
            _ => None,
        };
        if tail.is_some() {
            rest.pop();
        }
        // Without a tail, the last statement decides the value: `()` if it completes, none
        // if it diverges. Wrapped as `{ last }`, rustc decides it exactly as for the source.
        let last = match (tail, rest.last()) {
            (None, Some(last))
                if !matches!(dest, Dest::Discard) && !stmt_asks(last) && !diverges(last) =>
            {
                rest.pop()
            }
            _ => None,
        };
        for stmt in &rest {
            self.stmt(stmt);
        }
        if let Some(expr) = tail {
            self.tail(expr, dest);
            return;
        }
        if let Some(last) = last {
            self.tail_stmt = true;
            if self.completes_in_place(dest) {
                // In place, the arm's block ends with it: rustc types the arm as the source.
                self.stmt(last);
            } else {
                if let Stmt::Expr(expr, _) = last {
                    self.note_assigned_first(expr);
                }
                let code = self.verbatim_stmt(last);
                self.deliver_code(wrap_in_block(code), dest);
            }
            self.tail_stmt = false;
            return;
        }
        let diverged = rest.last().is_some_and(|last| diverges(last));
        match dest {
            Dest::Discard => {}
            _ if diverged || self.completes_in_place(dest) => {}
            _ => self.deliver_code(plain(quote!(())), dest),
        }
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) => self.local(local),
            Stmt::Expr(expr, _) => self.effect(expr),
            Stmt::Macro(mac) if ask::is_ask(&mac.mac) => self.ask_statement(&mac.mac),
            Stmt::Macro(call) => {
                self.note_macro_binds(&call.mac);
                let code = self.verbatim_stmt(stmt);
                self.stmt_code(code);
            }
            Stmt::Item(item) => self.hoist_item(item, &BTreeSet::new()),
        }
    }

    /// Items are emitted once, before the machine, so that every block sees them as every
    /// statement of the body did. That keeps their meaning only at the body's top level, for an
    /// item that reads no local: anything else is refused at the item.
    fn hoist_item(&mut self, item: &syn::Item, earlier: &BTreeSet<String>) {
        // The parameters' scope and the body's.
        if self.scopes.depth() > 2 {
            self.refuse(Unlowerable::ItemInABlockThatAsks(item_name_span(item)));
            return;
        }
        if let syn::Item::Macro(definition) = item
            && definition.mac.path.is_ident("macro_rules")
            && let Some(name) = &definition.ident
        {
            if !self.macro_names.insert(name.to_string()) {
                self.refuse(Unlowerable::MacroDefinedTwice(name.clone()));
            }
            if let Some(local) = reads_a_local(definition.mac.tokens.clone(), &self.scopes, earlier)
            {
                self.refuse(Unlowerable::MacroReadsALocal {
                    name: name.clone(),
                    local,
                });
            }
        }
        self.program.items.push(item.to_token_stream());
    }

    /// Records the identifiers a statement macro receives in a binding position (after `let`
    /// or `mut`, or before a lone `=`) that name a binding of an enclosing scope.
    fn note_macro_binds(&mut self, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|segment| segment.ident.to_string())
            .unwrap_or_default();
        if NEVER_BINDS.contains(&name.as_str()) {
            return;
        }
        for ident in binding_positions(mac.tokens.clone()) {
            let text = ident.to_string();
            let (found, enclosing) = (
                self.scopes.lookup(&text),
                self.scopes.lookup_enclosing(&text),
            );
            if let Some(id) = found
                && found == enclosing
            {
                self.program.macro_binds.push((ident, name.clone(), id));
            }
        }
    }

    /// A statement with no ask: its uses recorded, its jumps out of lowered loops made holes.
    fn verbatim_stmt(&mut self, stmt: &Stmt) -> Code {
        let Found { uses, reads } = self.uses_of(stmt);
        self.program.blocks[self.current]
            .used
            .extend(uses.iter().copied());
        let mut stmt = stmt.clone();
        let holes = self.rewrite_jumps(&mut stmt);
        Code {
            tokens: stmt.to_token_stream(),
            holes,
            uses,
            reads,
        }
    }

    pub(super) fn verbatim_expr(&mut self, expr: &Expr) -> Code {
        let Found { uses, reads } = self.uses_of(expr);
        self.program.blocks[self.current]
            .used
            .extend(uses.iter().copied());
        let mut expr = expr.clone();
        let holes = self.rewrite_jumps(&mut expr);
        Code {
            tokens: expr.to_token_stream(),
            holes,
            uses,
            reads,
        }
    }

    pub(super) fn local(&mut self, local: &Local) {
        let Some(init) = &local.init else {
            let code = self.verbatim_stmt(&Stmt::Local(local.clone()));
            self.stmt_code(code);
            let (declared, _) = self.declare(&local.pat, true, false);
            let typed = matches!(local.pat, Pat::Type(_));
            for id in declared {
                self.program.bindings[id].kind = BindingKind::Uninit { typed };
            }
            return;
        };
        // Refused by `check::body`.
        if let Some((_, diverge)) = &init.diverge
            && contains_ask(diverge)
        {
            return;
        }
        let borrowed = is_borrow(local);
        let pat = &local.pat;
        let value = if !contains_ask(&init.expr) {
            if let (Some(ident), true) = (binding_key(pat), self.is_context_lookup(&init.expr)) {
                let code = self.verbatim_stmt(&Stmt::Local(local.clone()));
                self.stmt_code(code);
                let id = self.binding(ident, false, BindingKind::Derived);
                self.program.bindings[id].rebuild = Some(local.to_token_stream());
                self.program.blocks[self.current].declared.insert(id);
                return;
            }
            Some(self.verbatim_expr(&init.expr))
        } else if let Some(mac) = ask::as_ask(&init.expr) {
            self.suspend(&mac.mac, binding_key(pat)).map(plain)
        } else if is_construct(&init.expr) {
            let value = self.synthetic("value", false);
            if let Pat::Type(typed) = pat {
                let ty = &typed.ty;
                self.program.bindings[value].annotation = Some(quote!(#ty));
            }
            self.construct(&init.expr, Dest::Value(value));
            self.use_binding(value);
            Some(Code {
                uses: BTreeSet::from([value]),
                ..plain(self.ident(value).to_token_stream())
            })
        } else {
            self.hoist(&init.expr, binding_key(pat)).map(|mut expr| {
                let Found { uses, reads } = self.uses(&expr);
                let holes = self.rewrite_jumps(&mut expr);
                Code {
                    tokens: expr.into_token_stream(),
                    holes,
                    uses,
                    reads,
                }
            })
        };
        let Some(init_code) = value else { return };
        // The `else` of a `let .. else` runs where the value arrives: after the ask.
        let diverge = init
            .diverge
            .as_ref()
            .map(|(_, diverge)| self.verbatim_expr(diverge));
        let attrs = &local.attrs;
        let (declares, hides) = self.declare(pat, true, borrowed);
        self.push(Node::Let {
            attrs: quote!(#(#attrs)*),
            pat: pat.to_token_stream(),
            init: init_code,
            diverge,
            declares,
            hides,
            needed_after: BTreeSet::new(),
        });
    }

    /// An assignment of a whole local (`x = ..;`) that comes first in its block, before any
    /// read of `x`: the block needs the value `x` had on entry only if the code before the
    /// assignment leaves to a block that needs it (which liveness decides).
    fn note_assigned_first(&mut self, expr: &Expr) {
        let Expr::Assign(assign) = expr else {
            return;
        };
        let Expr::Path(path) = &*assign.left else {
            return;
        };
        let (Some(name), Sink::Block(block)) = (path.path.get_ident(), &self.sink) else {
            return;
        };
        let Some(id) = self.scopes.lookup(&name.to_string()) else {
            return;
        };
        let block = &self.program.blocks[*block];
        let reads = self.uses_of(&*assign.right).uses.contains(&id);
        if !reads && !block.used.contains(&id) && !block.declared.contains(&id) {
            let mut exits = BTreeSet::new();
            self.exits(&block.nodes, &mut exits);
            self.program.blocks[self.current]
                .assigned_first
                .insert(id, exits);
        }
    }

    /// The blocks `nodes` may leave to: where their `break`/`continue`s go and, in the arms of
    /// a construct kept in place, where their asks resume and their jumps and joins go.
    pub(super) fn exits(&self, nodes: &[Node], exits: &mut BTreeSet<BlockId>) {
        let targets = |code: &Code| {
            code.holes
                .iter()
                .map(|hole| self.program.holes[*hole].target)
                .collect::<Vec<_>>()
        };
        for node in nodes {
            match node {
                Node::Stmt(code) | Node::Tail(code) => exits.extend(targets(code)),
                Node::Let { init, diverge, .. } => {
                    exits.extend(targets(init));
                    exits.extend(diverge.iter().flat_map(targets));
                }
                Node::Jump { target, .. } => {
                    exits.insert(*target);
                }
                Node::Suspend { site, .. } => {
                    exits.insert(self.program.sites[*site].resume);
                }
                Node::Branch(branch) => {
                    match &branch.shape {
                        BranchShape::If { cond, .. } => exits.extend(targets(cond)),
                        BranchShape::Match { scrutinee, heads } => {
                            exits.extend(targets(scrutinee));
                            exits.extend(heads.iter().flat_map(targets));
                        }
                        BranchShape::Block => {}
                    }
                    exits.extend(branch.dest.join());
                    for arm in &branch.arms {
                        self.exits(&arm.nodes, exits);
                    }
                }
            }
        }
    }

    /// An expression evaluated for its effect (a statement).
    fn effect(&mut self, expr: &Expr) {
        if !contains_ask(expr) {
            self.note_assigned_first(expr);
            let code = self.verbatim_stmt(&Stmt::Expr(expr.clone(), Some(Default::default())));
            self.stmt_code(code);
        } else if let Some(mac) = ask::as_ask(expr) {
            self.ask_statement(&mac.mac);
        } else if is_construct(expr) {
            self.construct(expr, Dest::Discard);
        } else if let Some(mut expr) = self.hoist(expr, assigned_key(expr)) {
            // `x = ask!(..)`: the assignment is the first thing after the ask.
            self.note_assigned_first(&expr);
            let Found { uses, reads } = self.uses(&expr);
            let holes = self.rewrite_jumps(&mut expr);
            self.stmt_code(Code {
                tokens: quote!(#expr;),
                holes,
                uses,
                reads,
            });
        }
    }

    /// `ask!(..);` on its own: the answer is consumed and dropped.
    fn ask_statement(&mut self, mac: &syn::Macro) {
        if let Some(answer) = self.suspend(mac, None) {
            self.glue(quote!(let _ = #answer;));
        }
    }

    /// The last expression of a block, whose value goes to `dest`.
    pub(super) fn tail(&mut self, expr: &Expr, dest: Dest) {
        if let Some(mac) = ask::as_ask(expr) {
            if let Some(answer) = self.suspend(&mac.mac, None) {
                self.deliver_or_hand_out(plain(answer), dest);
            }
        } else if contains_ask(expr) && is_construct(expr) {
            self.construct(expr, dest);
        } else if contains_ask(expr) {
            if let Some(mut expr) = self.hoist(expr, None) {
                self.note_assigned_first(&expr);
                let Found { uses, reads } = self.uses(&expr);
                let holes = self.rewrite_jumps(&mut expr);
                self.deliver_or_hand_out(
                    Code {
                        tokens: expr.into_token_stream(),
                        holes,
                        uses,
                        reads,
                    },
                    dest,
                );
            }
        } else {
            self.note_assigned_first(expr);
            let code = self.verbatim_expr(expr);
            self.deliver_or_hand_out(code, dest);
        }
    }

    /// Whether an arm's value can be handed out in place: the arm is still in the block and
    /// the inline sequence where its construct started.
    pub(super) fn completes_in_place(&self, dest: Dest) -> bool {
        match dest {
            Dest::Arm(index) => {
                let frame = &self.arms[index];
                self.current == frame.block && self.sink == Sink::Inline(frame.sink)
            }
            _ => false,
        }
    }

    pub(super) fn deliver_or_hand_out(&mut self, value: Code, dest: Dest) {
        if self.completes_in_place(dest) {
            self.push(Node::Tail(value));
        } else {
            self.deliver_code(value, dest);
        }
    }

    /// Delivers a value to `dest` from a block other than where an arm's construct started.
    fn deliver_code(&mut self, value: Code, dest: Dest) {
        match dest {
            Dest::Discard => {
                let tokens = &value.tokens;
                self.stmt_code(Code {
                    tokens: quote!(#tokens;),
                    ..value
                });
            }
            Dest::Return => {
                let tokens = &value.tokens;
                self.stmt_code(Code {
                    tokens: quote!(#[allow(unreachable_code, clippy::diverging_sub_expression)] return #tokens;),
                    ..value
                });
            }
            Dest::Value(binding) => {
                let ident = self.ident(binding).clone();
                let pat = match &self.program.bindings[binding].annotation {
                    Some(ty) => quote!(#ident: #ty),
                    None => ident.to_token_stream(),
                };
                self.program.blocks[self.current].declared.insert(binding);
                self.push(Node::Let {
                    attrs: quote!(#[allow(unreachable_code, clippy::diverging_sub_expression)]),
                    pat,
                    init: value,
                    diverge: None,
                    declares: vec![binding],
                    hides: Vec::new(),
                    needed_after: BTreeSet::new(),
                });
            }
            // Not in place: the value goes where the outermost construct of the chain sends
            // its value, and the machine goes on at that construct's join.
            Dest::Arm(index) => {
                let outer = self.arms[index].outer;
                self.deliver_code(value, outer);
                if matches!(outer, Dest::Discard | Dest::Value(_)) {
                    let join = self.join(index);
                    self.jump(join);
                }
            }
        }
    }
}
