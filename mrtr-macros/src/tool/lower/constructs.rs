//! Constructs that ask (`if`, `match`, a block) and loops that ask: arms kept in place, joins,
//! loop heads and exits.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::visit::Visit;
use syn::{Block as SynBlock, Expr, Ident, Lifetime};

use super::{
    ArmFrame, Dest, LoopFrame, Lowerer, declare_let_bindings, declared_names, plain, segment,
};
use crate::tool::canonical::canonical;
use crate::tool::ir::{Arm, BlockId, Branch, BranchShape, Code, Flow, Node, Unlowerable};
use crate::tool::scope::Visible;
use crate::tool::syntax::contains_ask;

impl Lowerer {
    pub(super) fn construct(&mut self, expr: &Expr, dest: Dest) {
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
            Expr::Block(block) => {
                self.refuse(Unlowerable::AskInLabeledBlock(
                    block.label.to_token_stream(),
                ));
            }
            Expr::Unsafe(block) => {
                self.refuse(Unlowerable::AskInUnsafeBlock(
                    block.unsafe_token.to_token_stream(),
                ));
            }
            other => self.refuse(Unlowerable::AskInThisPosition(other.to_token_stream())),
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
    pub(super) fn join(&mut self, index: usize) -> BlockId {
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
        head_names: BTreeSet<String>,
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
            head_names,
            visible,
            needed_after: BTreeSet::new(),
            needed: BTreeSet::new(),
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
        let head_names = declared_names(|names| names.visit_expr(&expr_if.cond));
        let visible = self.scopes.visible();
        let arm_dest = self.open_branch(dest);
        let cond_found = self.uses(&cond);
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
                uses: cond_found.uses,
                reads: cond_found.reads,
            },
        };
        let arms = vec![
            Arm {
                declares,
                hides,
                nodes: then,
                declared_names: declared_names(|names| names.visit_block(&expr_if.then_branch)),
            },
            Arm {
                declares: Vec::new(),
                hides: Vec::new(),
                nodes: otherwise,
                declared_names: declared_names(|names| {
                    if let Some((_, otherwise)) = &expr_if.else_branch {
                        names.visit_expr(otherwise);
                    }
                }),
            },
        ];
        self.close_branch(shape, arms, head_names, visible);
    }

    fn branch_match(&mut self, expr_match: &syn::ExprMatch, dest: Dest) {
        let mut scrutinee = (*expr_match.expr).clone();
        if contains_ask(&scrutinee) {
            let Some(hoisted) = self.hoist(&scrutinee, None) else {
                return;
            };
            scrutinee = hoisted;
        }
        let head_names = declared_names(|names| {
            names.visit_expr(&expr_match.expr);
            for arm in &expr_match.arms {
                names.visit_pat(&arm.pat);
                if let Some((_, guard)) = &arm.guard {
                    names.visit_expr(guard);
                }
            }
        });
        let visible = self.scopes.visible();
        let arm_dest = self.open_branch(dest);
        let scrutinee_found = self.uses(&scrutinee);
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
                    let tokens = &code.tokens;
                    Code {
                        tokens: quote!(#(#attrs)* #pat #if_token #tokens),
                        ..code
                    }
                }
                None => plain(quote!(#(#attrs)* #pat)),
            };
            heads.push(head);
            arms.push(Arm {
                declares,
                hides,
                nodes,
                declared_names: declared_names(|names| names.visit_expr(&arm.body)),
            });
        }
        let shape = BranchShape::Match {
            scrutinee: Code {
                tokens: scrutinee.into_token_stream(),
                holes,
                uses: scrutinee_found.uses,
                reads: scrutinee_found.reads,
            },
            heads,
        };
        self.close_branch(shape, arms, head_names, visible);
    }

    /// A plain `{ .. }` that asks: a construct with one arm, so its scope closes at its end.
    fn branch_block(&mut self, block: &syn::ExprBlock, dest: Dest) {
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
            declared_names: declared_names(|names| names.visit_block(&block.block)),
        };
        self.close_branch(BranchShape::Block, vec![arm], BTreeSet::new(), visible);
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
                let code = Code {
                    uses: BTreeSet::from([value]),
                    ..plain(quote!(#ident))
                };
                self.deliver_or_hand_out(code, dest);
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
        let iterable_found = self.uses(&iterable);
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
                uses: iterable_found.uses,
                reads: iterable_found.reads,
            },
            diverge: None,
            declares: vec![iter],
            hides: Vec::new(),
            needed_after: BTreeSet::new(),
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
}
