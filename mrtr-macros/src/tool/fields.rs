//! Values kept field by field. `let name = person.name; ask!(..); person.email` is valid Rust:
//! `person` is partly moved, and only `email` is read later. Such a value cannot go into its
//! slot whole, so when every use of a binding reads a named field, the fields read after the
//! first place the machine may put it away travel in slots of their own, and the blocks that
//! take it back rebuild a struct with just those fields. Fields of fields work the same way
//! (`order.item.name` moved, `order.item.price` read later): each path read later is a slot,
//! and the rebuilt struct nests one struct per field that is itself split. Where other
//! bindings share the value's name, each piece of code is matched to the value by the names
//! the lowering resolved in it, not by the identifier.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proc_macro2::{Delimiter, Ident, TokenStream, TokenTree};
use quote::ToTokens;

use super::ir::{Branch, BranchShape, Code, Node, Program};
use super::scope::{BindingId, BindingKind, format_captures};

/// A field read through a binding: `person.email` is `[email]`, `order.item.price` is
/// `[item, price]`.
pub(crate) type FieldPath = Vec<Ident>;

/// For each crossing binding kept field by field, the paths it keeps (in source order; none is
/// a prefix of another).
pub(crate) fn kept_by_field(
    program: &Program,
    crossing: &BTreeSet<BindingId>,
) -> HashMap<BindingId, Vec<FieldPath>> {
    crossing
        .iter()
        .filter_map(|id| Some((*id, fields_of(program, *id)?)))
        .collect()
}

fn fields_of(program: &Program, id: BindingId) -> Option<Vec<FieldPath>> {
    let binding = &program.bindings[id];
    let name = binding.ident.to_string();
    if binding.kind != BindingKind::Local || name.starts_with("r#") {
        return None;
    }
    let namesakes = (0..program.bindings.len())
        .filter(|other| *other != id && program.bindings[*other].ident == binding.ident)
        .collect();
    let mut scan = Scan {
        program,
        id,
        name,
        namesakes,
        counting: false,
        read_early: false,
        borrowed: false,
        fields: BTreeMap::new(),
    };
    for block in &program.blocks {
        // In the block that declares it, the fields read before the machine could first put
        // it away may be moved out; the others are needed later.
        scan.counting = !block.declared.contains(&id);
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
    name: String,
    /// The body's other bindings of the same name. Where there are some, a piece of code
    /// speaks of this binding only if the lowering resolved one of its names to it.
    namesakes: BTreeSet<BindingId>,
    /// Whether the fields read here are needed after a slot.
    counting: bool,
    /// Whether a field may be moved out before the value's first slot.
    read_early: bool,
    /// Whether the tokens being scanned are a formatting macro's arguments.
    borrowed: bool,
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
            Node::Stmt(code) | Node::Tail(code) => self.code(code),
            Node::Let {
                pat,
                init,
                diverge,
                declares,
                ..
            } => {
                if !declares.contains(&self.id) && !self.declares_a_namesake(declares) {
                    self.tokens(pat.clone())?;
                }
                self.code(init)?;
                if let Some(diverge) = diverge {
                    self.code(diverge)?;
                }
                // Where the binding is declared (in an arm, say), its fields may be moved out
                // again until the machine may next put it away.
                if declares.contains(&self.id) {
                    self.counting = false;
                }
                Some(())
            }
            Node::Jump { .. } => Some(()),
            Node::Suspend { site, .. } => {
                let site = &self.program.sites[*site];
                if !self.speaks_of_it(&site.uses)? {
                    return Some(());
                }
                for (_, _, request) in &site.questions {
                    self.tokens(request.to_token_stream())?;
                }
                Some(())
            }
            Node::Branch(branch) => self.branch(branch),
        }
    }

    fn branch(&mut self, branch: &Branch) -> Option<()> {
        match &branch.shape {
            BranchShape::If { pattern, cond } => {
                if let Some(pattern) = pattern
                    && !self.declares_a_namesake(&branch.arms[0].declares)
                {
                    self.tokens(pattern.clone())?;
                }
                self.code(cond)?
            }
            BranchShape::Match { scrutinee, heads } => {
                self.code(scrutinee)?;
                for head in heads {
                    self.code(head)?;
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

    fn code(&mut self, code: &Code) -> Option<()> {
        if !self.speaks_of_it(&code.uses)? {
            return Some(());
        }
        for hole in &code.holes {
            if let Some((_, Some(value))) = &self.program.holes[*hole].value {
                self.tokens(value.clone())?;
            }
        }
        self.tokens(code.tokens.clone())
    }

    /// Whether code that uses `uses` may name this binding: always when no other binding has
    /// its name; otherwise only if the lowering resolved a name of the code to it, and `None`
    /// (kept whole) if the code names another binding of that name too.
    fn speaks_of_it(&self, uses: &BTreeSet<BindingId>) -> Option<bool> {
        if self.namesakes.is_empty() {
            return Some(true);
        }
        if !uses.contains(&self.id) {
            return Some(false);
        }
        uses.is_disjoint(&self.namesakes).then_some(true)
    }

    /// Whether a pattern declaring `declares` declares another binding of this name.
    fn declares_a_namesake(&self, declares: &[BindingId]) -> bool {
        declares.iter().any(|id| self.namesakes.contains(id))
    }

    fn tokens(&mut self, tokens: TokenStream) -> Option<()> {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut skip_until = 0;
        for (index, token) in tokens.iter().enumerate() {
            if index < skip_until {
                continue;
            }
            // A closure whose parameters re-bind the name: its body is another binding's.
            if let Some(end) = closure_hiding(&tokens, index, &self.name) {
                skip_until = end;
                continue;
            }
            // A `let` of the name in code kept as written: its initializer may read this
            // binding, the rest of the block reads the new one.
            if let Some((init, end)) = let_hiding(&tokens, index, &self.name) {
                if !starts_statement(&tokens, index) {
                    // `if let`, `while let`, a let chain: the new binding's scope is not the
                    // rest of this block.
                    return None;
                }
                let init: TokenStream = tokens[init..end].iter().cloned().collect();
                return self.tokens(init);
            }
            match token {
                TokenTree::Group(group) => {
                    // The arguments of a formatting macro are only borrowed.
                    let borrowed = self.borrowed;
                    self.borrowed |= formatting_macro(&tokens[..index]);
                    let scanned = self.tokens(group.stream());
                    self.borrowed = borrowed;
                    scanned?
                }
                TokenTree::Literal(literal)
                    if format_captures(&literal.to_string()).contains(&self.name) =>
                {
                    return None;
                }
                TokenTree::Ident(ident) if *ident == self.name => {
                    let before = index.checked_sub(1).map(|index| &tokens[index]);
                    // `other.name` and `path::name` are not this binding, nor is `name!(..)`.
                    if is_punct(before, '.')
                        || is_punct(before, ':')
                        || is_punct(tokens.get(index + 1), '!')
                    {
                        continue;
                    }
                    let path = field_path(&tokens[index + 1..])?;
                    let moved = !self.borrowed
                        && !is_punct(before, '&')
                        && !borrows_field(&tokens[index + 1 + 2 * path.len()..]);
                    self.read_early |= !self.counting && moved;
                    if self.counting {
                        let order = self.fields.len();
                        let key = path
                            .iter()
                            .map(Ident::to_string)
                            .collect::<Vec<_>>()
                            .join(".");
                        self.fields.entry(key).or_insert((order, path));
                    }
                }
                _ => {}
            }
        }
        Some(())
    }
}

/// Where the body of the closure starting at `tokens[start]` ends, if its parameters bind
/// `name` (`|p| p.len()`, `move |(p, q)| ..`): the braced body, or the tokens up to the next
/// `,` or `;` of this level.
fn closure_hiding(tokens: &[TokenTree], start: usize, name: &str) -> Option<usize> {
    if !is_punct(tokens.get(start), '|') {
        return None;
    }
    // After an operand, `|` is a binary or (or a pattern's alternative).
    let operand = match start.checked_sub(1).map(|before| &tokens[before]) {
        Some(TokenTree::Ident(ident)) => ident != "move" && ident != "return",
        Some(TokenTree::Literal(_) | TokenTree::Group(_)) => true,
        Some(TokenTree::Punct(_)) | None => false,
    };
    if operand {
        return None;
    }
    let close = start
        + 1
        + tokens[start + 1..]
            .iter()
            .position(|token| is_punct(Some(token), '|'))?;
    let binds = tokens[start + 1..close]
        .iter()
        .any(|token| mentions(token, name));
    if !binds {
        return None;
    }
    let body = close + 1;
    match tokens.get(body) {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => Some(body + 1),
        _ => Some(
            body + tokens[body..]
                .iter()
                .position(|token| is_punct(Some(token), ',') || is_punct(Some(token), ';'))
                .unwrap_or(tokens.len() - body),
        ),
    }
}

/// Where the initializer of the `let` starting at `tokens[start]` begins and its statement
/// ends, if its pattern binds `name` (`let name = ..;`, `let (name, x): T = ..;`).
fn let_hiding(tokens: &[TokenTree], start: usize, name: &str) -> Option<(usize, usize)> {
    if !matches!(&tokens[start], TokenTree::Ident(ident) if ident == "let") {
        return None;
    }
    let is_assign = |token: &TokenTree| matches!(token, TokenTree::Punct(punct) if punct.as_char() == '=' && punct.spacing() == proc_macro2::Spacing::Alone);
    let pattern_end = start + tokens[start..].iter().position(is_assign)?;
    if !tokens[start + 1..pattern_end]
        .iter()
        .any(|token| mentions(token, name))
    {
        return None;
    }
    let end = tokens[pattern_end..]
        .iter()
        .position(|token| is_punct(Some(token), ';'))
        .map_or(tokens.len(), |offset| pattern_end + offset);
    Some((pattern_end + 1, end))
}

/// Whether `tokens[index]` starts a statement: it follows the start of the block, a `;` or a
/// block-like statement (`}`), past its attributes.
fn starts_statement(tokens: &[TokenTree], mut index: usize) -> bool {
    let is_attribute = |index: usize| {
        index >= 2
            && is_punct(tokens.get(index - 2), '#')
            && matches!(&tokens[index - 1], TokenTree::Group(group) if group.delimiter() == Delimiter::Bracket)
    };
    while is_attribute(index) {
        index -= 2;
    }
    match index.checked_sub(1).map(|before| &tokens[before]) {
        None => true,
        Some(TokenTree::Group(group)) => group.delimiter() == Delimiter::Brace,
        before => is_punct(before, ';'),
    }
}

fn mentions(token: &TokenTree, name: &str) -> bool {
    match token {
        TokenTree::Ident(ident) => ident == name,
        TokenTree::Group(group) => group
            .stream()
            .into_iter()
            .any(|token| mentions(&token, name)),
        _ => false,
    }
}

/// The fields in `.item.price` at the start of `after`, as far as they are field reads; `None`
/// if the first is not one (`.0`, a method call, `.await` or a range).
fn field_path(after: &[TokenTree]) -> Option<FieldPath> {
    let mut path = Vec::new();
    let mut rest = after;
    while let Some(field) = named_field(rest) {
        path.push(field.clone());
        rest = &rest[2..];
    }
    (!path.is_empty()).then_some(path)
}

/// The field in `.field` at the start of `after`, if that is a field read.
fn named_field(after: &[TokenTree]) -> Option<&Ident> {
    let [TokenTree::Punct(dot), TokenTree::Ident(field), rest @ ..] = after else {
        return None;
    };
    if dot.as_char() != '.' || dot.spacing() == proc_macro2::Spacing::Joint || field == "await" {
        return None;
    }
    let call = matches!(rest.first(), Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis)
        || is_punct(rest.first(), ':');
    (!call).then_some(field)
}

fn is_punct(token: Option<&TokenTree>, char: char) -> bool {
    matches!(token, Some(TokenTree::Punct(punct)) if punct.as_char() == char)
}

/// Whether what follows a field read (`person.name` then `after`) only borrows the field: a
/// comparison, or a method known to take `&self`. Any other method may take the field by
/// value, so it counts as a move.
fn borrows_field(after: &[TokenTree]) -> bool {
    const BY_REFERENCE: &[&str] = &[
        "as_deref",
        "as_ref",
        "as_slice",
        "as_str",
        "borrow",
        "clone",
        "contains",
        "ends_with",
        "first",
        "get",
        "is_empty",
        "is_none",
        "is_some",
        "iter",
        "keys",
        "last",
        "len",
        "starts_with",
        "to_owned",
        "to_string",
        "to_vec",
        "values",
    ];
    match after {
        [TokenTree::Punct(first), TokenTree::Punct(second), ..]
            if matches!((first.as_char(), second.as_char()), ('=', '=') | ('!', '=')) =>
        {
            true
        }
        [
            TokenTree::Punct(dot),
            TokenTree::Ident(method),
            TokenTree::Group(arguments),
            ..,
        ] => {
            dot.as_char() == '.'
                && arguments.delimiter() == Delimiter::Parenthesis
                && BY_REFERENCE.iter().any(|known| method == known)
        }
        _ => false,
    }
}

/// Whether `before` ends with the name and `!` of a standard formatting macro, whose
/// arguments it only borrows.
fn formatting_macro(before: &[TokenTree]) -> bool {
    const FORMATTING: &[&str] = &[
        "format",
        "print",
        "println",
        "eprint",
        "eprintln",
        "write",
        "writeln",
        "panic",
        "format_args",
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "trace",
        "debug",
        "info",
        "warn",
        "error",
    ];
    match before {
        [.., TokenTree::Ident(name), TokenTree::Punct(bang)] => {
            bang.as_char() == '!' && FORMATTING.iter().any(|known| name == known)
        }
        _ => false,
    }
}
