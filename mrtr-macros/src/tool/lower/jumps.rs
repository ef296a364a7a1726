//! `break` and `continue` that leave a loop that asks become jumps of the machine; a macro
//! call that might hide one is guarded.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Block as SynBlock, Expr, Ident, Lifetime, Stmt, visit_mut};

use super::{Dest, HOLE, Lowerer, let_names, pat_names};
use crate::tool::ask;
use crate::tool::ir::{BlockId, Exit, Unlowerable};
use crate::tool::scope::{BindingId, pattern_bindings};

impl Lowerer {
    /// Makes every `break`/`continue` that leaves a lowered loop a hole, recording its jump.
    pub(super) fn rewrite_jumps<T: JumpTarget>(&mut self, node: &mut T) -> Vec<usize> {
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

/// Things in which jumps can be rewritten.
pub(super) trait JumpTarget {
    fn rewrite(&mut self, jumps: &mut Jumps<'_>);
}

impl JumpTarget for Stmt {
    fn rewrite(&mut self, jumps: &mut Jumps<'_>) {
        jumps.visit_stmt_mut(self);
    }
}

impl JumpTarget for Expr {
    fn rewrite(&mut self, jumps: &mut Jumps<'_>) {
        jumps.visit_expr_mut(self);
    }
}

pub(super) struct Jumps<'l> {
    lowerer: &'l mut Lowerer,
    /// Loops inside the code being rewritten (their `break`s stay as written).
    native: Vec<Option<String>>,
    /// Names the code being rewritten binds around the current point, by scope.
    hidden: Vec<Vec<String>>,
    holes: Vec<usize>,
    /// Whether the statement being visited ends its block, which then has its value.
    tail: bool,
}

impl Jumps<'_> {
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

impl VisitMut for Jumps<'_> {
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
            self.lowerer.refuse(Unlowerable::JumpInsideAnotherMacro {
                at: jump.span(),
                jump: jump.to_string(),
                name,
            });
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
