//! Questions about the author's syntax that the lowering asks: where an `ask!` is, what a
//! statement binds, whether it visibly diverges, which sub-expression is evaluated first.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Ident, Local, Pat, Stmt};

use super::ask;

/// Whether `expr` contains an `ask!` the lowering must handle (asks in closures, async blocks
/// and items are reported separately).
pub(crate) fn contains_ask(expr: &Expr) -> bool {
    first_ask(expr).is_some()
}

pub(crate) fn first_ask(expr: &Expr) -> Option<&syn::Macro> {
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

pub(crate) fn is_construct(expr: &Expr) -> bool {
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
pub(crate) fn diverges(stmt: &Stmt) -> bool {
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
pub(crate) fn is_borrow(local: &Local) -> bool {
    let typed_as_reference =
        matches!(&local.pat, Pat::Type(typed) if matches!(&*typed.ty, syn::Type::Reference(_)));
    let takes_reference = local
        .init
        .as_ref()
        .is_some_and(|init| matches!(&*init.expr, Expr::Reference(_)));
    // `let s: &str = "..";` is a string literal, which a kept value can come back as.
    let literal = local.init.as_ref().is_some_and(|init| {
        matches!(
            &*init.expr,
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(_),
                ..
            })
        )
    });
    (typed_as_reference && !literal) || takes_reference
}

/// Names bound with `ref` in a pattern.
pub(crate) fn ref_bindings(pat: &Pat) -> Vec<Ident> {
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
pub(crate) fn binding_key(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(ident) if ident.subpat.is_none() => Some(ident.ident.clone()),
        Pat::Type(typed) => binding_key(&typed.pat),
        _ => None,
    }
}

/// The ask evaluated before anything else in `expr`, if there is one.
pub(crate) fn leftmost_ask(expr: &mut Expr) -> Option<&mut Expr> {
    if matches!(expr, Expr::Macro(mac) if ask::is_ask(&mac.mac)) {
        return Some(expr);
    }
    leftmost_child(expr).and_then(leftmost_ask)
}

/// The sub-expression evaluated first, where moving it before the rest changes nothing.
pub(crate) fn leftmost_child(expr: &mut Expr) -> Option<&mut Expr> {
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
        Expr::Return(inner) => inner.expr.as_deref_mut(),
        Expr::Range(range) => range.start.as_deref_mut(),
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
pub(crate) fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(path) => path.qself.is_none(),
        Expr::Field(field) => is_place(&field.base),
        Expr::Paren(paren) => is_place(&paren.expr),
        _ => false,
    }
}

pub(crate) fn is_compound_assign(op: &syn::BinOp) -> bool {
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
pub(crate) fn assigned_key(expr: &Expr) -> Option<Ident> {
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

/// The string literals among `tokens` (another macro's tokens included), sorted and without
/// repeats: a kept `&'static str` that equals one comes back as that literal.
pub(crate) fn string_literals(tokens: TokenStream) -> Vec<String> {
    fn collect(tokens: TokenStream, found: &mut Vec<String>) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Group(group) => collect(group.stream(), found),
                proc_macro2::TokenTree::Literal(literal) => {
                    if let Ok(text) = syn::parse2::<syn::LitStr>(literal.into_token_stream()) {
                        found.push(text.value());
                    }
                }
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    collect(tokens, &mut found);
    found.sort();
    found.dedup();
    found
}

/// Whether `tokens` visibly borrow `name` (`&name`, `name.method()`, `name[..]`): such a value
/// cannot be put away while the scrutinee holds the borrow.
pub(crate) fn borrows(tokens: &TokenStream, name: &str) -> bool {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    tokens.iter().enumerate().any(|(index, token)| match token {
        TokenTree::Group(group) => borrows(&group.stream(), name),
        TokenTree::Ident(ident) if *ident == name => {
            let before = index.checked_sub(1).and_then(|index| tokens.get(index));
            let after = tokens.get(index + 1);
            matches!(before, Some(TokenTree::Punct(punct)) if punct.as_char() == '&')
                || matches!(after, Some(TokenTree::Punct(punct)) if punct.as_char() == '.')
                || matches!(after, Some(TokenTree::Group(group)) if group.delimiter() == proc_macro2::Delimiter::Bracket)
        }
        _ => false,
    })
}

/// Whether a statement holds an `ask!` the lowering takes apart.
pub(crate) fn stmt_asks(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Local(local) => local.init.as_ref().is_some_and(|init| {
            contains_ask(&init.expr)
                || init
                    .diverge
                    .as_ref()
                    .is_some_and(|(_, diverge)| contains_ask(diverge))
        }),
        Stmt::Expr(expr, _) => contains_ask(expr),
        Stmt::Macro(mac) => ask::is_ask(&mac.mac),
        Stmt::Item(_) => false,
    }
}

/// The outer attributes of a statement.
pub(crate) fn stmt_attrs(stmt: &Stmt) -> &[syn::Attribute] {
    match stmt {
        Stmt::Local(local) => &local.attrs,
        Stmt::Macro(mac) => &mac.attrs,
        Stmt::Item(_) => &[],
        Stmt::Expr(expr, _) => match expr {
            Expr::Assign(e) => &e.attrs,
            Expr::Await(e) => &e.attrs,
            Expr::Binary(e) => &e.attrs,
            Expr::Block(e) => &e.attrs,
            Expr::Call(e) => &e.attrs,
            Expr::Field(e) => &e.attrs,
            Expr::ForLoop(e) => &e.attrs,
            Expr::If(e) => &e.attrs,
            Expr::Index(e) => &e.attrs,
            Expr::Loop(e) => &e.attrs,
            Expr::Macro(e) => &e.attrs,
            Expr::Match(e) => &e.attrs,
            Expr::MethodCall(e) => &e.attrs,
            Expr::Paren(e) => &e.attrs,
            Expr::Reference(e) => &e.attrs,
            Expr::Return(e) => &e.attrs,
            Expr::Try(e) => &e.attrs,
            Expr::Tuple(e) => &e.attrs,
            Expr::Unary(e) => &e.attrs,
            Expr::Unsafe(e) => &e.attrs,
            Expr::While(e) => &e.attrs,
            _ => &[],
        },
    }
}
