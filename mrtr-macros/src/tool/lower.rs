//! Lowering: the body becomes blocks of a machine. A block starts at the function's start, at
//! a resume point after an `ask!`, at the head of a loop that asks, or where branches that ask
//! join again; it ends with a jump to another block, a suspension, or a return. Code that
//! contains no `ask!` is copied as written; only the constructs that ask are taken apart, and
//! their arms stay inline in the block that branches.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Block as SynBlock, Expr, Ident, Lifetime, Local, Pat, Stmt};

use super::ask::{self, AskCall};
use super::scope::{Binding, BindingId, BindingKind, Scopes, Uses, pattern_bindings};
use crate::errors::Errors;

pub(crate) type BlockId = usize;
pub(crate) type SiteId = usize;

/// A piece of a block.
pub(crate) enum Node {
    /// Code emitted as written (user statements, or glue), possibly holding jump markers.
    Code(TokenStream),
    /// Save what the target needs and go there.
    Jump(BlockId),
    /// Ask the site's questions and end the step.
    Suspend(SiteId),
    /// A branch whose arms are inline sequences.
    If {
        cond: TokenStream,
        then: Vec<Node>,
        otherwise: Vec<Node>,
    },
    /// A match whose arms are inline sequences.
    Match {
        scrutinee: TokenStream,
        arms: Vec<(TokenStream, Vec<Node>)>,
    },
}

/// A block of the machine (one `pc`).
#[derive(Default)]
pub(crate) struct Block {
    pub(crate) nodes: Vec<Node>,
    pub(crate) declared: BTreeSet<BindingId>,
    pub(crate) used: BTreeSet<BindingId>,
    pub(crate) successors: BTreeSet<BlockId>,
}

/// One `ask!`: its questions (key, key span, request) and where the machine resumes.
pub(crate) struct Site {
    pub(crate) questions: Vec<(String, Span, Expr)>,
    pub(crate) resume: BlockId,
}

/// Where the value of a construct goes.
#[derive(Clone, Copy)]
enum Dest {
    Discard,
    Return,
    Value(BindingId),
}

struct LoopFrame {
    label: Option<String>,
    head: BlockId,
    exit: BlockId,
    dest: Dest,
}

#[derive(Clone, Copy)]
enum Sink {
    Block(BlockId),
    Inline(usize),
}

/// The lowered machine.
pub(crate) struct Program {
    pub(crate) blocks: Vec<Block>,
    pub(crate) sites: Vec<Site>,
    pub(crate) bindings: Vec<Binding>,
}

pub(crate) struct Lowerer<'e> {
    program: Program,
    scopes: Scopes,
    loops: Vec<LoopFrame>,
    inline: Vec<Vec<Node>>,
    sink: Sink,
    current: BlockId,
    synthetic: usize,
    errors: &'e mut Errors,
    /// The context parameter's name, to recognise `cx.state::<T>()` lookups.
    context: Option<String>,
}

/// Marker left in user code where a `break`/`continue` leaves a lowered loop; replaced by the
/// jump once liveness is known.
pub(crate) const JUMP_MARKER: &str = "__mrtr_jump";

impl<'e> Lowerer<'e> {
    pub(crate) fn new(errors: &'e mut Errors, context: Option<String>) -> Self {
        let mut scopes = Scopes::default();
        scopes.push();
        Self {
            program: Program {
                blocks: vec![Block::default()],
                sites: Vec::new(),
                bindings: Vec::new(),
            },
            scopes,
            loops: Vec::new(),
            inline: Vec::new(),
            sink: Sink::Block(0),
            current: 0,
            synthetic: 0,
            errors,
            context,
        }
    }

    /// Declares the machine's argument parameter: rebuilt in each block that uses it, or, if
    /// it is `mut` (`kept`), built once and kept like a local.
    pub(crate) fn parameter(&mut self, pat: &Pat, kept: bool) -> Vec<BindingId> {
        pattern_bindings(pat)
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
        });
        id
    }

    fn declare(&mut self, pat: &Pat, kind: BindingKind) {
        self.declare_borrowing(pat, kind, false);
    }

    fn declare_borrowing(&mut self, pat: &Pat, kind: BindingKind, borrowed: bool) {
        let by_ref = ref_bindings(pat);
        for (ident, mutable) in pattern_bindings(pat) {
            let borrowed = borrowed || by_ref.contains(&ident);
            let id = self.binding(ident, mutable, kind);
            self.program.bindings[id].borrowed = borrowed;
            self.program.blocks[self.current].declared.insert(id);
        }
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

    fn uses(&mut self, node: &dyn UsesOf) {
        let mut uses = Uses::new(&self.scopes);
        node.collect(&mut uses);
        let found = uses.found;
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

    fn code(&mut self, tokens: TokenStream) {
        self.push(Node::Code(tokens));
    }

    fn new_block(&mut self) -> BlockId {
        self.program.blocks.push(Block::default());
        self.program.blocks.len() - 1
    }

    fn switch_to(&mut self, block: BlockId) {
        self.sink = Sink::Block(block);
        self.current = block;
    }

    fn jump(&mut self, target: BlockId) {
        self.program.blocks[self.current].successors.insert(target);
        self.push(Node::Jump(target));
    }

    /// Lowers `f` into an inline sequence of the current block (an arm of a branch).
    fn inline(&mut self, f: impl FnOnce(&mut Self)) -> Vec<Node> {
        let saved = (self.sink, self.current);
        self.inline.push(Vec::new());
        self.sink = Sink::Inline(self.inline.len() - 1);
        f(self);
        let nodes = self.inline.pop().expect("the inline sequence pushed above");
        (self.sink, self.current) = saved;
        nodes
    }

    /// `cx.state::<T>()` on the context parameter: a lookup that is as good as new in every
    /// round, so a binding of it is rebuilt where used instead of kept.
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
        let tail = match stmts.last() {
            Some(Stmt::Expr(expr, None)) => Some(expr),
            _ => None,
        };
        let body = if tail.is_some() {
            &stmts[..stmts.len() - 1]
        } else {
            stmts
        };
        for stmt in body {
            self.stmt(stmt);
        }
        match (tail, dest) {
            (Some(expr), dest) => self.tail(expr, dest),
            (None, Dest::Discard) => {}
            (None, Dest::Value(value)) => {
                let ident = self.ident(value).clone();
                self.program.blocks[self.current].declared.insert(value);
                self.code(quote!(let #ident = ();));
            }
            // A body that ends without a value: `return;` keeps the type error rustc would
            // have given, unless the last statement visibly diverges.
            (None, Dest::Return) if !body.last().is_some_and(diverges) => {
                self.code(quote!(return;))
            }
            (None, Dest::Return) => {}
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) => self.local(local),
            Stmt::Expr(expr, _) => self.effect(expr),
            Stmt::Macro(mac) if ask::is_ask(&mac.mac) => self.ask_statement(&mac.mac),
            Stmt::Macro(_) => self.verbatim(stmt),
            Stmt::Item(_) => self.code(stmt.to_token_stream()),
        }
    }

    /// A statement with no ask: copied, with jumps out of lowered loops marked.
    fn verbatim(&mut self, stmt: &Stmt) {
        let mut stmt = stmt.clone();
        self.rewrite_jumps(&mut stmt);
        self.uses(&stmt);
        self.code(stmt.to_token_stream());
    }

    fn local(&mut self, local: &Local) {
        let Some(init) = &local.init else {
            self.verbatim(&Stmt::Local(local.clone()));
            self.declare(&local.pat, BindingKind::Uninit);
            return;
        };
        let borrowed = is_borrow(local);
        if !contains_ask(&init.expr)
            && init
                .diverge
                .as_ref()
                .is_none_or(|(_, diverge)| !contains_ask(diverge))
        {
            // Uses are those of the initializer; the pattern's names are declared after it.
            self.verbatim(&Stmt::Local(local.clone()));
            if let (Some(ident), true) =
                (binding_key(&local.pat), self.is_context_lookup(&init.expr))
            {
                let id = self.binding(ident, false, BindingKind::Derived);
                self.program.bindings[id].rebuild = Some(init.expr.to_token_stream());
                self.program.blocks[self.current].declared.insert(id);
            } else {
                self.declare_borrowing(&local.pat, BindingKind::Local, borrowed);
            }
            return;
        }
        if let Some((_, diverge)) = &init.diverge
            && contains_ask(diverge)
        {
            self.error(
                diverge,
                "ask! cannot be used in the `else` of a `let .. else`; bind the answer first",
            );
            return;
        }
        let pat = &local.pat;
        let key = binding_key(pat);
        let value = if let Some(mac) = ask::as_ask(&init.expr) {
            self.suspend(&mac.mac, key)
        } else if is_construct(&init.expr) {
            let value = self.synthetic("value", false);
            self.construct(&init.expr, Dest::Value(value));
            self.use_binding(value);
            Some(self.ident(value).to_token_stream())
        } else {
            self.hoist(&init.expr, key).map(|expr| {
                self.uses(&expr);
                expr.into_token_stream()
            })
        };
        let Some(value) = value else { return };
        // The `else` of a `let .. else` runs where the value arrives: after the ask.
        let diverge = init.diverge.as_ref().map(|(_, diverge)| {
            let mut diverge = (**diverge).clone();
            self.rewrite_jumps(&mut diverge);
            self.uses(&diverge);
            quote!(else #diverge)
        });
        let attrs = &local.attrs;
        self.code(quote!(#(#attrs)* let #pat = #value #diverge;));
        self.declare_borrowing(pat, BindingKind::Local, borrowed);
    }

    /// An expression evaluated for its effect (a statement).
    fn effect(&mut self, expr: &Expr) {
        if !contains_ask(expr) {
            self.verbatim(&Stmt::Expr(expr.clone(), Some(Default::default())));
        } else if let Some(mac) = ask::as_ask(expr) {
            self.ask_statement(&mac.mac);
        } else if is_construct(expr) {
            self.construct(expr, Dest::Discard);
        } else if let Some(expr) = self.hoist(expr, assigned_key(expr)) {
            self.uses(&expr);
            self.code(quote!(#expr;));
        }
    }

    /// `ask!(..);` on its own: the answer is consumed and dropped.
    fn ask_statement(&mut self, mac: &syn::Macro) {
        if let Some(answer) = self.suspend(mac, None) {
            self.code(quote!(let _ = #answer;));
        }
    }

    /// The last expression of a block, whose value goes to `dest`.
    fn tail(&mut self, expr: &Expr, dest: Dest) {
        if let Some(mac) = ask::as_ask(expr) {
            if let Some(answer) = self.suspend(&mac.mac, None) {
                self.deliver(answer, dest);
            }
        } else if contains_ask(expr) && is_construct(expr) {
            self.construct(expr, dest);
        } else if contains_ask(expr) {
            if let Some(expr) = self.hoist(expr, None) {
                self.uses(&expr);
                self.deliver(expr.into_token_stream(), dest);
            }
        } else {
            let mut expr = expr.clone();
            self.rewrite_jumps(&mut expr);
            self.uses(&expr);
            self.deliver(expr.into_token_stream(), dest);
        }
    }

    fn deliver(&mut self, value: TokenStream, dest: Dest) {
        match dest {
            Dest::Discard => self.code(quote!(#value;)),
            Dest::Return => self.code(quote!(return #value;)),
            Dest::Value(binding) => {
                let ident = self.ident(binding).clone();
                self.program.blocks[self.current].declared.insert(binding);
                self.code(quote!(let #ident = #value;));
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
                    let name = key.to_string().trim_start_matches("r#").to_owned();
                    if let Some((_, first, _)) = questions.iter().find(|(seen, _, _)| *seen == name) {
                        let first: Span = *first;
                        self.errors.push(syn::Error::new(key.span(), format!("duplicate key `{name}` in one ask!; each question of a round needs its own key")));
                        self.errors.push(syn::Error::new(first, format!("`{name}` first used here")));
                    }
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
        self.program.sites.push(Site { questions, resume });
        self.program.blocks[self.current].successors.insert(resume);
        self.push(Node::Suspend(site));
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
        let slot = leftmost_verbatim(&mut expr).expect("the placeholder put above");
        *slot = Expr::Verbatim(quote!((#answer)));
        self.rewrite_jumps(&mut expr);
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
                self.lowered_loop(label, &expr_loop.body, dest);
            }
            Expr::While(expr_while) => self.lower_while(expr_while, dest),
            Expr::ForLoop(expr_for) => self.lower_for(expr_for, dest),
            Expr::Block(block) if block.label.is_none() => {
                self.scopes.push();
                self.stmts(&block.block.stmts, dest);
                self.scopes.pop();
            }
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

    fn branch_if(&mut self, expr_if: &syn::ExprIf, dest: Dest) {
        let mut cond = (*expr_if.cond).clone();
        if contains_ask(&cond) {
            let Some(hoisted) = self.hoist(&cond, None) else {
                return;
            };
            cond = hoisted;
        } else {
            self.rewrite_jumps(&mut cond);
        }
        let join = self.new_block();
        let parent = self.sink;
        self.scopes.push();
        self.uses(&cond);
        declare_let_bindings(self, &cond);
        let then = self.inline(|lowerer| {
            lowerer.scopes.push();
            lowerer.stmts(&expr_if.then_branch.stmts, dest);
            lowerer.scopes.pop();
            lowerer.jump(join);
        });
        self.scopes.pop();
        let otherwise = self.inline(|lowerer| {
            match &expr_if.else_branch {
                Some((_, otherwise)) => lowerer.tail(otherwise, dest),
                None => lowerer.stmts(&[], dest),
            }
            lowerer.jump(join);
        });
        self.push_to(
            parent,
            Node::If {
                cond: cond.into_token_stream(),
                then,
                otherwise,
            },
        );
        self.switch_to(join);
    }

    fn branch_match(&mut self, expr_match: &syn::ExprMatch, dest: Dest) {
        let mut scrutinee = (*expr_match.expr).clone();
        if contains_ask(&scrutinee) {
            let Some(hoisted) = self.hoist(&scrutinee, None) else {
                return;
            };
            scrutinee = hoisted;
        } else {
            self.rewrite_jumps(&mut scrutinee);
        }
        self.uses(&scrutinee);
        let join = self.new_block();
        let parent = self.sink;
        let mut arms = Vec::new();
        for arm in &expr_match.arms {
            if let Some((_, guard)) = &arm.guard
                && contains_ask(guard)
            {
                self.error(
                    guard,
                    "ask! cannot be used in a match guard; ask before the match",
                );
                continue;
            }
            self.scopes.push();
            self.declare(&arm.pat, BindingKind::Local);
            let guard = arm.guard.as_ref().map(|(if_token, guard)| {
                let mut guard = (**guard).clone();
                self.rewrite_jumps(&mut guard);
                self.uses(&guard);
                quote!(#if_token #guard)
            });
            let nodes = self.inline(|lowerer| {
                lowerer.tail(&arm.body, dest);
                lowerer.jump(join);
            });
            self.scopes.pop();
            let (attrs, pat) = (&arm.attrs, &arm.pat);
            arms.push((quote!(#(#attrs)* #pat #guard), nodes));
        }
        self.push_to(
            parent,
            Node::Match {
                scrutinee: scrutinee.into_token_stream(),
                arms,
            },
        );
        self.switch_to(join);
    }

    fn push_to(&mut self, sink: Sink, node: Node) {
        let saved = self.sink;
        self.sink = sink;
        self.push(node);
        self.sink = saved;
    }

    fn lowered_loop(&mut self, label: Option<String>, body: &SynBlock, dest: Dest) {
        let head = self.new_block();
        let exit = self.new_block();
        self.jump(head);
        self.switch_to(head);
        self.loops.push(LoopFrame {
            label,
            head,
            exit,
            dest,
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
        if reachable && matches!(dest, Dest::Return) {
            // Only a `break` without a value gets here: the loop's value is `()`.
            self.code(quote!(return;));
        }
    }

    /// `while c { b }` is `loop { if c { b } else { break } }`, so an ask in the condition is
    /// asked again on every iteration, as the condition is evaluated again.
    fn lower_while(&mut self, expr_while: &syn::ExprWhile, dest: Dest) {
        let label = self.loop_label(expr_while.label.as_ref());
        let (cond, body) = (&expr_while.cond, &expr_while.body);
        let body: SynBlock = syn::parse_quote!({ if #cond #body else { break #label; } });
        self.lowered_loop(Some(label.ident.to_string()), &body, dest);
    }

    /// A `for` whose body asks keeps its iteration state: the remaining items, or a range's
    /// cursor.
    fn lower_for(&mut self, expr_for: &syn::ExprForLoop, dest: Dest) {
        let Some(state) = self.iteration_state(&expr_for.expr) else {
            return;
        };
        self.uses(&*expr_for.expr);
        let iter = self.synthetic("iter", true);
        let iter_ident = self.ident(iter).clone();
        self.code(quote!(let mut #iter_ident = #state;));
        let label = self.loop_label(expr_for.label.as_ref());
        let (pat, body) = (&expr_for.pat, &expr_for.body);
        let body: SynBlock = syn::parse_quote!({
            match #iter_ident.next() {
                ::core::option::Option::Some(#pat) => #body,
                ::core::option::Option::None => break #label,
            }
        });
        self.lowered_loop(Some(label.ident.to_string()), &body, dest);
    }

    fn iteration_state(&mut self, iterable: &Expr) -> Option<TokenStream> {
        let private = quote!(__mrtr_private);
        if let Expr::Range(range) = iterable {
            let (Some(start), Some(end)) = (&range.start, &range.end) else {
                self.error(range, "an unbounded range cannot be kept across ask!; give it an end (`a..b` or `a..=b`)");
                return None;
            };
            return Some(match range.limits {
                syn::RangeLimits::HalfOpen(_) => {
                    quote!(#private::RangeState::exclusive(#start, #end))
                }
                syn::RangeLimits::Closed(_) => {
                    quote!(#private::RangeState::inclusive(#start, #end))
                }
            });
        }
        if let Some(endless) = endless_iterator(iterable) {
            self.error(endless, "this iterator never ends, and a `for` loop that asks keeps its remaining items in requestState; bound it (e.g. `.take(n)`)");
            return None;
        }
        Some(quote!(#private::ForState::new(#iterable)))
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

    /// Marks every `break`/`continue` that leaves a lowered loop, recording the jump edges.
    fn rewrite_jumps<T: JumpTarget>(&mut self, node: &mut T) {
        if self.loops.is_empty() {
            return;
        }
        let mut rewriter = Jumps {
            lowerer: self,
            native: Vec::new(),
        };
        node.rewrite(&mut rewriter);
    }
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

fn declare_let_bindings(lowerer: &mut Lowerer<'_>, cond: &Expr) {
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
    for pat in lets.0 {
        lowerer.declare(pat, BindingKind::Local);
    }
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

    fn native_loop(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        self.native
            .push(label.map(|label| label.name.ident.to_string()));
        f(self);
        self.native.pop();
    }
}

fn marker(target: BlockId) -> TokenStream {
    let marker = Ident::new(JUMP_MARKER, Span::mixed_site());
    quote!(#marker!(#target))
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
                let value = expr_break.expr.take();
                let current = self.lowerer.current;
                *expr = match (dest, value) {
                    (Dest::Return, Some(value)) => syn::parse_quote!(return #value),
                    (Dest::Value(binding), value) => {
                        let ident = self.lowerer.ident(binding).clone();
                        let value =
                            value.map_or_else(|| quote!(()), |value| value.into_token_stream());
                        self.lowerer.program.blocks[current]
                            .declared
                            .insert(binding);
                        self.lowerer.program.blocks[current].successors.insert(exit);
                        let jump = marker(exit);
                        Expr::Verbatim(quote!({ let #ident = #value; #jump }))
                    }
                    (_, value) => {
                        self.lowerer.program.blocks[current].successors.insert(exit);
                        let jump = marker(exit);
                        let value = value.map(|value| quote!(let _ = #value;));
                        Expr::Verbatim(quote!({ #value #jump }))
                    }
                };
            }
            Expr::Continue(expr_continue) => {
                let Some(index) = self.target(expr_continue.label.as_ref()) else {
                    return;
                };
                let head = self.lowerer.loops[index].head;
                let current = self.lowerer.current;
                self.lowerer.program.blocks[current].successors.insert(head);
                *expr = Expr::Verbatim(marker(head));
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
                self.native_loop(label.as_ref(), |jumps| {
                    visit_mut::visit_expr_for_loop_mut(jumps, inner)
                });
            }
            Expr::Block(inner) if inner.label.is_some() => {
                let label = inner.label.clone();
                self.native_loop(label.as_ref(), |jumps| {
                    visit_mut::visit_expr_block_mut(jumps, inner)
                });
            }
            // `break` cannot leave a closure, an async block or an item.
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// ---------------------------------------------------------------- syntax helpers

/// Whether `expr` contains an `ask!` the lowering must handle (asks in closures, async blocks
/// and items are reported separately).
pub(crate) fn contains_ask(expr: &Expr) -> bool {
    first_ask(expr).is_some()
}

fn first_ask(expr: &Expr) -> Option<&syn::Macro> {
    struct Find<'a>(Option<&'a syn::Macro>);
    impl<'a> Visit<'a> for Find<'a> {
        fn visit_macro(&mut self, mac: &'a syn::Macro) {
            if self.0.is_none() && ask::is_ask(mac) {
                self.0 = Some(mac);
            }
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut find = Find(None);
    find.visit_expr(expr);
    find.0
}

fn is_construct(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(paren) => is_construct(&paren.expr),
        Expr::If(_)
        | Expr::Match(_)
        | Expr::Loop(_)
        | Expr::While(_)
        | Expr::ForLoop(_)
        | Expr::Block(_)
        | Expr::Unsafe(_) => true,
        _ => false,
    }
}

/// Whether a statement visibly never completes (`return`, `break`, `continue`, `loop` without
/// `break`, `panic!`-like macros).
fn diverges(stmt: &Stmt) -> bool {
    let expr = match stmt {
        Stmt::Expr(expr, _) => expr,
        Stmt::Macro(mac) => {
            return mac.mac.path.segments.last().is_some_and(|segment| {
                ["panic", "unreachable", "todo", "unimplemented"]
                    .contains(&segment.ident.to_string().as_str())
            });
        }
        _ => return false,
    };
    match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Loop(expr_loop) => {
            struct Breaks(bool);
            impl<'a> Visit<'a> for Breaks {
                fn visit_expr_break(&mut self, _: &'a syn::ExprBreak) {
                    self.0 = true;
                }
                fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
            }
            let mut breaks = Breaks(false);
            breaks.visit_block(&expr_loop.body);
            !breaks.0
        }
        Expr::Macro(mac) => diverges(&Stmt::Macro(syn::StmtMacro {
            attrs: Vec::new(),
            mac: mac.mac.clone(),
            semi_token: None,
        })),
        _ => false,
    }
}

/// Whether a `let` visibly binds a borrow: `let x: &T = ..` or `let x = &..`.
fn is_borrow(local: &Local) -> bool {
    let typed_as_reference =
        matches!(&local.pat, Pat::Type(typed) if matches!(&*typed.ty, syn::Type::Reference(_)));
    let takes_reference = local
        .init
        .as_ref()
        .is_some_and(|init| matches!(&*init.expr, Expr::Reference(_)));
    typed_as_reference || takes_reference
}

/// Names bound with `ref` in a pattern.
fn ref_bindings(pat: &Pat) -> Vec<Ident> {
    struct Refs(Vec<Ident>);
    impl<'a> Visit<'a> for Refs {
        fn visit_pat_ident(&mut self, pat: &'a syn::PatIdent) {
            if pat.by_ref.is_some() {
                self.0.push(pat.ident.clone());
            }
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut refs = Refs(Vec::new());
    refs.visit_pat(pat);
    refs.0
}

/// The name a `let` gives an ask's answer: `let name = ..`, `let mut name: T = ..`.
fn binding_key(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(ident) if ident.subpat.is_none() => Some(ident.ident.clone()),
        Pat::Type(typed) => binding_key(&typed.pat),
        _ => None,
    }
}

/// The ask evaluated before anything else in `expr`, if there is one.
fn leftmost_ask(expr: &mut Expr) -> Option<&mut Expr> {
    if matches!(expr, Expr::Macro(mac) if ask::is_ask(&mac.mac)) {
        return Some(expr);
    }
    leftmost_child(expr).and_then(leftmost_ask)
}

fn leftmost_verbatim(expr: &mut Expr) -> Option<&mut Expr> {
    if matches!(expr, Expr::Verbatim(_)) {
        return Some(expr);
    }
    leftmost_child(expr).and_then(leftmost_verbatim)
}

/// The sub-expression evaluated first, where moving it before the rest changes nothing.
fn leftmost_child(expr: &mut Expr) -> Option<&mut Expr> {
    match expr {
        Expr::MethodCall(call) => Some(&mut call.receiver),
        Expr::Try(inner) => Some(&mut inner.expr),
        Expr::Field(field) => Some(&mut field.base),
        Expr::Await(inner) => Some(&mut inner.base),
        Expr::Paren(inner) => Some(&mut inner.expr),
        Expr::Unary(inner) => Some(&mut inner.expr),
        Expr::Cast(cast) => Some(&mut cast.expr),
        Expr::Reference(reference) => Some(&mut reference.expr),
        Expr::Index(index) => Some(&mut index.expr),
        Expr::Let(expr_let) => Some(&mut expr_let.expr),
        // `x = ask!(..)`, `total += ask!(..)`: a plain place evaluates nothing before the value.
        Expr::Assign(assign) if is_place(&assign.left) => Some(&mut assign.right),
        Expr::Binary(binary) => {
            if is_compound_assign(&binary.op) && is_place(&binary.left) {
                Some(&mut binary.right)
            } else {
                Some(&mut binary.left)
            }
        }
        // `Some(ask!(..))`, `Ok(ask!(..))`: a path callee evaluates nothing.
        Expr::Call(call) if matches!(&*call.func, Expr::Path(_)) => call.args.first_mut(),
        Expr::Tuple(tuple) => tuple.elems.first_mut(),
        Expr::Array(array) => array.elems.first_mut(),
        _ => None,
    }
}

/// A place whose evaluation has no effect: `x`, `x.field`, `self.x.y`.
fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(path) => path.qself.is_none(),
        Expr::Field(field) => is_place(&field.base),
        Expr::Paren(paren) => is_place(&paren.expr),
        _ => false,
    }
}

fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// The variable an assignment statement writes (`x = ..`, `x += ..`), which names its ask.
fn assigned_key(expr: &Expr) -> Option<Ident> {
    let target = match expr {
        Expr::Assign(assign) => &assign.left,
        Expr::Binary(binary) if is_compound_assign(&binary.op) => &binary.left,
        _ => return None,
    };
    match &**target {
        Expr::Path(path) => path.path.get_ident().cloned(),
        _ => None,
    }
}

/// An iterator expression that syntactically never ends.
fn endless_iterator(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::MethodCall(call) if call.method == "cycle" => Some(expr),
        Expr::MethodCall(call) if call.method == "take" => None,
        Expr::MethodCall(call) => endless_iterator(&call.receiver),
        Expr::Call(call) => match &*call.func {
            Expr::Path(path)
                if path.path.segments.last().is_some_and(|s| {
                    ["repeat", "repeat_with", "successors", "from_fn"]
                        .contains(&s.ident.to_string().as_str())
                }) =>
            {
                Some(expr)
            }
            _ => None,
        },
        _ => None,
    }
}
