//! Lowering: the body becomes blocks of a machine. A block starts at the function's start, at
//! a resume point after an `ask!`, at the head of a loop that asks, or where a construct that
//! asks joins again after an arm that completes in another block; it ends with a jump, a
//! suspension or a return. Code without an `ask!` is copied as written. A construct that asks
//! (`if`, `match`, a plain block) keeps its arms in place in the block where it starts; an arm
//! that completes there hands its value out, so the join is reached in the scope around the
//! construct, exactly as in the source. If no arm completes elsewhere (each one that asks
//! diverges after), the code after the construct stays in that block.

use std::collections::BTreeSet;
use syn::ext::IdentExt;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Block as SynBlock, Expr, Ident, Lifetime, Local, Pat, Stmt};

use super::ask::{self, AskCall};
use super::canonical::canonical;
use super::ir::{
    Arm, Block, BlockId, Branch, BranchShape, Code, Exit, Flow, Node, Program, Site, SiteId,
};
use super::scope::{Binding, BindingId, BindingKind, Scopes, Uses, Visible, pattern_bindings};
use super::syntax::{
    assigned_key, binding_key, contains_ask, diverges, first_ask, is_borrow, is_construct,
    leftmost_ask, leftmost_child, ref_bindings, stmt_asks,
};
use crate::errors::Errors;

/// Where the value of a construct goes.
#[derive(Clone, Copy)]
enum Dest {
    Discard,
    Return,
    Value(BindingId),
    /// The arm of a construct kept in place: handed out if the arm completes in the block
    /// where the construct started, else delivered to the construct's own destination.
    Arm(usize),
}

/// An arm being lowered in place.
struct ArmFrame {
    block: BlockId,
    sink: usize,
    outer: Dest,
    /// The block the code after the construct goes on in, made when an arm first completes
    /// in another block than `block` (see [`Flow`]).
    join: Option<BlockId>,
}

struct LoopFrame {
    label: Option<String>,
    head: BlockId,
    exit: BlockId,
    dest: Dest,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Block(BlockId),
    Inline(usize),
}

/// The placeholder a hole leaves in the author's tokens; emission fills the holes of a piece
/// of code in order.
pub(crate) const HOLE: &str = "__mrtr_hole";

pub(crate) struct Lowerer<'e> {
    program: Program,
    scopes: Scopes,
    loops: Vec<LoopFrame>,
    arms: Vec<ArmFrame>,
    inline: Vec<Vec<Node>>,
    sink: Sink,
    current: BlockId,
    synthetic: usize,
    source_order: usize,
    errors: &'e mut Errors,
    /// The context parameter's name, to recognise `cx.state::<T>()` lookups.
    context: Option<String>,
    /// The constructs around the code being lowered, outermost first: part of the identity of
    /// the resume points inside them.
    path: Vec<String>,
    /// Set while lowering a `while`/`for` loop: the `if`/`match` it is written as is not the
    /// author's construct and does not appear in the path.
    desugared: bool,
    /// Set while the last statement of a block whose value is used is lowered.
    tail_stmt: bool,
    /// The `macro_rules!` the body defines.
    macro_names: BTreeSet<String>,
}

impl<'e> Lowerer<'e> {
    pub(crate) fn new(errors: &'e mut Errors, context: Option<String>) -> Self {
        let mut scopes = Scopes::default();
        scopes.push();
        Self {
            program: Program {
                blocks: vec![Block::default()],
                sites: Vec::new(),
                bindings: Vec::new(),
                holes: Vec::new(),
                items: Vec::new(),
                guards: Vec::new(),
                literals: Vec::new(),
                macro_binds: Vec::new(),
            },
            scopes,
            loops: Vec::new(),
            arms: Vec::new(),
            inline: Vec::new(),
            sink: Sink::Block(0),
            current: 0,
            synthetic: 0,
            source_order: 0,
            errors,
            context,
            path: Vec::new(),
            desugared: false,
            tail_stmt: false,
            macro_names: BTreeSet::new(),
        }
    }

    /// Declares the machine's argument parameter: rebuilt in each block that uses it, or, if
    /// it is `mut` (`kept`), built once and kept like a local.
    pub(crate) fn parameter(&mut self, pat: &Pat, kept: bool) -> Vec<BindingId> {
        pattern_bindings(pat, &|_| true)
            .into_iter()
            .map(|(ident, mutable)| {
                let kind = if kept {
                    BindingKind::Local
                } else {
                    BindingKind::Param
                };
                let id = self.binding(ident, mutable, kind);
                if kept {
                    self.program.blocks[0].declared.insert(id);
                }
                id
            })
            .collect()
    }

    pub(crate) fn lower_body(mut self, body: &SynBlock) -> Program {
        self.scopes.push();
        self.program.blocks[0].entry = self.scopes.visible();
        self.stmts(&body.stmts, Dest::Return);
        self.program
    }

    // ---------------------------------------------------------------- bookkeeping

    fn binding(&mut self, ident: Ident, mutable: bool, kind: BindingKind) -> BindingId {
        let id = self.program.bindings.len();
        self.scopes.declare(ident.to_string(), id);
        self.program.bindings.push(Binding {
            ident,
            mutable,
            kind,
            borrowed: false,
            rebuild: None,
            annotation: None,
        });
        id
    }

    /// Declares the names `pat` binds in the current block; returns them and the bindings of
    /// enclosing scopes they hide.
    fn declare(
        &mut self,
        pat: &Pat,
        irrefutable: bool,
        borrowed: bool,
    ) -> (Vec<BindingId>, Vec<BindingId>) {
        let by_ref = ref_bindings(pat);
        let mut declared = Vec::new();
        let mut hidden = Vec::new();
        let scopes = &self.scopes;
        let capitalised = |name: &str| irrefutable || scopes.lookup(name).is_some();
        for (ident, mutable) in pattern_bindings(pat, &capitalised) {
            if let Some(outer) = self.scopes.lookup_enclosing(&ident.to_string()) {
                hidden.push(outer);
            }
            let borrowed = borrowed || by_ref.contains(&ident);
            let id = self.binding(ident, mutable, BindingKind::Local);
            self.program.bindings[id].borrowed = borrowed;
            self.program.blocks[self.current].declared.insert(id);
            declared.push(id);
        }
        (declared, hidden)
    }

    fn synthetic(&mut self, what: &str, mutable: bool) -> BindingId {
        self.synthetic += 1;
        let ident = format_ident!(
            "__mrtr_{}_{}",
            what,
            self.synthetic,
            span = Span::mixed_site()
        );
        let id = self.binding(ident, mutable, BindingKind::Synthetic);
        self.program.blocks[self.current].declared.insert(id);
        id
    }

    fn ident(&self, id: BindingId) -> &Ident {
        &self.program.bindings[id].ident
    }

    fn uses_of(&self, node: &dyn UsesOf) -> BTreeSet<BindingId> {
        let mut uses = Uses::new(&self.scopes);
        node.collect(&mut uses);
        uses.found
    }

    fn uses(&mut self, node: &dyn UsesOf) {
        let found = self.uses_of(node);
        self.program.blocks[self.current].used.extend(found);
    }

    fn use_binding(&mut self, id: BindingId) {
        self.program.blocks[self.current].used.insert(id);
    }

    fn push(&mut self, node: Node) {
        match self.sink {
            Sink::Block(block) => self.program.blocks[block].nodes.push(node),
            Sink::Inline(index) => self.inline[index].push(node),
        }
    }

    fn stmt_code(&mut self, code: Code) {
        self.push(Node::Stmt(code));
    }

    fn glue(&mut self, tokens: TokenStream) {
        self.stmt_code(Code {
            tokens,
            holes: Vec::new(),
            uses: Default::default(),
        });
    }

    fn new_block(&mut self) -> BlockId {
        self.program.blocks.push(Block::default());
        self.program.blocks.len() - 1
    }

    fn switch_to(&mut self, block: BlockId) {
        self.sink = Sink::Block(block);
        self.current = block;
        self.source_order += 1;
        self.program.blocks[block].entry = self.scopes.visible();
        self.program.blocks[block].source_order = self.source_order;
    }

    fn jump(&mut self, target: BlockId) {
        self.program.blocks[self.current].successors.insert(target);
        let visible = self.scopes.visible();
        self.push(Node::Jump { target, visible });
    }

    /// Lowers `f` into an inline sequence of the current block (an arm kept in place).
    fn inline(&mut self, f: impl FnOnce(&mut Self)) -> Vec<Node> {
        let saved = (self.sink, self.current);
        self.inline.push(Vec::new());
        self.sink = Sink::Inline(self.inline.len() - 1);
        f(self);
        let nodes = self.inline.pop().expect("the inline sequence pushed above");
        (self.sink, self.current) = saved;
        nodes
    }

    /// `let state = cx.state::<T>();` on the context parameter: a lookup that is as good as
    /// new in every round, so its binding is rebuilt where used instead of kept.
    fn is_context_lookup(&self, expr: &Expr) -> bool {
        let Expr::MethodCall(call) = expr else {
            return false;
        };
        let on_context = matches!(&*call.receiver, Expr::Path(path) if self.context.as_deref().is_some_and(|cx| path.path.is_ident(cx)));
        on_context && call.method == "state" && call.args.is_empty()
    }

    fn error(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.errors.spanned(tokens, message);
    }

    // ---------------------------------------------------------------- statements

    fn stmts(&mut self, stmts: &[Stmt], dest: Dest) {
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

    fn stmt(&mut self, stmt: &Stmt) {
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
            self.error(
                item_name_span(item),
                "an item (`fn`, `const`, `struct`, `use`, `macro_rules!`, ..) cannot go inside a block that asks: the machine takes the block apart and declares its items for the whole body, where this one would hide others of its name; move it to the top of the body or out of the function",
            );
            return;
        }
        if let syn::Item::Macro(definition) = item
            && definition.mac.path.is_ident("macro_rules")
            && let Some(name) = &definition.ident
        {
            if !self.macro_names.insert(name.to_string()) {
                self.error(
                    name,
                    format!("`{name}!` is defined twice in the body: the machine declares the body's items once, before its code, so uses before the second definition would see it too; give the second one another name"),
                );
            }
            if let Some(local) = reads_a_local(definition.mac.tokens.clone(), &self.scopes, earlier)
            {
                self.error(
                    &local,
                    format!("`{name}!` reads the local `{local}`: the machine declares the body's items before its code, where `{local}` is not in scope; pass `{local}` to the macro as an argument"),
                );
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
        let uses = self.uses_of(stmt);
        self.program.blocks[self.current]
            .used
            .extend(uses.iter().copied());
        let mut stmt = stmt.clone();
        let holes = self.rewrite_jumps(&mut stmt);
        Code {
            tokens: stmt.to_token_stream(),
            holes,
            uses,
        }
    }

    fn verbatim_expr(&mut self, expr: &Expr) -> Code {
        let uses = self.uses_of(expr);
        self.program.blocks[self.current]
            .used
            .extend(uses.iter().copied());
        let mut expr = expr.clone();
        let holes = self.rewrite_jumps(&mut expr);
        Code {
            tokens: expr.to_token_stream(),
            holes,
            uses,
        }
    }

    fn local(&mut self, local: &Local) {
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
            Some(plain(self.ident(value).to_token_stream()))
        } else {
            self.hoist(&init.expr, binding_key(pat)).map(|mut expr| {
                self.uses(&expr);
                let holes = self.rewrite_jumps(&mut expr);
                Code {
                    tokens: expr.into_token_stream(),
                    holes,
                    uses: Default::default(),
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
        let reads = self.uses_of(&*assign.right).contains(&id);
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
    fn exits(&self, nodes: &[Node], exits: &mut BTreeSet<BlockId>) {
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
            self.uses(&expr);
            let holes = self.rewrite_jumps(&mut expr);
            self.stmt_code(Code {
                tokens: quote!(#expr;),
                holes,
                uses: Default::default(),
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
    fn tail(&mut self, expr: &Expr, dest: Dest) {
        if let Some(mac) = ask::as_ask(expr) {
            if let Some(answer) = self.suspend(&mac.mac, None) {
                self.deliver_or_hand_out(plain(answer), dest);
            }
        } else if contains_ask(expr) && is_construct(expr) {
            self.construct(expr, dest);
        } else if contains_ask(expr) {
            if let Some(mut expr) = self.hoist(expr, None) {
                self.note_assigned_first(&expr);
                self.uses(&expr);
                let holes = self.rewrite_jumps(&mut expr);
                self.deliver_or_hand_out(
                    Code {
                        tokens: expr.into_token_stream(),
                        holes,
                        uses: Default::default(),
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
    fn completes_in_place(&self, dest: Dest) -> bool {
        match dest {
            Dest::Arm(index) => {
                let frame = &self.arms[index];
                self.current == frame.block && self.sink == Sink::Inline(frame.sink)
            }
            _ => false,
        }
    }

    fn deliver_or_hand_out(&mut self, value: Code, dest: Dest) {
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
                let Code {
                    tokens,
                    holes,
                    uses,
                } = value;
                let tokens = quote!(#tokens;);
                self.stmt_code(Code {
                    tokens,
                    holes,
                    uses,
                });
            }
            Dest::Return => {
                let Code {
                    tokens,
                    holes,
                    uses,
                } = value;
                let tokens = quote!(#[allow(unreachable_code, clippy::diverging_sub_expression)] return #tokens;);
                self.stmt_code(Code {
                    tokens,
                    holes,
                    uses,
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

    // ---------------------------------------------------------------- asks

    /// Ends the current block with the site's questions; returns the expression that yields
    /// the answer(s) in the resume block, which becomes current.
    fn suspend(&mut self, mac: &syn::Macro, binding: Option<Ident>) -> Option<TokenStream> {
        let call = match AskCall::parse(mac) {
            Ok(call) => call,
            Err(error) => {
                self.errors.push(error);
                return None;
            }
        };
        let recheck = call.is_recheck();
        let single = call.questions.len() == 1;
        let mut questions = Vec::new();
        for question in &call.questions {
            let key = question
                .key
                .clone()
                .or_else(|| if single { binding.clone() } else { None });
            match key {
                Some(key) => {
                    // A key used twice in one batch is refused by `check::body`.
                    let name = key.unraw().to_string();
                    questions.push((name, key.span(), question.request.clone()));
                }
                // State-only: no key, but the request is still evaluated like any other.
                None if recheck => questions.push((String::new(), call.questions[0].request.span(), question.request.clone())),
                None => self.error(
                    &question.request,
                    "ask! needs a key: bind the answer with `let name = ask!(..)`, or name it with `ask!(name = ..)`",
                ),
            }
        }
        for (_, _, request) in &questions {
            self.uses(request);
        }
        let resume = self.new_block();
        let site = self.program.sites.len();
        self.program.sites.push(Site {
            questions,
            resume,
            path: self.path.clone(),
        });
        self.program.blocks[self.current].successors.insert(resume);
        let visible = self.scopes.visible();
        self.push(Node::Suspend { site, visible });
        self.switch_to(resume);
        let answers: Vec<TokenStream> = self.program.sites[site]
            .questions
            .iter()
            .enumerate()
            .map(|(index, (key, _, _))| answer_expr(site, index, key))
            .collect();
        Some(match answers.len() {
            0 => quote!(()),
            1 => answers.into_iter().next().expect("one answer"),
            _ => quote!((#(#answers),*)),
        })
    }

    /// Evaluates the ask that `expr` starts with (nothing of the statement runs before it),
    /// and returns `expr` with the answer in its place.
    fn hoist(&mut self, expr: &Expr, key: Option<Ident>) -> Option<Expr> {
        let mut expr = expr.clone();
        let Some(slot) = leftmost_ask(&mut expr) else {
            let misplaced = first_ask(&expr).map_or_else(|| expr.span(), |mac| mac.span());
            self.errors.push(syn::Error::new(
                misplaced,
                "ask! must be the first thing its statement evaluates (a `let` initializer, the operand of `?`, a method call's receiver, a condition); bind it first: `let answer = ask!(..);`",
            ));
            return None;
        };
        let Expr::Macro(mac) = std::mem::replace(slot, Expr::Verbatim(TokenStream::new())) else {
            unreachable!("leftmost_ask returns an ask")
        };
        if let Some(other) = first_ask(&expr) {
            self.errors.push(syn::Error::new(other.span(), "only one ask! can be evaluated in place per statement; bind the others first with `let name = ask!(..);`"));
            return None;
        }
        let answer = self.suspend(&mac.mac, key)?;
        place_answer(&mut expr, &answer);
        Some(expr)
    }

    // ---------------------------------------------------------------- constructs that ask

    fn construct(&mut self, expr: &Expr, dest: Dest) {
        match expr {
            Expr::Paren(paren) => self.construct(&paren.expr, dest),
            Expr::If(expr_if) => self.branch_if(expr_if, dest),
            Expr::Match(expr_match) => self.branch_match(expr_match, dest),
            Expr::Loop(expr_loop) => {
                let label = expr_loop
                    .label
                    .as_ref()
                    .map(|label| label.name.ident.to_string());
                self.within(segment("loop", expr_loop.label.as_ref()), |lowerer| {
                    lowerer.lowered_loop(label, &expr_loop.body, dest);
                });
            }
            Expr::While(expr_while) => {
                self.within(segment("while", expr_while.label.as_ref()), |lowerer| {
                    lowerer.lower_while(expr_while, dest);
                });
            }
            Expr::ForLoop(expr_for) => {
                self.within(segment("for", expr_for.label.as_ref()), |lowerer| {
                    lowerer.lower_for(expr_for, dest);
                });
            }
            Expr::Block(block) if block.label.is_none() => self.branch_block(block, dest),
            Expr::Block(block) => self.error(
                &block.label,
                "ask! cannot be used inside a labeled block; use a loop or a function instead",
            ),
            Expr::Unsafe(block) => self.error(
                block.unsafe_token,
                "ask! cannot be used inside an `unsafe` block; move it out of the block",
            ),
            other => self.error(other, "ask! is not supported in this position"),
        }
    }

    /// Starts a construct kept in place. Returns the destination of its arms, where the
    /// value of an arm completing in place flows.
    fn open_branch(&mut self, dest: Dest) -> Dest {
        self.arms.push(ArmFrame {
            block: self.current,
            sink: self.inline.len(),
            outer: dest,
            join: None,
        });
        Dest::Arm(self.arms.len() - 1)
    }

    /// The join of arm `index`'s construct, made when a value first reaches it from another
    /// block.
    fn join(&mut self, index: usize) -> BlockId {
        if let Some(join) = self.arms[index].join {
            return join;
        }
        let join = self.new_block();
        self.arms[index].join = Some(join);
        join
    }

    /// Where a value bound for arm `index` ends up when it is not handed out in place.
    fn resolve(&mut self, index: usize) -> Flow {
        match self.arms[index].outer {
            Dest::Arm(outer) => self.resolve(outer),
            Dest::Return => Flow::Return,
            Dest::Discard => Flow::Discard(Some(self.join(index))),
            Dest::Value(binding) => Flow::Value(binding, Some(self.join(index))),
        }
    }

    /// Ends a construct kept in place, its arms lowered: the code after it goes on at its
    /// join, or, if no arm completes in another block, where the construct started.
    fn close_branch(
        &mut self,
        shape: BranchShape,
        arms: Vec<Arm>,
        declared_names: BTreeSet<String>,
        visible: Visible,
    ) {
        let frame = self.arms.pop().expect("the frame open_branch pushed");
        let dest = match frame.outer {
            Dest::Return => Flow::Return,
            Dest::Discard => Flow::Discard(frame.join),
            Dest::Value(binding) => Flow::Value(binding, frame.join),
            // The tail of an arm that is itself in place: the construct is that arm's value.
            Dest::Arm(_) if self.completes_in_place(frame.outer) => Flow::Tail,
            Dest::Arm(index) => self.resolve(index),
        };
        let block = &mut self.program.blocks[self.current];
        if let Flow::Value(binding, _) = dest {
            block.declared.insert(binding);
        }
        if let Some(join) = dest.join() {
            block.successors.insert(join);
        }
        self.push(Node::Branch(Branch {
            shape,
            arms,
            dest,
            declared_names,
            visible,
        }));
        if let Some(join) = frame.join {
            self.switch_to(join);
        }
    }

    fn branch_if(&mut self, expr_if: &syn::ExprIf, dest: Dest) {
        let mut cond = (*expr_if.cond).clone();
        if contains_ask(&cond) {
            let Some(hoisted) = self.hoist(&cond, None) else {
                return;
            };
            cond = hoisted;
        }
        let declared_names = declared_names(&Expr::If(expr_if.clone()));
        let visible = self.scopes.visible();
        let arm_dest = self.open_branch(dest);
        let cond_uses = self.uses_of(&cond);
        self.uses(&cond);
        let holes = self.rewrite_jumps(&mut cond);
        let desugared = std::mem::take(&mut self.desugared);
        let arm_segment = |arm: &str| (!desugared).then(|| arm.to_owned());
        self.scopes.push();
        let (declares, hides) = declare_let_bindings(self, &cond);
        let then = self.inline(|lowerer| {
            lowerer.within(arm_segment("if"), |lowerer| {
                lowerer.scopes.push();
                lowerer.stmts(&expr_if.then_branch.stmts, arm_dest);
                lowerer.scopes.pop();
            });
        });
        self.scopes.pop();
        let otherwise = self.inline(|lowerer| {
            lowerer.within(arm_segment("else"), |lowerer| {
                lowerer.scopes.push();
                match &expr_if.else_branch {
                    Some((_, otherwise)) => lowerer.tail(otherwise, arm_dest),
                    None => lowerer.stmts(&[], arm_dest),
                }
                lowerer.scopes.pop();
            });
        });
        // `if let PAT = EXPR` keeps its pattern apart, so values can be put away between
        // evaluating EXPR and binding PAT, as for a `match`.
        let (pattern, cond) = match cond {
            Expr::Let(expr_let) => (Some(expr_let.pat.into_token_stream()), *expr_let.expr),
            cond => (None, cond),
        };
        let shape = BranchShape::If {
            pattern,
            cond: Code {
                tokens: cond.into_token_stream(),
                holes,
                uses: cond_uses,
            },
        };
        let arms = vec![
            Arm {
                declares,
                hides,
                nodes: then,
            },
            Arm {
                declares: Vec::new(),
                hides: Vec::new(),
                nodes: otherwise,
            },
        ];
        self.close_branch(shape, arms, declared_names, visible);
    }

    fn branch_match(&mut self, expr_match: &syn::ExprMatch, dest: Dest) {
        let mut scrutinee = (*expr_match.expr).clone();
        if contains_ask(&scrutinee) {
            let Some(hoisted) = self.hoist(&scrutinee, None) else {
                return;
            };
            scrutinee = hoisted;
        }
        let declared_names = declared_names(&Expr::Match(expr_match.clone()));
        let visible = self.scopes.visible();
        let arm_dest = self.open_branch(dest);
        let scrutinee_uses = self.uses_of(&scrutinee);
        self.uses(&scrutinee);
        let holes = self.rewrite_jumps(&mut scrutinee);
        let desugared = std::mem::take(&mut self.desugared);
        let mut heads = Vec::new();
        let mut arms = Vec::new();
        for arm in &expr_match.arms {
            // Refused by `check::body`.
            if let Some((_, guard)) = &arm.guard
                && contains_ask(guard)
            {
                continue;
            }
            self.scopes.push();
            let (declares, hides) = self.declare(&arm.pat, false, false);
            let guard = arm.guard.as_ref().map(|(if_token, guard)| {
                let code = self.verbatim_expr(guard);
                (if_token, code)
            });
            // An arm is known by its pattern and guard, so reordering arms changes nothing.
            let arm_segment = (!desugared).then(|| {
                let pattern = canonical(arm.pat.to_token_stream());
                match &arm.guard {
                    Some((_, guard)) => {
                        let guard = canonical(guard.to_token_stream());
                        format!("match {pattern}if {}", guard.trim_end())
                    }
                    None => format!("match {}", pattern.trim_end()),
                }
            });
            let nodes = self.inline(|lowerer| {
                lowerer.within(arm_segment, |lowerer| {
                    lowerer.scopes.push();
                    lowerer.tail(&arm.body, arm_dest);
                    lowerer.scopes.pop();
                });
            });
            self.scopes.pop();
            let (attrs, pat) = (&arm.attrs, &arm.pat);
            let head = match guard {
                Some((if_token, code)) => {
                    let tokens = code.tokens;
                    Code {
                        tokens: quote!(#(#attrs)* #pat #if_token #tokens),
                        holes: code.holes,
                        uses: code.uses,
                    }
                }
                None => plain(quote!(#(#attrs)* #pat)),
            };
            heads.push(head);
            arms.push(Arm {
                declares,
                hides,
                nodes,
            });
        }
        let shape = BranchShape::Match {
            scrutinee: Code {
                tokens: scrutinee.into_token_stream(),
                holes,
                uses: scrutinee_uses,
            },
            heads,
        };
        self.close_branch(shape, arms, declared_names, visible);
    }

    /// A plain `{ .. }` that asks: a construct with one arm, so its scope closes at its end.
    fn branch_block(&mut self, block: &syn::ExprBlock, dest: Dest) {
        let declared_names = declared_names(&Expr::Block(block.clone()));
        let visible = self.scopes.visible();
        let arm_dest = self.open_branch(dest);
        let nodes = self.inline(|lowerer| {
            lowerer.scopes.push();
            lowerer.stmts(&block.block.stmts, arm_dest);
            lowerer.scopes.pop();
        });
        let arm = Arm {
            declares: Vec::new(),
            hides: Vec::new(),
            nodes,
        };
        self.close_branch(BranchShape::Block, vec![arm], declared_names, visible);
    }

    fn lowered_loop(&mut self, label: Option<String>, body: &SynBlock, dest: Dest) {
        let head = self.new_block();
        let exit = self.new_block();
        let loop_dest = match dest {
            Dest::Arm(_) => {
                // The loop's value reaches the arm through a binding, from the exit block.
                let value = self.synthetic("value", false);
                Dest::Value(value)
            }
            other => other,
        };
        self.jump(head);
        self.switch_to(head);
        self.loops.push(LoopFrame {
            label,
            head,
            exit,
            dest: loop_dest,
        });
        self.scopes.push();
        self.stmts(&body.stmts, Dest::Discard);
        self.scopes.pop();
        self.jump(head);
        self.loops.pop();
        self.switch_to(exit);
        let reachable = self
            .program
            .blocks
            .iter()
            .any(|block| block.successors.contains(&exit));
        match (dest, loop_dest) {
            (Dest::Return, _) if reachable => {
                // Only a `break` without a value gets here: the loop's value is `()`.
                self.glue(quote!(#[allow(unreachable_code)] return;));
            }
            (Dest::Arm(_), Dest::Value(value)) => {
                self.use_binding(value);
                let ident = self.ident(value).clone();
                self.deliver_or_hand_out(plain(quote!(#ident)), dest);
            }
            _ => {}
        }
    }

    /// `while c { b }` is `loop { if c { b } else { break } }`, so an ask in the condition is
    /// asked again on every iteration, as the condition is evaluated again.
    fn lower_while(&mut self, expr_while: &syn::ExprWhile, dest: Dest) {
        let label = self.loop_label(expr_while.label.as_ref());
        let (cond, body) = (&expr_while.cond, &expr_while.body);
        let body: SynBlock = syn::parse_quote!({ if #cond #body else { break #label; } });
        self.desugared = true;
        self.lowered_loop(Some(label.ident.to_string()), &body, dest);
    }

    /// A `for` whose body asks keeps its iteration state: the remaining items of a
    /// collection, or a range's cursor (see `IntoLoopState` in the runtime).
    fn lower_for(&mut self, expr_for: &syn::ExprForLoop, dest: Dest) {
        let mut iterable = (*expr_for.expr).clone();
        if contains_ask(&iterable) {
            let Some(hoisted) = self.hoist(&iterable, None) else {
                return;
            };
            iterable = hoisted;
        }
        self.uses(&iterable);
        let holes = self.rewrite_jumps(&mut iterable);
        let iter = self.synthetic("iter", true);
        let iter_ident = self.ident(iter).clone();
        // The call starts at the iterable's first token and ends at its last, so that it
        // covers the same source as the argument: rustc's errors about the iterable, at the
        // argument and at the call, then fall on one span and are reported once.
        let mut tokens = iterable.to_token_stream().into_iter();
        let first = tokens
            .next()
            .map_or_else(Span::call_site, |token| token.span());
        let last = tokens.last().map_or(first, |token| token.span());
        let private = Ident::new("__mrtr_private", first);
        let call = Ident::new("loop_state", last);
        let mut arguments =
            proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, quote!(#iterable));
        arguments.set_span(last);
        let state = quote!(#private::#call #arguments);
        self.push(Node::Let {
            attrs: TokenStream::new(),
            pat: quote!(mut #iter_ident),
            init: Code {
                tokens: state,
                holes,
                uses: Default::default(),
            },
            diverge: None,
            declares: vec![iter],
            hides: Vec::new(),
        });
        let label = self.loop_label(expr_for.label.as_ref());
        let (pat, body) = (&expr_for.pat, &expr_for.body);
        let body: SynBlock = syn::parse_quote!({
            match #iter_ident.next() {
                ::core::option::Option::Some(#pat) => #body,
                ::core::option::Option::None => break #label,
            }
        });
        self.desugared = true;
        self.lowered_loop(Some(label.ident.to_string()), &body, dest);
    }

    /// Lowers what `f` lowers inside the construct `segment` names (if any).
    fn within(&mut self, segment: Option<String>, f: impl FnOnce(&mut Self)) {
        let pushed = segment.map(|segment| self.path.push(segment)).is_some();
        f(self);
        if pushed {
            self.path.pop();
        }
    }

    fn loop_label(&mut self, label: Option<&syn::Label>) -> Lifetime {
        label.map(|label| label.name.clone()).unwrap_or_else(|| {
            self.synthetic += 1;
            Lifetime::new(
                &format!("'__mrtr_loop_{}", self.synthetic),
                Span::mixed_site(),
            )
        })
    }

    // ---------------------------------------------------------------- break and continue

    /// Makes every `break`/`continue` that leaves a lowered loop a hole, recording its jump.
    fn rewrite_jumps<T: JumpTarget>(&mut self, node: &mut T) -> Vec<usize> {
        if self.loops.is_empty() {
            return Vec::new();
        }
        let tail = std::mem::take(&mut self.tail_stmt);
        let mut rewriter = Jumps {
            lowerer: self,
            native: Vec::new(),
            hidden: vec![Vec::new()],
            holes: Vec::new(),
            tail,
        };
        node.rewrite(&mut rewriter);
        rewriter.holes
    }
}

/// A loop's segment of a resume point's path: its keyword, and its label if the author wrote
/// one (generated labels are numbered in source order and would change with unrelated edits).
fn segment(keyword: &str, label: Option<&syn::Label>) -> Option<String> {
    Some(match label {
        Some(label) => format!("{keyword} '{}", label.name.ident),
        None => keyword.to_owned(),
    })
}

fn plain(tokens: TokenStream) -> Code {
    Code {
        tokens,
        holes: Vec::new(),
        uses: BTreeSet::new(),
    }
}

fn wrap_in_block(code: Code) -> Code {
    let tokens = code.tokens;
    Code {
        tokens: quote!({ #tokens }),
        holes: code.holes,
        uses: code.uses,
    }
}

/// Puts the answer where the hoisted ask stood (the empty placeholder). An answer that `?`
/// applies to goes through `QuestionMark`, so that an answer that is not a `Result` (an
/// `Answer`, a `Reply`) is refused at the `?` with a way out, not on the attribute.
fn place_answer(expr: &mut Expr, answer: &TokenStream) {
    fn is_placeholder(expr: &Expr) -> bool {
        match expr {
            Expr::Verbatim(tokens) => tokens.is_empty(),
            Expr::Paren(paren) => is_placeholder(&paren.expr),
            _ => false,
        }
    }
    match expr {
        Expr::Try(tried) if is_placeholder(&tried.expr) => {
            // The answer is bound first, so that the whole check stands at the `?`.
            let span = tried.question_token.span;
            let bound = Ident::new("__mrtr_answer", Span::mixed_site().located_at(span));
            *tried.expr = Expr::Verbatim(quote_spanned!(span=> {
                let #bound = #answer;
                <_ as __mrtr_private::QuestionMark>::tried(#bound)
            }));
        }
        Expr::Verbatim(tokens) if tokens.is_empty() => {
            *expr = Expr::Verbatim(quote!((#answer)));
        }
        _ => {
            let child = leftmost_child(expr).expect("the placeholder is on the leftmost path");
            place_answer(child, answer);
        }
    }
}

/// Every name a construct binds anywhere inside (patterns, `let`s, closure parameters).
fn declared_names(expr: &Expr) -> BTreeSet<String> {
    struct Names(BTreeSet<String>);
    impl<'a> Visit<'a> for Names {
        fn visit_pat_ident(&mut self, pat: &'a syn::PatIdent) {
            self.0.insert(pat.ident.to_string());
            syn::visit::visit_pat_ident(self, pat);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut names = Names(BTreeSet::new());
    names.visit_expr(expr);
    names.0
}

/// The answer of question `index` of `site`, as the resume block reads it.
fn answer_expr(site: SiteId, index: usize, key: &str) -> TokenStream {
    let witness = witness_ident(site, index);
    quote!(__mrtr_try!(__mrtr_private::answer(&mut __mrtr_answers, #key, &#witness)))
}

/// The slot typing the answer of question `index` of `site`.
pub(crate) fn witness_ident(site: SiteId, index: usize) -> Ident {
    format_ident!(
        "__mrtr_witness_{}_{}",
        site,
        index,
        span = Span::mixed_site()
    )
}

/// Declares the `if let` bindings of a condition (visible in the `then` arm).
fn declare_let_bindings(
    lowerer: &mut Lowerer<'_>,
    cond: &Expr,
) -> (Vec<BindingId>, Vec<BindingId>) {
    struct Lets<'a>(Vec<&'a Pat>);
    impl<'a> Visit<'a> for Lets<'a> {
        fn visit_expr_let(&mut self, expr: &'a syn::ExprLet) {
            self.0.push(&expr.pat);
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_block(&mut self, _: &'a SynBlock) {}
    }
    let mut lets = Lets(Vec::new());
    lets.visit_expr(cond);
    let mut all = (Vec::new(), Vec::new());
    for pat in lets.0 {
        let (declared, hidden) = lowerer.declare(pat, false, false);
        all.0.extend(declared);
        all.1.extend(hidden);
    }
    all
}

/// Things whose uses can be collected.
trait UsesOf {
    fn collect(&self, uses: &mut Uses<'_>);
}

impl UsesOf for Stmt {
    fn collect(&self, uses: &mut Uses<'_>) {
        match self {
            Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    uses.visit_expr(&init.expr);
                    if let Some((_, diverge)) = &init.diverge {
                        uses.visit_expr(diverge);
                    }
                }
            }
            other => uses.visit_stmt(other),
        }
    }
}

impl UsesOf for Expr {
    fn collect(&self, uses: &mut Uses<'_>) {
        uses.visit_expr(self);
    }
}

/// Things in which jumps can be rewritten.
trait JumpTarget {
    fn rewrite(&mut self, jumps: &mut Jumps<'_, '_>);
}

impl JumpTarget for Stmt {
    fn rewrite(&mut self, jumps: &mut Jumps<'_, '_>) {
        jumps.visit_stmt_mut(self);
    }
}

impl JumpTarget for Expr {
    fn rewrite(&mut self, jumps: &mut Jumps<'_, '_>) {
        jumps.visit_expr_mut(self);
    }
}

struct Jumps<'l, 'e> {
    lowerer: &'l mut Lowerer<'e>,
    /// Loops inside the code being rewritten (their `break`s stay as written).
    native: Vec<Option<String>>,
    /// Names the code being rewritten binds around the current point, by scope.
    hidden: Vec<Vec<String>>,
    holes: Vec<usize>,
    /// Whether the statement being visited ends its block, which then has its value.
    tail: bool,
}

impl Jumps<'_, '_> {
    fn target(&self, label: Option<&Lifetime>) -> Option<usize> {
        let name = label.map(|label| label.ident.to_string());
        let native = match &name {
            None => !self.native.is_empty(),
            Some(name) => self
                .native
                .iter()
                .any(|native| native.as_ref() == Some(name)),
        };
        if native {
            return None;
        }
        match &name {
            None => self.lowerer.loops.len().checked_sub(1),
            Some(name) => self
                .lowerer
                .loops
                .iter()
                .rposition(|frame| frame.label.as_ref() == Some(name)),
        }
    }

    /// Another macro's call where a `continue` in its expansion would reach the machine's
    /// loop (no loop of the author's code is around it), so it needs a guard.
    fn needs_guard(&self, mac: &syn::Macro) -> bool {
        self.native.is_empty() && !ask::is_ask(mac) && !jump_free(mac)
    }

    /// A new guard for the macro call at `call`: the statements that move it out and put
    /// it back (see [`guard_ident`]). All at the call, so that rustc's error points there.
    fn guard(&mut self, call: Span) -> (TokenStream, TokenStream) {
        let index = self.lowerer.program.guards.len();
        self.lowerer.program.guards.push(call);
        let guard = guard_ident(index, call);
        let at = Span::mixed_site().located_at(call);
        (
            // Moved into a block's value: no binding for rustc to suggest `ref` on.
            quote_spanned!(at=> { #guard.0 };),
            quote_spanned! {at=>
                #[allow(unreachable_code, unused_assignments)]
                {
                    #guard.0 = __mrtr_private::ContinueInsideAnotherMacroCannotReachALoopThatAsks;
                }
            },
        )
    }

    /// `m!(..)` as an expression: the guard is moved out while it runs, put back after.
    fn guarded_expr(&mut self, mac: TokenStream, call: Span) -> TokenStream {
        let (take, put_back) = self.guard(call);
        // Not at the call: rustc would suggest `ref` on the binding there.
        let value = Ident::new("__mrtr_value", Span::mixed_site());
        quote!({
            #take
            let #value = #mac;
            #put_back
            #value
        })
    }

    /// `m!(..);` as a statement, left in its block so the names it may declare stay visible.
    fn guarded_stmt(&mut self, stmt: TokenStream, call: Span) -> TokenStream {
        let (take, put_back) = self.guard(call);
        quote!(#take #stmt #put_back)
    }

    fn native_loop(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        self.native
            .push(label.map(|label| label.name.ident.to_string()));
        f(self);
        self.native.pop();
    }

    fn scoped(&mut self, names: Vec<String>, f: impl FnOnce(&mut Self)) {
        self.hidden.push(names);
        f(self);
        self.hidden.pop();
    }

    fn hole(&mut self, exit: Exit) -> Expr {
        let id = self.lowerer.program.holes.len();
        self.lowerer.program.holes.push(exit);
        self.holes.push(id);
        let current = self.lowerer.current;
        let target = self.lowerer.program.holes[id].target;
        self.lowerer.program.blocks[current]
            .successors
            .insert(target);
        let placeholder = Ident::new(HOLE, Span::mixed_site());
        Expr::Verbatim(quote!(#placeholder))
    }

    fn exit(
        &self,
        target: BlockId,
        value: Option<(Option<BindingId>, Option<TokenStream>)>,
    ) -> Exit {
        Exit {
            target,
            value,
            visible: self.lowerer.scopes.visible(),
            hidden: self.hidden.iter().flatten().cloned().collect(),
        }
    }
}

fn pat_names(pat: &Pat) -> Vec<String> {
    pattern_bindings(pat, &|_| true)
        .into_iter()
        .map(|(ident, _)| ident.to_string())
        .collect()
}

impl VisitMut for Jumps<'_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Break(expr_break) => {
                if let Some(value) = &mut expr_break.expr {
                    self.visit_expr_mut(value);
                }
                let Some(index) = self.target(expr_break.label.as_ref()) else {
                    return;
                };
                let (exit, dest) = (
                    self.lowerer.loops[index].exit,
                    self.lowerer.loops[index].dest,
                );
                let value = expr_break
                    .expr
                    .take()
                    .map(|value| value.into_token_stream());
                *expr = match (dest, value) {
                    (Dest::Return, Some(value)) => syn::parse_quote!(return #value),
                    (Dest::Value(binding), value) => {
                        let current = self.lowerer.current;
                        self.lowerer.program.blocks[current]
                            .declared
                            .insert(binding);
                        let exit = self.exit(exit, Some((Some(binding), value)));
                        self.hole(exit)
                    }
                    (_, value) => {
                        let exit = self.exit(exit, Some((None, value)));
                        self.hole(exit)
                    }
                };
            }
            Expr::Continue(expr_continue) => {
                let Some(index) = self.target(expr_continue.label.as_ref()) else {
                    return;
                };
                let head = self.lowerer.loops[index].head;
                let exit = self.exit(head, None);
                *expr = self.hole(exit);
            }
            Expr::Loop(inner) => {
                let label = inner.label.clone();
                self.native_loop(label.as_ref(), |jumps| {
                    visit_mut::visit_expr_loop_mut(jumps, inner)
                });
            }
            Expr::While(inner) => {
                let label = inner.label.clone();
                self.native_loop(label.as_ref(), |jumps| {
                    visit_mut::visit_expr_while_mut(jumps, inner)
                });
            }
            Expr::ForLoop(inner) => {
                let label = inner.label.clone();
                self.visit_expr_mut(&mut inner.expr);
                let names = pat_names(&inner.pat);
                self.native_loop(label.as_ref(), |jumps| {
                    jumps.scoped(names, |jumps| jumps.visit_block_mut(&mut inner.body))
                });
            }
            Expr::Block(inner) if inner.label.is_some() => {
                let label = inner.label.clone();
                self.native_loop(label.as_ref(), |jumps| {
                    visit_mut::visit_expr_block_mut(jumps, inner)
                });
            }
            Expr::If(inner) => {
                self.visit_expr_mut(&mut inner.cond);
                let names = let_names(&inner.cond);
                self.scoped(names, |jumps| jumps.visit_block_mut(&mut inner.then_branch));
                if let Some((_, otherwise)) = &mut inner.else_branch {
                    self.visit_expr_mut(otherwise);
                }
            }
            Expr::Macro(call) if self.needs_guard(&call.mac) => {
                self.visit_macro_mut(&mut call.mac);
                let span = call.mac.span();
                *expr = Expr::Verbatim(self.guarded_expr(call.to_token_stream(), span));
            }
            // `break` cannot leave a closure, an async block or an item.
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        let tail = std::mem::take(&mut self.tail);
        let Stmt::Macro(call) = stmt else {
            return visit_mut::visit_stmt_mut(self, stmt);
        };
        if !self.needs_guard(&call.mac) {
            return self.visit_macro_mut(&mut call.mac);
        }
        self.visit_macro_mut(&mut call.mac);
        let span = call.mac.span();
        // `m! { .. }` ending a block is that block's value.
        let guarded = if tail && call.semi_token.is_none() {
            self.guarded_expr(call.to_token_stream(), span)
        } else {
            self.guarded_stmt(call.to_token_stream(), span)
        };
        *stmt = Stmt::Expr(Expr::Verbatim(guarded), None);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let names = pat_names(&arm.pat);
        self.scoped(names, |jumps| {
            if let Some((_, guard)) = &mut arm.guard {
                jumps.visit_expr_mut(guard);
            }
            jumps.visit_expr_mut(&mut arm.body);
        });
    }

    fn visit_block_mut(&mut self, block: &mut SynBlock) {
        self.scoped(Vec::new(), |jumps| {
            let count = block.stmts.len();
            for (index, stmt) in block.stmts.iter_mut().enumerate() {
                jumps.tail = index + 1 == count;
                jumps.visit_stmt_mut(stmt);
                if let Stmt::Local(local) = stmt {
                    let names = pattern_bindings(&local.pat, &|_| true)
                        .into_iter()
                        .map(|(ident, _)| ident.to_string());
                    jumps.hidden.last_mut().expect("a scope").extend(names);
                }
            }
        });
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // Another macro's expansion is invisible here: a jump inside it would leave the
        // machine's own loop instead of the author's.
        if self.native.is_empty()
            && let Some(jump) = jump_token(mac.tokens.clone())
        {
            let name = mac
                .path
                .segments
                .last()
                .map(|segment| segment.ident.to_string())
                .unwrap_or_default();
            self.lowerer.errors.push(syn::Error::new(
                jump.span(),
                format!("`{jump}` inside `{name}!` cannot leave a loop that asks: #[mrtr::tool] does not see the macro's expansion; set a flag inside the macro and `{jump}` after it"),
            ));
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The guard of the `index`th guarded macro call, located at the call. A guard is moved out
/// while another macro's expansion runs inside a loop that asks, and put back after it: a
/// `continue` hidden in that expansion would restart the machine's loop, not the author's, so
/// rustc refuses it at the call (E0382, "value moved here, in previous iteration of loop", a
/// value of type `ContinueInsideAnotherMacroCannotReachALoopThatAsks`).
pub(crate) fn guard_ident(index: usize, call: Span) -> Ident {
    let span = Span::mixed_site().located_at(call);
    format_ident!("__mrtr_continue_guard_{}", index, span = span)
}

/// Where an item is named, to point at it.
fn item_name_span(item: &syn::Item) -> TokenStream {
    match item {
        syn::Item::Fn(function) => function.sig.ident.to_token_stream(),
        syn::Item::Const(constant) => constant.ident.to_token_stream(),
        syn::Item::Static(item) => item.ident.to_token_stream(),
        syn::Item::Struct(item) => item.ident.to_token_stream(),
        syn::Item::Enum(item) => item.ident.to_token_stream(),
        syn::Item::Macro(item) => item.ident.as_ref().map_or_else(
            || item.mac.path.to_token_stream(),
            ToTokens::to_token_stream,
        ),
        other => other.to_token_stream(),
    }
}

/// An identifier of a `macro_rules!` definition that names a local in scope where it is
/// defined (not a `$variable`, a field, a method or a path segment).
fn reads_a_local(
    tokens: TokenStream,
    scopes: &Scopes,
    earlier: &BTreeSet<String>,
) -> Option<Ident> {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Group(group) => {
                if let Some(found) = reads_a_local(group.stream(), scopes, earlier) {
                    return Some(found);
                }
            }
            TokenTree::Ident(ident) => {
                let before = index.checked_sub(1).map(|before| &tokens[before]);
                let qualified = matches!(before, Some(TokenTree::Punct(punct)) if matches!(punct.as_char(), '$' | '.' | ':'));
                let name = ident.to_string();
                if !qualified && (scopes.lookup(&name).is_some() || earlier.contains(&name)) {
                    return Some(ident.clone());
                }
            }
            _ => {}
        }
    }
    None
}

/// Macros that never declare a name their caller sees: the standard ones a statement calls,
/// and logging macros, whose `field = value` is not a binding.
const NEVER_BINDS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "eprint",
    "eprintln",
    "panic",
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "write",
    "writeln",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "event",
];

/// The identifiers among a macro's tokens in a binding position: after `let` or `mut`, or
/// before a lone `=` (`bind!(v = 1)`), where the expansion may declare them.
fn binding_positions(tokens: TokenStream) -> Vec<Ident> {
    use proc_macro2::{Spacing, TokenTree};
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut found = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Group(group) => found.extend(binding_positions(group.stream())),
            TokenTree::Ident(ident) if ident != "let" && ident != "mut" => {
                let after_keyword = index > 0
                    && matches!(&tokens[index - 1], TokenTree::Ident(before) if before == "let" || before == "mut");
                let before_assign = matches!(
                    tokens.get(index + 1),
                    Some(TokenTree::Punct(punct)) if punct.as_char() == '=' && punct.spacing() == Spacing::Alone
                ) && !matches!(
                    index.checked_sub(1).map(|before| &tokens[before]),
                    Some(TokenTree::Punct(punct)) if punct.as_char() == '.'
                );
                if after_keyword || before_assign {
                    found.push(ident.clone());
                }
            }
            _ => {}
        }
    }
    found
}

/// Standard macros whose expansions never `break` or `continue` by themselves.
const JUMP_FREE: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "concat",
    "dbg",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "matches",
    "panic",
    "print",
    "println",
    "stringify",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// A standard macro call with no other macro call among its tokens: nothing in its
/// expansion can jump (a jump written among its tokens is refused on its own).
fn jump_free(mac: &syn::Macro) -> bool {
    fn calls_a_macro(tokens: TokenStream) -> bool {
        let mut previous_is_ident = false;
        tokens.into_iter().any(|token| {
            let found = match &token {
                proc_macro2::TokenTree::Punct(punct) => punct.as_char() == '!' && previous_is_ident,
                proc_macro2::TokenTree::Group(group) => calls_a_macro(group.stream()),
                _ => false,
            };
            previous_is_ident = matches!(token, proc_macro2::TokenTree::Ident(_));
            found
        })
    }
    let name = mac.path.segments.last().map(|segment| &segment.ident);
    name.is_some_and(|name| JUMP_FREE.iter().any(|known| name == known))
        && !calls_a_macro(mac.tokens.clone())
}

/// A `break` or `continue` keyword among a macro's tokens.
fn jump_token(tokens: TokenStream) -> Option<Ident> {
    tokens.into_iter().find_map(|token| match token {
        proc_macro2::TokenTree::Ident(ident) if ident == "break" || ident == "continue" => {
            Some(ident)
        }
        proc_macro2::TokenTree::Group(group) => jump_token(group.stream()),
        _ => None,
    })
}

/// Names bound by the `let`s of an `if` condition.
fn let_names(cond: &Expr) -> Vec<String> {
    struct Lets(Vec<String>);
    impl<'a> Visit<'a> for Lets {
        fn visit_expr_let(&mut self, expr: &'a syn::ExprLet) {
            self.0.extend(pat_names(&expr.pat));
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_block(&mut self, _: &'a SynBlock) {}
    }
    let mut lets = Lets(Vec::new());
    lets.visit_expr(cond);
    lets.0
}
