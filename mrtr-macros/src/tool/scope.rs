//! Which binding each name refers to, which bindings a piece of code uses, and how it reads
//! them (whole, or through named fields).
//!
//! The analysis is syntactic, so it over-approximates: every identifier inside another
//! macro's tokens, and every name in a format string (`{name}`, `{:width$}`, `{:.prec$}`),
//! counts as a use. It never misses a use, which is what matters: a missed use would drop a
//! value the code needs after an ask.

use std::collections::{BTreeMap, BTreeSet};
use syn::ext::IdentExt;

use proc_macro2::{TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, ExprPath, Ident, Pat};

use super::reads::{
    STD_FORMATTING, borrows_receiver, field_chain, field_chain_of, formats_arguments,
    token_field_path,
};

pub(crate) type BindingId = usize;

/// Which binding each name refers to at one point of the source.
pub(crate) type Visible = BTreeMap<String, BindingId>;

/// What kind of name a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BindingKind {
    /// A `let` binding or a pattern binding of the body.
    Local,
    /// `let x;` without a value (`typed`: `let x: T;`).
    Uninit { typed: bool },
    /// A machine parameter, rebuilt from the request in every block that uses it.
    Param,
    /// A value the lowering introduces (the result of an `if` that asks, a `for` loop's state).
    Synthetic,
    /// `let state = cx.state::<T>();`: a lookup through the context, evaluated again in each
    /// block that uses it rather than kept.
    Derived,
}

impl BindingKind {
    /// Whether values of this kind cross blocks through slots (and are kept at suspensions);
    /// parameters and context lookups are rebuilt where they are used instead.
    pub(crate) fn is_kept(self) -> bool {
        !matches!(self, BindingKind::Param | BindingKind::Derived)
    }
}

/// One declared name.
pub(crate) struct Binding {
    pub(crate) ident: Ident,
    pub(crate) mutable: bool,
    pub(crate) kind: BindingKind,
    /// Visibly a borrow: `let x: &T = ..`, `let x = &..`, `ref x`.
    pub(crate) borrowed: bool,
    /// For a [`BindingKind::Derived`] binding, the expression that rebuilds it.
    pub(crate) rebuild: Option<proc_macro2::TokenStream>,
    /// For the value of a construct that asks under `let x: T = ..`, the type `T`: each arm's
    /// value is declared with it, so that it coerces as in the source.
    pub(crate) annotation: Option<proc_macro2::TokenStream>,
}

/// The lexical scopes the lowering walks through, innermost last.
#[derive(Default)]
pub(crate) struct Scopes {
    stack: Vec<Vec<(String, BindingId)>>,
}

impl Scopes {
    /// How many scopes are open (the parameters' and the body's at the body's top level).
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    pub(crate) fn push(&mut self) {
        self.stack.push(Vec::new());
    }

    pub(crate) fn pop(&mut self) {
        self.stack.pop();
    }

    pub(crate) fn declare(&mut self, name: String, id: BindingId) {
        if self.stack.is_empty() {
            self.push();
        }
        self.stack.last_mut().expect("a scope").push((name, id));
    }

    /// Which binding each name refers to here.
    pub(crate) fn visible(&self) -> Visible {
        self.stack
            .iter()
            .flatten()
            .map(|(name, id)| (name.clone(), *id))
            .collect()
    }

    /// The binding `name` refers to in the scopes enclosing the innermost one: what a
    /// declaration in the innermost scope hides until that scope ends.
    pub(crate) fn lookup_enclosing(&self, name: &str) -> Option<BindingId> {
        let enclosing = self.stack.len().saturating_sub(1);
        self.stack[..enclosing]
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|(bound, _)| bound == name)
            .map(|(_, id)| *id)
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<BindingId> {
        self.stack
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|(bound, _)| bound == name)
            .map(|(_, id)| *id)
    }
}

/// The names a pattern binds, with their mutability. A capitalised single name (`None`,
/// `MAX`, `Q`) binds where `capitalised_binds` says so: always in an irrefutable pattern
/// (`let N = 3;`; were it a unit struct, keeping and restoring it would still be right), and in
/// a refutable one when a local of that name is in scope (a `let` cannot shadow a constant or a
/// unit variant, so the name cannot be one).
pub(crate) fn pattern_bindings(
    pat: &Pat,
    capitalised_binds: &dyn Fn(&str) -> bool,
) -> Vec<(Ident, bool)> {
    struct Collect<'f>(Vec<(Ident, bool)>, &'f dyn Fn(&str) -> bool);
    impl<'ast> Visit<'ast> for Collect<'_> {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            let name = pat.ident.unraw().to_string();
            let capitalised = name.starts_with(|c: char| c.is_uppercase());
            if !capitalised || pat.subpat.is_some() || (self.1)(&name) {
                self.0.push((pat.ident.clone(), pat.mutability.is_some()));
            }
            if let Some((_, subpat)) = &pat.subpat {
                self.visit_pat(subpat);
            }
        }
        fn visit_pat_or(&mut self, pat: &'ast syn::PatOr) {
            // Every alternative binds the same names.
            if let Some(first) = pat.cases.first() {
                self.visit_pat(first);
            }
        }
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut collect = Collect(Vec::new(), capitalised_binds);
    collect.visit_pat(pat);
    collect.0
}

/// A binding read by a piece of code: through a path of named fields (`order.item.price`:
/// `[item, price]`), or whole (an empty path).
#[derive(Clone, Debug)]
pub(crate) struct Read {
    pub(crate) binding: BindingId,
    pub(crate) path: Vec<Ident>,
    /// Whether the read may move what it reads: not under `&`, a comparison, a formatting
    /// macro or a method known to borrow its receiver.
    pub(crate) moves: bool,
}

/// What [`Uses`] found in a piece of code.
#[derive(Default)]
pub(crate) struct Found {
    pub(crate) uses: BTreeSet<BindingId>,
    pub(crate) reads: Vec<Read>,
}

/// The bindings of the lowering's scopes that a piece of code uses, and its reads of them.
/// Names the code binds itself (inner `let`s, closure parameters, match arms, `for`
/// patterns) shadow the outer ones.
pub(crate) struct Uses<'s> {
    scopes: &'s Scopes,
    shadows: Vec<Vec<String>>,
    pub(crate) found: BTreeSet<BindingId>,
    pub(crate) reads: Vec<Read>,
    /// Whether the tokens being read are a formatting macro's arguments.
    formatting: bool,
}

impl<'s> Uses<'s> {
    pub(crate) fn new(scopes: &'s Scopes) -> Self {
        Self {
            scopes,
            shadows: Vec::new(),
            found: BTreeSet::new(),
            reads: Vec::new(),
            formatting: false,
        }
    }

    /// What the code used, and how it read it.
    pub(crate) fn finish(self) -> Found {
        Found {
            uses: self.found,
            reads: self.reads,
        }
    }

    fn shadowed(&self, name: &str) -> bool {
        self.shadows
            .iter()
            .any(|scope| scope.iter().any(|bound| bound == name))
    }

    fn name(&mut self, name: &str) {
        self.read(name, Vec::new(), true);
    }

    /// A read of `name` through `path`, if the name is a binding of the lowering's scopes.
    fn read(&mut self, name: &str, path: Vec<Ident>, moves: bool) {
        if !self.shadowed(name)
            && let Some(id) = self.scopes.lookup(name)
        {
            self.found.insert(id);
            self.reads.push(Read {
                binding: id,
                path,
                moves,
            });
        }
    }

    /// An expression that is only borrowed where it stands (`&e`, `e == ..`, a formatting
    /// argument, the receiver of a method that takes `&self`).
    fn visit_borrowed(&mut self, expr: &Expr) {
        match field_chain(expr) {
            Some((name, path)) => self.read(&name.to_string(), path, false),
            None => self.visit_expr(expr),
        }
    }

    fn bind(&mut self, pat: &Pat) {
        let scopes = self.scopes;
        let names = pattern_bindings(pat, &|name| scopes.lookup(name).is_some())
            .into_iter()
            .map(|(ident, _)| ident.to_string());
        match self.shadows.last_mut() {
            Some(scope) => scope.extend(names),
            None => self.shadows.push(names.collect()),
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.shadows.push(Vec::new());
        f(self);
        self.shadows.pop();
    }

    /// Identifiers and `{name}` captures in another macro's tokens; `name.a.b` reads a path.
    pub(crate) fn tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (index, token) in tokens.iter().enumerate() {
            match token {
                // `other.name`: a field, though it may name a binding too (counted as a use).
                TokenTree::Ident(ident)
                    if index > 0
                        && matches!(&tokens[index - 1], TokenTree::Punct(dot) if dot.as_char() == '.') =>
                {
                    let name = ident.to_string();
                    if !self.shadowed(&name)
                        && let Some(id) = self.scopes.lookup(&name)
                    {
                        self.found.insert(id);
                    }
                }
                TokenTree::Ident(ident) => {
                    let path = token_field_path(&tokens[index + 1..]);
                    let moves = !self.formatting;
                    self.read(&ident.to_string(), path, moves)
                }
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(literal) => {
                    let text = literal.to_string();
                    if text.starts_with('"') || text.starts_with('r') {
                        for capture in format_captures(&text) {
                            self.name(&capture);
                        }
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
}

/// The arguments of a standard macro that takes comma-separated expressions (`format!`,
/// `println!`, `assert_eq!`, `vec![a, b]`, ..), read as expressions: then `offer.id` is a
/// field and not a use of a binding `id`, which would keep it needlessly. `None` for any other
/// macro, whose tokens may mean anything: every name in them counts.
fn expression_arguments(mac: &syn::Macro) -> Option<Punctuated<Expr, syn::Token![,]>> {
    let segments = &mac.path.segments;
    let name = segments.last()?.ident.to_string();
    let std_path = match segments.len() {
        1 => true,
        2 => ["std", "core", "alloc"].contains(&segments[0].ident.to_string().as_str()),
        _ => false,
    };
    // The standard formatting macros, and two that take expressions too.
    let takes_expressions =
        STD_FORMATTING.contains(&name.as_str()) || name == "vec" || name == "dbg";
    if !std_path || !takes_expressions {
        return None;
    }
    mac.parse_body_with(Punctuated::parse_terminated).ok()
}

/// The names a format string literal (as written, quotes included) reads implicitly:
/// `{name}`, `{name:?}`, and the `width$` and `.prec$` arguments of a spec.
pub(crate) fn format_captures(literal: &str) -> Vec<String> {
    let is_name = |text: &str| {
        !text.is_empty()
            && text.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !text.starts_with(|c: char| c.is_ascii_digit())
    };
    let mut captures = Vec::new();
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(stripped) = rest.strip_prefix('{') {
            rest = stripped;
            continue;
        }
        let end = rest.find('}').unwrap_or(rest.len());
        let (argument, spec) = rest[..end].split_once(':').unwrap_or((&rest[..end], ""));
        if is_name(argument.trim()) {
            captures.push(argument.trim().to_owned());
        }
        // In the spec, a name is an argument where it ends in `$`.
        for piece in spec.split('$').rev().skip(1) {
            let name = piece
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if is_name(name) {
                captures.push(name.to_owned());
            }
        }
        rest = &rest[end..];
    }
    captures
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr_path(&mut self, path: &'ast ExprPath) {
        if path.qself.is_none()
            && path.path.leading_colon.is_none()
            && path.path.segments.len() == 1
        {
            let segment = &path.path.segments[0];
            if segment.arguments.is_none() {
                self.name(&segment.ident.to_string());
            }
        }
        visit::visit_expr_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        match expression_arguments(mac) {
            Some(arguments) => {
                for argument in &arguments {
                    if let Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(literal),
                        ..
                    }) = argument
                    {
                        for capture in format_captures(&literal.token().to_string()) {
                            self.name(&capture);
                        }
                    }
                    if formats_arguments(mac) {
                        self.visit_borrowed(argument);
                    } else {
                        self.visit_expr(argument);
                    }
                }
            }
            None => {
                let formatting = std::mem::replace(&mut self.formatting, formats_arguments(mac));
                self.tokens(mac.tokens.clone());
                self.formatting = formatting;
            }
        }
    }

    fn visit_expr_field(&mut self, field: &'ast syn::ExprField) {
        match field_chain_of(field) {
            Some((name, path)) => self.read(&name.to_string(), path, true),
            None => visit::visit_expr_field(self, field),
        }
    }

    fn visit_expr_reference(&mut self, reference: &'ast syn::ExprReference) {
        self.visit_borrowed(&reference.expr);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if borrows_receiver(&call.method) {
            self.visit_borrowed(&call.receiver);
        } else {
            self.visit_expr(&call.receiver);
        }
        if let Some(turbofish) = &call.turbofish {
            self.visit_angle_bracketed_generic_arguments(turbofish);
        }
        for argument in &call.args {
            self.visit_expr(argument);
        }
    }

    fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
        use syn::BinOp::{Eq, Ge, Gt, Le, Lt, Ne};
        if matches!(binary.op, Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_)) {
            self.visit_borrowed(&binary.left);
            self.visit_borrowed(&binary.right);
        } else {
            visit::visit_expr_binary(self, binary);
        }
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.scoped(|uses| visit::visit_block(uses, block));
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        self.bind(&local.pat);
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        self.scoped(|uses| {
            for input in &closure.inputs {
                uses.bind(input);
            }
            uses.visit_expr(&closure.body);
        });
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.scoped(|uses| {
            uses.bind(&arm.pat);
            if let Some((_, guard)) = &arm.guard {
                uses.visit_expr(guard);
            }
            uses.visit_expr(&arm.body);
        });
    }

    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        self.visit_expr(&for_loop.expr);
        self.scoped(|uses| {
            uses.bind(&for_loop.pat);
            uses.visit_block(&for_loop.body);
        });
    }

    fn visit_expr_if(&mut self, expr: &'ast syn::ExprIf) {
        self.scoped(|uses| {
            uses.visit_expr(&expr.cond);
            uses.visit_block(&expr.then_branch);
        });
        if let Some((_, otherwise)) = &expr.else_branch {
            self.visit_expr(otherwise);
        }
    }

    fn visit_expr_while(&mut self, expr: &'ast syn::ExprWhile) {
        self.scoped(|uses| {
            uses.visit_expr(&expr.cond);
            uses.visit_block(&expr.body);
        });
    }

    fn visit_expr_let(&mut self, expr: &'ast syn::ExprLet) {
        self.visit_expr(&expr.expr);
        self.bind(&expr.pat);
    }

    // Nested items cannot see the body's locals.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_format_captures() {
        assert_eq!(format_captures("\"{a} {{b}} {c:>8} {0} {}\""), ["a", "c"]);
        assert_eq!(
            format_captures("\"{:width$} {x:>w2$.prec$} {:.p$} {y:?}\""),
            ["width", "x", "prec", "w2", "p", "y"]
        );
    }

    #[test]
    fn inner_bindings_shadow_outer_ones() {
        let mut scopes = Scopes::default();
        for (id, name) in ["x", "y", "z"].into_iter().enumerate() {
            scopes.declare(name.to_owned(), id);
        }
        let expr: Expr = syn::parse_quote!({
            let y = 1;
            items.iter().map(|x| x + y).count()
                + match q {
                    Some(z) => z,
                    None => 0,
                }
                + println!("{x}")
        });
        let mut uses = Uses::new(&scopes);
        uses.visit_expr(&expr);
        assert_eq!(
            uses.found,
            BTreeSet::from([0]),
            "only the format capture of x is an outer use"
        );
    }

    #[test]
    fn fields_and_methods_in_standard_macros_are_not_uses_but_other_macros_are_opaque() {
        let mut scopes = Scopes::default();
        for (id, name) in ["id", "price", "offer", "trip"].into_iter().enumerate() {
            scopes.declare(name.to_owned(), id);
        }
        let found = |expr: Expr| {
            let mut uses = Uses::new(&scopes);
            uses.visit_expr(&expr);
            uses.found
        };
        assert_eq!(
            found(syn::parse_quote!(format!("{} to {}", offer.id, trip.to))),
            BTreeSet::from([2, 3])
        );
        assert_eq!(
            found(syn::parse_quote!(println!("{price} {}", offer.id.len()))),
            BTreeSet::from([1, 2]),
            "the implicit capture counts"
        );
        assert_eq!(
            found(syn::parse_quote!(std::vec![id; 3])),
            BTreeSet::from([0]),
            "`vec![x; n]` is not a list of expressions: read as tokens"
        );
        assert_eq!(
            found(syn::parse_quote!(my_macro!(offer.id))),
            BTreeSet::from([0, 2]),
            "another macro's tokens may use any name"
        );
    }

    #[test]
    fn reads_follow_named_fields_and_say_whether_they_may_move() {
        let mut scopes = Scopes::default();
        for (id, name) in ["p", "q"].into_iter().enumerate() {
            scopes.declare(name.to_owned(), id);
        }
        let reads = |expr: Expr| {
            let mut uses = Uses::new(&scopes);
            uses.visit_expr(&expr);
            uses.finish()
                .reads
                .iter()
                .map(|read| {
                    let path: Vec<String> = read.path.iter().map(ToString::to_string).collect();
                    (read.binding, path.join("."), read.moves)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            reads(syn::parse_quote!(eat(p.customer.name) + p.id.len() + q.0)),
            [
                (0, "customer.name".to_owned(), true),
                (0, "id".to_owned(), false),
                (1, String::new(), true)
            ],
            "a tuple field reads the value whole"
        );
        assert_eq!(
            reads(syn::parse_quote!({
                let n = &p.name;
                for p in [n.len()] {
                    p.count;
                }
                match q.n {
                    p => p.x,
                }
            })),
            [(0, "name".to_owned(), false), (1, "n".to_owned(), true)],
            "`for` and `match` patterns hide the name"
        );
        assert_eq!(
            reads(syn::parse_quote!(
                format!("{}", p.name) + &info!("{}", q.a.b)
            )),
            [(0, "name".to_owned(), false), (1, "a.b".to_owned(), false)],
            "formatting macros only borrow"
        );
    }

    #[test]
    fn capitalised_names_are_not_bindings() {
        let pat: Pat = syn::parse_quote!((Some(a), None, mut b, MAX, ref c @ Foo { d, .. }));
        let names: Vec<String> = pattern_bindings(&pat, &|_| false)
            .iter()
            .map(|(ident, _)| ident.to_string())
            .collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        let pat: Pat = syn::parse_quote!(N);
        assert_eq!(
            pattern_bindings(&pat, &|_| true).len(),
            1,
            "`let N = 3;` binds N"
        );
    }
}
