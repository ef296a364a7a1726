//! Lowering: the body becomes blocks of a machine. A block starts at the function's start, at
//! a resume point after an `ask!`, at the head of a loop that asks, or where a construct that
//! asks joins again after an arm that completes in another block; it ends with a jump, a
//! suspension or a return. Code without an `ask!` is copied as written. A construct that asks
//! (`if`, `match`, a plain block) keeps its arms in place in the block where it starts; an arm
//! that completes there hands its value out, so the join is reached in the scope around the
//! construct, exactly as in the source. If no arm completes elsewhere (each one that asks
//! diverges after), the code after the construct stays in that block.
//!
//! This file holds the lowerer's state and bookkeeping; `statements` lowers a block's
//! statements and says where values go, `asks` ends a block at an `ask!`, `constructs` lowers
//! the `if`/`match`/blocks and loops that ask, `jumps` turns `break`/`continue` into the
//! machine's jumps, and `items` reads what the author's items and macro calls may do.

mod asks;
mod constructs;
mod items;
mod jumps;
mod statements;

pub(crate) use jumps::guard_ident;

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::visit::Visit;
use syn::{Block as SynBlock, Expr, Ident, Pat, Stmt};

use super::ir::{Block, BlockId, Code, Node, Program, SiteId, Unlowerable};
use super::scope::{Binding, BindingId, BindingKind, Found, Scopes, Uses, pattern_bindings};
use super::syntax::{leftmost_child, ref_bindings};

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

pub(crate) struct Lowerer {
    program: Program,
    scopes: Scopes,
    loops: Vec<LoopFrame>,
    arms: Vec<ArmFrame>,
    inline: Vec<Vec<Node>>,
    sink: Sink,
    current: BlockId,
    synthetic: usize,
    source_order: usize,
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

impl Lowerer {
    pub(crate) fn new(context: Option<String>) -> Self {
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
                unlowerable: Vec::new(),
            },
            scopes,
            loops: Vec::new(),
            arms: Vec::new(),
            inline: Vec::new(),
            sink: Sink::Block(0),
            current: 0,
            synthetic: 0,
            source_order: 0,
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

    fn uses_of(&self, node: &dyn UsesOf) -> Found {
        let mut uses = Uses::new(&self.scopes);
        node.collect(&mut uses);
        uses.finish()
    }

    /// Records what `node` uses in the current block, and returns it with its reads.
    fn uses(&mut self, node: &dyn UsesOf) -> Found {
        let found = self.uses_of(node);
        self.program.blocks[self.current]
            .used
            .extend(found.uses.iter().copied());
        found
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
            ..Code::default()
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

    /// Records what cannot be taken apart here; `check::unlowerable` words it.
    fn refuse(&mut self, refusal: Unlowerable) {
        self.program.unlowerable.push(refusal);
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
        ..Code::default()
    }
}

fn wrap_in_block(code: Code) -> Code {
    let tokens = &code.tokens;
    Code {
        tokens: quote!({ #tokens }),
        ..code
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

/// Every name a construct (or a part of it) binds inside where the machine may put a value
/// away (patterns and `let`s), gathered by `visit`. A closure's parameters and `let`s scope
/// over none: a value is never put away inside a closure, which cannot ask.
fn declared_names(visit: impl FnOnce(&mut DeclaredNames)) -> BTreeSet<String> {
    let mut names = DeclaredNames(BTreeSet::new());
    visit(&mut names);
    names.0
}

struct DeclaredNames(BTreeSet<String>);

impl<'a> Visit<'a> for DeclaredNames {
    fn visit_pat_ident(&mut self, pat: &'a syn::PatIdent) {
        self.0.insert(pat.ident.to_string());
        syn::visit::visit_pat_ident(self, pat);
    }
    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'a syn::Item) {}
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
fn declare_let_bindings(lowerer: &mut Lowerer, cond: &Expr) -> (Vec<BindingId>, Vec<BindingId>) {
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

/// Names bound by a pattern.
fn pat_names(pat: &Pat) -> Vec<String> {
    pattern_bindings(pat, &|_| true)
        .into_iter()
        .map(|(ident, _)| ident.to_string())
        .collect()
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
