//! Random tool bodies for the differential test, type-correct by construction.
//!
//! Shared by `build.rs` (which emits every body twice, see `emit_cases`). Deterministic from
//! its seed on every platform: a splitmix64 PRNG, no hashing of pointers, no floats.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Every grammar feature, with whether the default run generates it.
///
/// Every feature is on by default but those of `OPEN_FINDINGS`: the lowering handles the
/// others (see FINDINGS.md for what the tester found on the way).
pub const FEATURES: &[(&str, bool, &str)] = &[
    ("if", true, "if / else, value-producing if, if let"),
    (
        "match",
        true,
        "match with binding patterns, value-producing match",
    ),
    ("loop", true, "loop with a counter guard"),
    (
        "while",
        true,
        "while with a counter, or with an ask in the condition",
    ),
    ("while_let", true, "while let over a popped Vec or an ask"),
    ("for_range", true, "for over a bounded range"),
    ("for_vec", true, "for over a Vec (of i64 or of structs)"),
    (
        "labels",
        true,
        "labelled loops, labelled break/continue to an outer loop",
    ),
    (
        "label_block",
        true,
        "labelled blocks without asks, break with a value",
    ),
    (
        "break_value",
        true,
        "value-producing loops: let r = loop { .. break v }",
    ),
    ("continue", true, "continue (plain and labelled)"),
    ("block", true, "plain { } blocks, value-producing blocks"),
    (
        "shadow_same",
        true,
        "a name re-bound in the same scope (let x = ..; let x = ..;)",
    ),
    (
        "shadow_inner",
        true,
        "a name re-bound in an inner scope: a block, an arm, a pattern, a loop body",
    ),
    ("return", true, "early return of Ok and Err"),
    ("try", true, "? on a helper's Result away from asks"),
    ("let_else", true, "let .. else { diverge }"),
    (
        "null_values",
        true,
        "kept values that serialize to JSON null: None, (), unit struct, NaN, inf",
    ),
    (
        "awkward",
        true,
        "u64::MAX, i128 beyond 64 bits, -0.0, char, nested enums, Vec of structs",
    ),
    ("i128", true, "i128 values beyond the 64-bit range"),
    ("inference", true, "lets without type annotations"),
    (
        "inline_capture",
        true,
        "format!(\"{x:?}\") captures in traces",
    ),
    (
        "width_capture",
        true,
        "format!(\"{:>w$?}\", ..) width captured from a local",
    ),
    ("caps", true, "capitalised local names"),
    (
        "items",
        true,
        "use/const items at the top of the body, used after asks",
    ),
    (
        "diverge",
        true,
        "value-producing arms that end in return/continue/break",
    ),
    ("batch", true, "let (a, b) = ask!(a = .., b = ..)"),
    ("recheck", true, "ask!(recheck()) state-only rounds"),
    (
        "ask_cond",
        true,
        "ask! in if / while conditions (incl. if let / while let)",
    ),
    ("ask_scrutinee", true, "ask! as a match scrutinee"),
    (
        "ask_receiver",
        true,
        "ask! as a method receiver (.is_accepted(), .ok().map(..))",
    ),
    ("ask_try", true, "ask!(..).accepted()? and check(ask!(..))?"),
    ("ask_stmt", true, "ask! as a statement"),
    (
        "ask_nested",
        true,
        "ask! as the first element of a tuple or the first argument of Some(..)",
    ),
    ("ask_assign", true, "x = ask!(..)..., x ^= ask!(..)..."),
    (
        "marked_some",
        true,
        "Some of what encodes as null: Some(None), Some(Marker), Some(())",
    ),
    (
        "static_str",
        true,
        "&'static str string literals kept across asks",
    ),
    (
        "user_types",
        true,
        "locals of three user types kept across asks: `Map` (a BTreeMap<String, i64>), `Guard` \
         (a struct with its own Drop) and `Pair`, read in numbers (a fold of the map's values, \
         `.n`); with `moves`, also moved whole, and `let w = p.name;` moves a Pair's String \
         field out while `p.n` is still read",
    ),
    (
        "nested_fields",
        true,
        "with `user_types`, locals of a nested struct `Order { customer: Pair, id: i64 }` kept \
         across asks and read in numbers (`o.id`, `o.customer.n`); with `moves`, also moved \
         whole and moved out of in part, a field of a field (`let w = o.customer.name;`) or the \
         inner struct (`let c = o.customer;`), the fields still owned read after, across an ask",
    ),
    (
        "spent_range",
        true,
        "for over an inclusive range already advanced (or exhausted) by next()",
    ),
    (
        "user_macro",
        true,
        "a macro_rules! of the body, called in expressions and as a statement",
    ),
    ("stmt_attr", true, "lint attributes on statements that ask"),
    (
        "closure_shadow",
        true,
        "closures whose parameter is named like a visible local",
    ),
    (
        "moves",
        true,
        "non-Copy locals read by move (let w = v;, eat(v), for over v), some assigned again",
    ),
    (
        "moved_ask_assign",
        true,
        "v = ask!(..) into a moved-out-of v (with moves; FINDINGS.md 13)",
    ),
    (
        "moved_assign_after_ask",
        true,
        "v = .. into a moved-out-of v with an ask since the move (FINDINGS.md 15)",
    ),
    (
        "ask_positions",
        true,
        "ask! as an arm's value, a block's tail, in return Ok(..), after += / -=, in an if let or while let chain",
    ),
    (
        "borrows",
        true,
        "borrows of a non-Copy local (`&v`, `v.first()`, `v.iter().max()`, `&v[..]`, `m.get(..)`, \
         `&p.name`), read after an `if` or `match` whose arms that ask all diverge after their \
         ask (as a statement, or as the value of `let x = if ..`), or read before the next ask; \
         and in expressions (`v.iter().max().copied()..`, `{ let r = &v; r.len() as i64 }`)",
    ),
    (
        "borrow_hidden",
        false,
        "with `borrows`, an arm of such a construct that goes on after it re-binds the \
         borrowed local's name (refused by design, E0505: FINDINGS.md 17)",
    ),
];

/// Features that generate a shape refused by design with rustc's error, or of an open finding
/// (FINDINGS.md): `all` leaves them out,
/// `+name` turns one on.
pub const OPEN_FINDINGS: &[&str] = &["borrow_hidden"];

/// A `match` arm's pattern, and the binding it introduces with its type.
type MatchArm = (String, Option<(String, Ty)>);

/// The enabled grammar features.
#[derive(Clone, Debug)]
pub struct Features(BTreeSet<String>);

impl Features {
    /// The default set, adjusted by a spec: `all`, `default`, `none`, then `+name`/`-name`
    /// (or bare `name` = `+name`), comma separated.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut set: BTreeSet<String> = FEATURES
            .iter()
            .filter(|(_, on, _)| *on)
            .map(|(name, _, _)| (*name).to_owned())
            .collect();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                // Every feature but those that reproduce an open finding: name them.
                "all" => {
                    set = FEATURES
                        .iter()
                        .map(|(n, _, _)| (*n).to_owned())
                        .filter(|n| !OPEN_FINDINGS.contains(&n.as_str()))
                        .collect();
                }
                "none" => set.clear(),
                "default" => {}
                _ => {
                    let (add, name) = match part.as_bytes()[0] {
                        b'+' => (true, &part[1..]),
                        b'-' => (false, &part[1..]),
                        _ => (true, part),
                    };
                    if !FEATURES.iter().any(|(n, _, _)| *n == name) {
                        return Err(format!("unknown differential feature `{name}`"));
                    }
                    if add {
                        set.insert(name.to_owned());
                    } else {
                        set.remove(name);
                    }
                }
            }
        }
        Ok(Self(set))
    }

    /// Whether `name` is enabled.
    pub fn on(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// The enabled names, comma separated.
    pub fn list(&self) -> String {
        self.0.iter().cloned().collect::<Vec<_>>().join(",")
    }
}

/// splitmix64: small, fast and the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// An `i64` in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The types of generated values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `i64`
    I64,
    /// `bool`
    Bool,
    /// `String`
    Str,
    /// `f64`
    F64,
    /// `u64`
    U64,
    /// `i128`
    I128,
    /// `char`
    Char,
    /// `Option<i64>`
    OptI64,
    /// `()`
    Unit,
    /// the unit struct `Marker`
    Marker,
    /// the nested enum `Outer`
    Outer,
    /// `Vec<Item>`
    Items,
    /// `Vec<i64>`
    VecI64,
    /// `Answer<N>`
    AnsN,
    /// `Answer<C>`
    AnsC,
    /// `Option<Option<i64>>`
    OptOpt,
    /// `Option<Marker>`
    OptMarker,
    /// `Option<()>`
    OptUnit,
    /// `&'static str`
    StaticStr,
    /// `Map`, a `BTreeMap<String, i64>`
    Map,
    /// `Guard`, a struct with its own `Drop`
    Guard,
    /// `Pair`, a struct whose `name` may be moved out
    Pair,
    /// `Order`, a struct holding a `Pair` (`nested_fields`): `customer.name` or `customer`
    /// may be moved out
    Order,
}

impl Ty {
    fn rust(self) -> &'static str {
        match self {
            Ty::I64 => "i64",
            Ty::Bool => "bool",
            Ty::Str => "String",
            Ty::F64 => "f64",
            Ty::U64 => "u64",
            Ty::I128 => "i128",
            Ty::Char => "char",
            Ty::OptI64 => "Option<i64>",
            Ty::Unit => "()",
            Ty::Marker => "Marker",
            Ty::Outer => "Outer",
            Ty::Items => "Vec<Item>",
            Ty::VecI64 => "Vec<i64>",
            Ty::AnsN => "Answer<N>",
            Ty::AnsC => "Answer<C>",
            Ty::OptOpt => "Option<Option<i64>>",
            Ty::OptMarker => "Option<Marker>",
            Ty::OptUnit => "Option<()>",
            Ty::StaticStr => "&'static str",
            Ty::Map => "Map",
            Ty::Guard => "Guard",
            Ty::Pair => "Pair",
            Ty::Order => "Order",
        }
    }

    /// `: T` for a `let` whose value a construct produces. A `&'static str` goes without:
    /// a `let` annotated with a reference type is kept only when its value is a literal.
    fn annotation(self) -> String {
        match self {
            Ty::StaticStr => String::new(),
            ty => format!(": {}", ty.rust()),
        }
    }

    fn copy(self) -> bool {
        !matches!(
            self,
            Ty::Str
                | Ty::Outer
                | Ty::Items
                | Ty::VecI64
                | Ty::AnsN
                | Ty::AnsC
                | Ty::Map
                | Ty::Guard
                | Ty::Pair
                | Ty::Order
        )
    }
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    /// Moved out of (`moves`): not readable until assigned again; its name still hides outer
    /// bindings.
    moved: bool,
    /// The number of asks written before the move (see `revivable`).
    moved_at: u32,
    /// Moved out of in part (`let w = p.name;`, `let w = o.customer.name;`, `let c =
    /// o.customer;`): the paths of the `i64` fields still owned, all that may be read. A partly
    /// moved local is `moved`: never used whole again (read, moved, borrowed, formatted) until
    /// it is assigned again.
    remaining: Option<&'static [&'static str]>,
}

#[derive(Clone, Debug)]
struct LoopCtx {
    label: Option<String>,
    /// The type a `break` must carry (a value-producing `loop` or labelled block).
    value: Option<Ty>,
    /// A labelled block: only a labelled `break` reaches it, and no `continue`.
    block: bool,
    /// The index in `scopes` of the loop's body (its pattern's bindings included).
    body: usize,
}

/// Generates one body.
pub struct Gen<'f> {
    rng: Rng,
    f: &'f Features,
    scopes: Vec<Vec<Var>>,
    loops: Vec<LoopCtx>,
    out: String,
    indent: usize,
    site: u32,
    id: u32,
    fresh: u32,
    depth: u32,
    /// The number of `ask!`s in the body (rounds are bounded separately).
    pub asks: u32,
    /// Names no new binding may take: locals borrowed across the quiet arm being written
    /// (`borrows` without `borrow_hidden`).
    no_hide: Vec<String>,
}

const POOL: &[&str] = &["a", "b", "x", "y", "v"];

impl<'f> Gen<'f> {
    /// A generator for one body.
    pub fn new(seed: u64, features: &'f Features) -> Self {
        Self {
            rng: Rng::new(seed),
            f: features,
            scopes: vec![Vec::new()],
            loops: Vec::new(),
            out: String::new(),
            indent: 1,
            site: 0,
            id: 0,
            fresh: 0,
            depth: 0,
            asks: 0,
            no_hide: Vec::new(),
        }
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn open(&mut self, text: &str) {
        self.line(text);
        self.indent += 1;
        self.scopes.push(Vec::new());
    }

    fn close(&mut self, text: &str) {
        self.indent -= 1;
        self.scopes.pop();
        self.line(text);
    }

    fn next_id(&mut self) -> u32 {
        self.id += 1;
        self.id
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    // ------------------------------------------------------------ scope

    fn visible(&self) -> Vec<Var> {
        let mut seen = BTreeSet::new();
        let mut vars = Vec::new();
        for scope in self.scopes.iter().rev() {
            for var in scope.iter().rev() {
                if seen.insert(var.name.clone()) && !var.moved {
                    vars.push(var.clone());
                }
            }
        }
        vars
    }

    fn vars_of(&self, ty: Ty) -> Vec<Var> {
        self.visible().into_iter().filter(|v| v.ty == ty).collect()
    }

    fn declare(&mut self, name: &str, ty: Ty, mutable: bool) {
        self.scopes.last_mut().expect("a scope").push(Var {
            name: name.to_owned(),
            ty,
            mutable,
            moved: false,
            moved_at: 0,
            remaining: None,
        });
    }

    /// The innermost bindings of the current scope (a move out of an outer scope could be in
    /// a loop, or in one branch only) that are not `Copy` and may be moved out of (`moves`).
    fn movable(&self, ty: Option<Ty>) -> Vec<Var> {
        let Some(scope) = self.scopes.last() else {
            return Vec::new();
        };
        let mut seen = BTreeSet::new();
        scope
            .iter()
            .rev()
            .filter(|var| seen.insert(var.name.clone()))
            .filter(|var| !var.moved && !var.ty.copy() && ty.is_none_or(|ty| var.ty == ty))
            .cloned()
            .collect()
    }

    /// The moved-out-of mutable bindings of the current scope that no later binding of the
    /// scope hides: `v = ..` makes them readable again.
    ///
    /// One with an ask written since its move only with `moved_assign_after_ask` (the machine
    /// failed to compile that shape: FINDINGS.md, finding 15).
    fn revivable(&self) -> Vec<Var> {
        let Some(scope) = self.scopes.last() else {
            return Vec::new();
        };
        let after_ask_ok = self.f.on("moved_assign_after_ask");
        let mut seen = BTreeSet::new();
        scope
            .iter()
            .rev()
            .filter(|var| seen.insert(var.name.clone()))
            .filter(|var| var.moved && var.mutable)
            .filter(|var| after_ask_ok || var.moved_at == self.asks)
            .cloned()
            .collect()
    }

    /// Marks the innermost binding of the current scope named `name` as moved out of (or,
    /// with `moved` false, readable again).
    fn set_moved(&mut self, name: &str, moved: bool) {
        let scope = self.scopes.last_mut().expect("a scope");
        if let Some(var) = scope.iter_mut().rev().find(|var| var.name == name) {
            var.moved = moved;
            var.moved_at = self.asks;
            var.remaining = None;
        }
    }

    /// A name for a new binding: often a reused name from a small pool. Reusing one that is
    /// visible in the current scope needs `shadow_same`, one visible from an outer scope needs
    /// `shadow_inner` (`inner`: the binding is a pattern of an arm or loop, whose scope is
    /// not open yet); names of sibling scopes are always reused.
    fn name_for(&mut self, inner: bool) -> String {
        if self.rng.chance(80) {
            // Capitalised names bind in `let`s; in a pattern, mrtr takes them for constants
            // (the README's rule), as Rust's naming convention does.
            let name = if self.f.on("caps") && !inner && self.rng.chance(10) {
                "Q".to_owned()
            } else {
                (*self.rng.pick(POOL)).to_owned()
            };
            let current = !inner
                && self
                    .scopes
                    .last()
                    .is_some_and(|scope| scope.iter().any(|v| v.name == name));
            let visible = self.visible().iter().any(|v| v.name == name);
            let allowed = if self.no_hide.contains(&name) {
                false
            } else if current {
                self.f.on("shadow_same")
            } else if visible {
                self.f.on("shadow_inner")
            } else {
                true
            };
            if allowed {
                return name;
            }
        }
        let name = self.fresh_name("n");
        if self.f.on("caps") && !inner && self.rng.chance(10) {
            return name.to_uppercase();
        }
        name
    }

    fn name_for_binding(&mut self) -> String {
        self.name_for(false)
    }

    fn name_for_pattern(&mut self) -> String {
        self.name_for(true)
    }

    fn read(&self, var: &Var) -> String {
        if var.ty.copy() {
            var.name.clone()
        } else {
            format!("{}.clone()", var.name)
        }
    }

    // ------------------------------------------------------------ types and expressions

    fn value_types(&self) -> Vec<Ty> {
        let mut tys = vec![Ty::I64, Ty::I64, Ty::Bool, Ty::Str, Ty::OptI64, Ty::VecI64];
        if self.f.on("awkward") {
            tys.extend([Ty::F64, Ty::U64, Ty::Char, Ty::Outer, Ty::Items]);
        }
        if self.f.on("i128") {
            tys.push(Ty::I128);
        }
        if self.f.on("null_values") {
            tys.extend([Ty::Unit, Ty::Marker, Ty::F64]);
        }
        if self.f.on("marked_some") {
            tys.extend([Ty::OptOpt, Ty::OptMarker, Ty::OptUnit]);
        }
        if self.f.on("static_str") {
            tys.push(Ty::StaticStr);
        }
        if self.f.on("user_types") {
            tys.extend([Ty::Map, Ty::Guard, Ty::Pair]);
            if self.f.on("nested_fields") {
                tys.push(Ty::Order);
            }
        }
        tys
    }

    fn random_ty(&mut self) -> Ty {
        let tys = self.value_types();
        *self.rng.pick(&tys)
    }

    /// A number read through a visible map, `Guard`, `Pair` or `Order` without moving it, or
    /// through a field a partly moved `Pair` or `Order` still owns.
    fn user_type_number(&mut self) -> Option<String> {
        let mut seen = BTreeSet::new();
        let mut reads = Vec::new();
        // Only the innermost binding of a name is in force, moved out of or not.
        for var in self
            .scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
        {
            if !seen.insert(var.name.clone()) {
                continue;
            }
            match (var.ty, var.moved, var.remaining) {
                (Ty::Map, false, _) => reads.push(format!(
                    "{}.values().copied().fold(0i64, i64::wrapping_add)",
                    var.name
                )),
                (Ty::Guard | Ty::Pair, false, _) => reads.push(format!("{}.n", var.name)),
                (Ty::Order, false, _) => {
                    reads.push(format!("{}.id", var.name));
                    reads.push(format!("{}.customer.n", var.name));
                }
                (Ty::Pair | Ty::Order, true, Some(fields)) => {
                    reads.extend(fields.iter().map(|field| format!("{}.{field}", var.name)));
                }
                _ => {}
            }
        }
        (!reads.is_empty()).then(|| self.rng.pick(&reads).clone())
    }

    fn lit_i64(&mut self) -> String {
        let v = self.rng.range(-4, 12);
        if v < 0 {
            format!("({v}i64)")
        } else {
            format!("{v}i64")
        }
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        let vars = self.vars_of(ty);
        if !vars.is_empty() && self.rng.chance(45) {
            let var = self.rng.pick(&vars).clone();
            return self.read(&var);
        }
        let e = self.compound(ty, depth);
        format!("({e})")
    }

    fn compound(&mut self, ty: Ty, depth: u32) -> String {
        let deep = depth < 2;
        let nulls = self.f.on("null_values");
        match ty {
            Ty::I64 => match self.rng.below(if deep { 9 } else { 2 }) {
                0 if deep && self.f.on("user_macro") && self.rng.chance(30) => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("twice!({a})")
                }
                0 if deep && self.f.on("closure_shadow") && self.rng.chance(30) => {
                    let a = self.expr(Ty::I64, depth + 1);
                    let vars = self.visible();
                    let param = match vars.is_empty() {
                        true => "q".to_owned(),
                        false => self.rng.pick(&vars).name.clone(),
                    };
                    let param = if self.no_hide.contains(&param) {
                        "q".to_owned()
                    } else {
                        param
                    };
                    format!(
                        "[{a}, 2].iter().map(|{param}: &i64| {param}.wrapping_add(1)).fold(0i64, i64::wrapping_add)"
                    )
                }
                0 if deep && self.f.on("borrows") && self.rng.chance(40) => {
                    match self.borrowable() {
                        vars if !vars.is_empty() => {
                            let var = self.rng.pick(&vars).clone();
                            self.borrow_number(&var)
                        }
                        _ => self.lit_i64(),
                    }
                }
                0 if deep && self.f.on("user_types") && self.rng.chance(50) => {
                    match self.user_type_number() {
                        Some(read) => read,
                        None => self.lit_i64(),
                    }
                }
                0 | 1 => self.lit_i64(),
                2 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    let b = self.expr(Ty::I64, depth + 1);
                    format!("{a}.wrapping_add({b})")
                }
                3 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("{a}.wrapping_mul({})", self.rng.range(-3, 5))
                }
                4 => {
                    let a = self.expr(Ty::Str, depth + 1);
                    format!("({a}.len() as i64)")
                }
                5 => {
                    let a = self.expr(Ty::OptI64, depth + 1);
                    format!("{a}.unwrap_or({})", self.lit_i64())
                }
                6 => {
                    let c = self.expr(Ty::Bool, depth + 1);
                    let a = self.expr(Ty::I64, depth + 1);
                    let b = self.expr(Ty::I64, depth + 1);
                    format!("if {c} {{ {a} }} else {{ {b} }}")
                }
                7 if self.f.on("items") => "LIM".to_owned(),
                7 => {
                    let a = self.expr(Ty::VecI64, depth + 1);
                    format!("{a}.iter().sum::<i64>()")
                }
                _ => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("{a}.rem_euclid(5)")
                }
            },
            Ty::Bool => match self.rng.below(if deep { 8 } else { 2 }) {
                0 => (*self.rng.pick(&["true", "false"])).to_owned(),
                1 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("{a} > {}", self.lit_i64())
                }
                2 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("{a}.rem_euclid(2) == 0")
                }
                3 => {
                    let a = self.expr(Ty::OptI64, depth + 1);
                    format!("{a}.is_some()")
                }
                4 if self.f.on("awkward") => {
                    let a = self.expr(Ty::F64, depth + 1);
                    format!("{a}.is_sign_negative()")
                }
                5 => {
                    let a = self.expr(Ty::Bool, depth + 1);
                    format!("!{a}")
                }
                6 if !self.vars_of(Ty::AnsN).is_empty() => {
                    let vars = self.vars_of(Ty::AnsN);
                    let var = self.rng.pick(&vars).clone();
                    format!("{}.is_accepted()", var.name)
                }
                _ => {
                    let a = self.expr(Ty::Str, depth + 1);
                    format!("{a}.len() > 2")
                }
            },
            Ty::Str => match self.rng.below(if deep { 4 } else { 1 }) {
                0 => format!(
                    "String::from(\"{}\")",
                    self.rng.pick(&["", "s", "ab", "héllo"])
                ),
                1 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("format!(\"<{{}}>\", {a})")
                }
                2 => {
                    let a = self.expr(Ty::Str, depth + 1);
                    format!("{a} + \"+\"")
                }
                _ => {
                    let t = self.random_ty();
                    let a = self.expr(t, depth + 1);
                    format!("format!(\"{{:?}}\", {a})")
                }
            },
            Ty::F64 => {
                let mut lits = vec!["-0.0f64", "1.5f64", "0.1f64", "-2.25f64"];
                if nulls {
                    lits.extend(["f64::NAN", "f64::INFINITY", "f64::NEG_INFINITY"]);
                }
                match self.rng.below(if deep { 4 } else { 1 }) {
                    0 => (*self.rng.pick(&lits)).to_owned(),
                    1 => {
                        let a = self.expr(Ty::F64, depth + 1);
                        format!("({a} * -1.0)")
                    }
                    2 => {
                        let a = self.expr(Ty::I64, depth + 1);
                        format!("({a} as f64 / 4.0)")
                    }
                    _ => {
                        let a = self.expr(Ty::F64, depth + 1);
                        format!("({a} + 0.5)")
                    }
                }
            }
            Ty::U64 => match self.rng.below(if deep { 3 } else { 1 }) {
                0 => (*self
                    .rng
                    .pick(&["u64::MAX", "0u64", "18446744073709551614u64", "7u64"]))
                .to_owned(),
                1 => {
                    let a = self.expr(Ty::U64, depth + 1);
                    format!("{a}.wrapping_add({})", self.rng.below(5))
                }
                _ => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("({a} as u64)")
                }
            },
            Ty::I128 => match self.rng.below(if deep { 3 } else { 1 }) {
                0 => (*self.rng.pick(&[
                    "i128::MAX",
                    "i128::MIN",
                    "(1i128 << 100)",
                    "(-(1i128 << 70))",
                ]))
                .to_owned(),
                1 => {
                    let a = self.expr(Ty::I128, depth + 1);
                    format!("{a}.wrapping_mul(3)")
                }
                _ => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("(({a} as i128) << 64)")
                }
            },
            Ty::Char => (*self
                .rng
                .pick(&["'a'", "'é'", "'\\u{1F600}'", "'\\0'", "'\"'", "'\\''"]))
            .to_owned(),
            Ty::OptI64 => match self.rng.below(if deep { 3 } else { 2 }) {
                0 if nulls => "None::<i64>".to_owned(),
                0 | 1 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("Some({a})")
                }
                _ => {
                    let a = self.expr(Ty::OptI64, depth + 1);
                    format!("{a}.map(|q| q.wrapping_add(1))")
                }
            },
            Ty::Unit => "()".to_owned(),
            Ty::Marker => "Marker".to_owned(),
            Ty::Outer => match self.rng.below(4) {
                0 => "Outer::A(Inner::X)".to_owned(),
                1 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("Outer::A(Inner::Y({a}))")
                }
                2 => {
                    let a = self.expr(Ty::Bool, depth + 1);
                    format!("Outer::B {{ flag: {a} }}")
                }
                _ => "Outer::E".to_owned(),
            },
            Ty::Items => match self.rng.below(3) {
                0 => "Vec::<Item>::new()".to_owned(),
                _ => {
                    let a = self.expr(Ty::I64, depth + 1);
                    let c = self.expr(Ty::Char, depth + 1);
                    format!("vec![Item {{ id: {a}, tag: {c} }}, Item {{ id: 2, tag: 'z' }}]")
                }
            },
            Ty::VecI64 => match self.rng.below(3) {
                0 => "Vec::<i64>::new()".to_owned(),
                _ => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("vec![{a}, 3]")
                }
            },
            Ty::AnsN => "Answer::<N>::Decline".to_owned(),
            Ty::AnsC => "Answer::<C>::Cancel".to_owned(),
            Ty::OptOpt => match self.rng.below(3) {
                0 => "Some(None::<i64>)".to_owned(),
                1 => "None::<Option<i64>>".to_owned(),
                _ => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("Some(Some({a}))")
                }
            },
            Ty::OptMarker => (*self.rng.pick(&["Some(Marker)", "None::<Marker>"])).to_owned(),
            Ty::OptUnit => (*self.rng.pick(&["Some(())", "None::<()>"])).to_owned(),
            Ty::StaticStr => match self.rng.below(if deep { 3 } else { 2 }) {
                0 | 1 => (*self.rng.pick(&["\"a\"", "\"\"", "\"q\\\"uote\"", "\"é\""])).to_owned(),
                _ => {
                    let c = self.expr(Ty::Bool, depth + 1);
                    format!("if {c} {{ \"yes\" }} else {{ \"no\" }}")
                }
            },
            Ty::Map => match self.rng.below(3) {
                0 => "Map::new()".to_owned(),
                1 => {
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("Map::from([(String::from(\"k\"), {a})])")
                }
                _ => {
                    let s = self.expr(Ty::Str, depth + 1);
                    let a = self.expr(Ty::I64, depth + 1);
                    format!("{{ let mut map_ = Map::new(); map_.insert({s}, {a}); map_ }}")
                }
            },
            Ty::Guard => {
                let a = self.expr(Ty::I64, depth + 1);
                let s = self.expr(Ty::Str, depth + 1);
                format!("Guard {{ n: {a}, label: {s} }}")
            }
            Ty::Pair => {
                let s = self.expr(Ty::Str, depth + 1);
                let a = self.expr(Ty::I64, depth + 1);
                format!("Pair {{ name: {s}, n: {a} }}")
            }
            Ty::Order => {
                let s = self.expr(Ty::Str, depth + 1);
                let a = self.expr(Ty::I64, depth + 1);
                let b = self.expr(Ty::I64, depth + 1);
                format!("Order {{ customer: Pair {{ name: {s}, n: {a} }}, id: {b} }}")
            }
        }
    }

    /// A message for a question: names the site, the index in the batch and the form, and
    /// folds in a live value.
    fn message(&mut self, site: u32, index: u32, form: &str) -> String {
        let vars = self.visible();
        if !vars.is_empty() && self.rng.chance(60) {
            let var = self.rng.pick(&vars).clone();
            format!("format!(\"s{site}.{index}:{form} {{:?}}\", {})", var.name)
        } else {
            format!("\"s{site}.{index}:{form}\"")
        }
    }

    fn question(&mut self, site: u32, index: u32, form: &str) -> String {
        let message = self.message(site, index, form);
        format!("elicit::form::<{form}>({message})")
    }

    /// An `ask!` producing `ty`; `key` is `None` when the binding names it.
    fn ask_expr(&mut self, ty: Ty, bound: bool) -> Option<String> {
        let receiver_ok = self.f.on("ask_receiver");
        let try_ok = self.f.on("ask_try");
        self.site += 1;
        self.asks += 1;
        let site = self.site;
        let key = if bound && self.rng.chance(50) {
            String::new()
        } else {
            format!("k{site} = ")
        };
        let ask = |g: &mut Self, form: &str| {
            let q = g.question(site, 0, form);
            format!("ask!({key}{q})")
        };
        Some(match ty {
            Ty::AnsN => ask(self, "N"),
            Ty::AnsC => ask(self, "C"),
            Ty::I64 => match self.rng.below(3) {
                0 if try_ok => format!("{}.accepted()?.n", ask(self, "N")),
                1 if receiver_ok => format!(
                    "{}.ok().map_or({}, |q| q.n)",
                    ask(self, "N"),
                    self.lit_i64()
                ),
                2 if try_ok && receiver_ok => {
                    format!("check({}.ok().map_or(0, |q| q.n))?", ask(self, "N"))
                }
                _ if try_ok => format!("{}.accepted()?.n", ask(self, "N")),
                _ if receiver_ok => format!("{}.ok().map_or(1, |q| q.n)", ask(self, "N")),
                _ => {
                    self.site -= 1;
                    self.asks -= 1;
                    return None;
                }
            },
            Ty::Bool => match self.rng.below(3) {
                0 if try_ok => format!("{}.accepted()?.ok", ask(self, "C")),
                1 if receiver_ok => format!("{}.is_accepted()", ask(self, "N")),
                _ if receiver_ok => format!("{}.ok().is_some_and(|q| q.ok)", ask(self, "C")),
                _ if try_ok => format!("{}.accepted()?.ok", ask(self, "C")),
                _ => {
                    self.site -= 1;
                    self.asks -= 1;
                    return None;
                }
            },
            // A declined ask gives `None`: only with `null_values`.
            Ty::OptI64 if !self.f.on("null_values") => {
                self.site -= 1;
                self.asks -= 1;
                return None;
            }
            Ty::OptI64 if self.f.on("ask_nested") && self.rng.chance(40) => {
                format!("Some({}.ok().map_or(0, |q| q.n))", ask(self, "N"))
            }
            Ty::OptI64 if receiver_ok => format!("{}.ok().map(|q| q.n)", ask(self, "N")),
            _ => {
                self.site -= 1;
                self.asks -= 1;
                return None;
            }
        })
    }

    // ------------------------------------------------------------ statements

    fn trace(&mut self) {
        let id = self.next_id();
        let vars = self.visible();
        if self.f.on("user_macro") && !vars.is_empty() && self.rng.chance(15) {
            let var = self.rng.pick(&vars).clone();
            self.line(&format!("note!(({id}, &{}));", var.name));
            return;
        }
        let mut args = Vec::new();
        let mut text = format!("L{id}");
        for _ in 0..self.rng.below(3) {
            if vars.is_empty() {
                break;
            }
            let var = self.rng.pick(&vars).clone();
            let inline = self.f.on("inline_capture") && self.rng.chance(40);
            let width = self.f.on("width_capture") && self.rng.chance(30);
            match (inline, width) {
                (true, true) => {
                    let _ = write!(text, " {{{}:>wd$?}}", var.name);
                }
                (true, false) => {
                    let _ = write!(text, " {{{}:?}}", var.name);
                }
                (false, true) => {
                    text.push_str(" {:>wd$?}");
                    args.push(var.name.clone());
                }
                (false, false) => {
                    text.push_str(" {:?}");
                    args.push(var.name.clone());
                }
            }
        }
        let args: String = args.iter().map(|a| format!(", {a}")).collect();
        self.line(&format!("t(format!(\"{text}\"{args}));"));
    }

    fn result_format(&mut self, prefix: &str) -> String {
        let vars = self.visible();
        let mut text = prefix.to_owned();
        let mut args = String::new();
        let count = if prefix == "end" { 4 } else { 2 };
        for _ in 0..self.rng.below(count + 1) {
            if vars.is_empty() {
                break;
            }
            let var = self.rng.pick(&vars).clone();
            text.push_str(" {:?}");
            args.push_str(", ");
            args.push_str(&var.name);
        }
        format!("format!(\"{text}\"{args})")
    }

    fn early_return(&mut self) -> String {
        let id = self.next_id();
        if self.rng.chance(75) {
            let f = self.result_format(&format!("ret{id}"));
            format!("return Ok({f});")
        } else {
            let f = self.result_format(&format!("err{id}"));
            format!("return Err(ToolError::new({f}));")
        }
    }

    /// `return Ok(ask!(..)..)` or `return Err(ToolError::new(ask!(..)..))` (`ask_positions`).
    fn return_ask(&mut self) -> String {
        let id = self.next_id();
        self.site += 1;
        self.asks += 1;
        let site = self.site;
        let q = self.question(site, 0, "N");
        let ask = format!("ask!(k{site} = {q})");
        match self.rng.below(4) {
            0 if self.f.on("ask_try") => format!("return Ok({ask}.accepted()?.n.to_string());"),
            1 => format!(
                "return Err(ToolError::new({ask}.ok().map_or(String::from(\"err{id} none\"), |q| format!(\"err{id} {{}}\", q.n))));"
            ),
            _ => format!(
                "return Ok({ask}.ok().map_or(String::from(\"ret{id} none\"), |q| format!(\"ret{id} {{}}\", q.n)));"
            ),
        }
    }

    /// A statement that leaves the current block (`return`, `break`, `continue`), if the
    /// context allows one; never a `break` to a labelled block from inside a loop of it... it
    /// may, labelled blocks accept labelled breaks from anywhere inside.
    fn diverging(&mut self) -> String {
        let choice = self.rng.below(3);
        if choice == 0 || self.loops.is_empty() {
            return self.early_return();
        }
        let target = if self.f.on("labels") && self.rng.chance(40) {
            self.rng.below(self.loops.len() as u64) as usize
        } else {
            self.loops.len() - 1
        };
        let ctx = self.loops[target].clone();
        if ctx.block && ctx.label.is_none() {
            return self.early_return();
        }
        // mrtr refuses by design (README, FINDINGS.md "Still refused") a statement that reads a
        // kept value and jumps out of a loop that asks from under an inner binding of the same
        // name: the machine cannot put the kept value away before that statement. Whether the
        // statement reads the outer value is not tracked here, so no jump out of a loop is
        // made from under a binding, inside the loop's body, that hides one from outside it.
        if !ctx.block && self.hides_outer(ctx.body) {
            return self.early_return();
        }
        // An unlabelled jump targets the innermost loop, and is an error (E0695) inside a
        // labelled block; a labelled block needs its label.
        let innermost_loop = self.loops.iter().rposition(|c| !c.block);
        let unlabelled_ok =
            innermost_loop == Some(self.loops.len() - 1) && Some(target) == innermost_loop;
        let label = match (&ctx.label, unlabelled_ok) {
            (_, true) if self.rng.chance(50) => String::new(),
            (Some(label), _) => format!(" {label}"),
            (None, true) => String::new(),
            (None, false) => return self.early_return(),
        };
        if choice == 1 && !ctx.block && self.f.on("continue") {
            return format!("continue{label};");
        }
        match ctx.value {
            Some(ty) => {
                let v = self.expr(ty, 1);
                format!("break{label} {v};")
            }
            None => format!("break{label};"),
        }
    }

    /// Whether a binding of a scope nested in the body at `scopes[body]` (not the body's own:
    /// its statements and the loop's pattern) hides one declared outside the loop.
    fn hides_outer(&self, body: usize) -> bool {
        let outside: BTreeSet<&str> = self.scopes[..body.min(self.scopes.len())]
            .iter()
            .flatten()
            .map(|var| var.name.as_str())
            .collect();
        self.scopes
            .iter()
            .skip(body + 1)
            .flatten()
            .any(|var| outside.contains(var.name.as_str()))
    }

    fn can_diverge(&self) -> bool {
        self.f.on("return") || !self.loops.is_empty()
    }

    /// A block's statements; `budget` is the number of rounds this block may use, and the
    /// rounds used (worst case) are returned.
    fn stmts(&mut self, budget: u32, count: u64) -> u32 {
        let mut left = budget;
        let n = 1 + self.rng.below(count);
        for _ in 0..n {
            left -= self.stmt(left);
        }
        budget - left
    }

    fn stmt(&mut self, budget: u32) -> u32 {
        self.depth += 1;
        let used = self.stmt_inner(budget);
        self.depth -= 1;
        used
    }

    fn stmt_inner(&mut self, budget: u32) -> u32 {
        let nest = self.depth < 4;
        let roll = self.rng.below(100);
        let ask = budget > 0 && self.rng.chance(if self.depth <= 1 { 70 } else { 50 });
        if self.f.on("moves") && roll.is_multiple_of(4) && !self.movable(None).is_empty() {
            return self.move_stmt(budget, ask);
        }
        if self.f.on("borrows") && roll % 12 == 1 && !self.borrowable().is_empty() {
            return self.borrow_stmt(budget, ask);
        }
        match roll {
            0..=14 => {
                self.trace();
                0
            }
            15..=29 => self.let_stmt(budget, ask),
            30..=37 => self.assign_stmt(budget, ask),
            38..=41 if ask && self.f.on("ask_stmt") => self.ask_stmt(),
            42..=44 if ask && self.f.on("recheck") => {
                self.asks += 1;
                self.line("ask!(recheck());");
                1
            }
            45..=47 if ask && self.f.on("batch") => {
                self.site += 1;
                self.asks += 1;
                let site = self.site;
                let (a, b) = (self.name_for_binding(), self.name_for_binding());
                let b = if a == b { format!("{b}2") } else { b };
                let qa = self.question(site, 0, "N");
                let qb = self.question(site, 1, "C");
                let ann = if self.f.on("inference") && self.rng.chance(50) {
                    String::new()
                } else {
                    ": (Answer<N>, Answer<C>)".to_owned()
                };
                self.line(&format!(
                    "let ({a}, {b}){ann} = ask!(k{site}a = {qa}, k{site}b = {qb});"
                ));
                self.declare(&a, Ty::AnsN, false);
                self.declare(&b, Ty::AnsC, false);
                1
            }
            48..=51 if self.f.on("try") => {
                let e = self.expr(Ty::I64, 0);
                if self.rng.chance(50) {
                    let name = self.name_for_binding();
                    self.line(&format!("let {name}: i64 = check({e})?;"));
                    self.declare(&name, Ty::I64, false);
                } else {
                    self.line(&format!("check({e})?;"));
                }
                0
            }
            52..=55 if self.can_diverge() => {
                let c = self.expr(Ty::Bool, 1);
                self.open(&format!("if {c} {{"));
                self.trace();
                let mut used = 0;
                if ask && self.f.on("ask_positions") && self.rng.chance(40) {
                    used = 1;
                    let r = self.return_ask();
                    self.line(&r);
                } else {
                    let d = self.diverging();
                    self.line(&d);
                }
                self.close("}");
                used
            }
            56..=60 if self.f.on("let_else") => self.let_else(budget, ask),
            61..=69 if nest && self.f.on("if") => self.if_stmt(budget, None),
            70..=76 if nest && self.f.on("match") => self.match_stmt(budget, None),
            77..=88 if nest => self.loop_stmt(budget, None),
            89..=94 if nest && self.f.on("block") => {
                self.open("{");
                let used = self.stmts(budget, 3);
                self.close("}");
                used
            }
            95..=99 if nest && self.f.on("label_block") => self.label_block(),
            _ => {
                self.trace();
                0
            }
        }
    }

    /// `ask!(..);` or `ask!(..).accepted()?;` as a statement (`ask_stmt`): one round.
    fn ask_stmt(&mut self) -> u32 {
        self.site += 1;
        self.asks += 1;
        let site = self.site;
        let form = *self.rng.pick(&["N", "C"]);
        let q = self.question(site, 0, form);
        if self.f.on("ask_try") && self.rng.chance(40) {
            self.line(&format!("ask!(k{site} = {q}).accepted()?;"));
        } else {
            self.line(&format!("ask!(k{site} = {q});"));
        }
        1
    }

    // ------------------------------------------------------------ borrows

    /// The visible non-`Copy` locals a borrow may be made of (`borrows`).
    fn borrowable(&self) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|var| {
                matches!(
                    var.ty,
                    Ty::Str | Ty::VecI64 | Ty::Items | Ty::Map | Ty::Guard | Ty::Pair
                )
            })
            .collect()
    }

    /// A borrow of `var` (the value of a `let`) and a number read through it, with `{r}` for
    /// the borrow's name.
    fn borrow_of(&mut self, var: &Var) -> (String, &'static str) {
        let v = &var.name;
        match (var.ty, self.rng.below(3)) {
            (Ty::Str, 0) => (format!("&{v}"), "({r}.len() as i64)"),
            (Ty::Str, 1) => (format!("{v}.as_str()"), "({r}.len() as i64)"),
            (Ty::Str, _) => (format!("&{v}[..]"), "{r}.chars().count() as i64"),
            (Ty::VecI64, 0) => (
                format!("&{v}"),
                "{r}.iter().fold(0i64, |q, w| q.wrapping_add(*w))",
            ),
            (Ty::VecI64, 1) => (format!("{v}.first()"), "{r}.copied().unwrap_or(-1)"),
            (Ty::VecI64, _) => (format!("{v}.iter().max()"), "{r}.map_or(-2, |q| *q)"),
            (Ty::Items, 0) => (format!("&{v}"), "({r}.len() as i64)"),
            (Ty::Items, 1) => (format!("{v}.first()"), "{r}.map_or(-1, |q| q.id)"),
            (Ty::Items, _) => (
                format!("{v}.iter().max_by_key(|q| q.id)"),
                "{r}.map_or(-2, |q| q.id)",
            ),
            (Ty::Map, 0) => (format!("&{v}"), "({r}.len() as i64)"),
            (Ty::Map, 1) => (format!("{v}.get(\"k\")"), "{r}.copied().unwrap_or(-1)"),
            (Ty::Map, _) => (
                format!("{v}.keys().next()"),
                "{r}.map_or(-2, |q| q.len() as i64)",
            ),
            (Ty::Guard | Ty::Pair, 0) => (format!("&{v}"), "{r}.n"),
            (Ty::Guard, _) => (format!("&{v}.label"), "({r}.len() as i64)"),
            (_, _) => (format!("&{v}.name"), "({r}.len() as i64)"),
        }
    }

    /// An `i64` read through a borrow of `var` made inside the expression.
    fn borrow_number(&mut self, var: &Var) -> String {
        let (init, number) = self.borrow_of(var);
        if self.rng.chance(40) {
            let r = self.fresh_name("r");
            let number = number.replace("{r}", &r);
            format!("{{ let {r} = {init}; {number} }}")
        } else {
            number.replace("{r}", &format!("({init})"))
        }
    }

    /// A read of the borrow `r`: a trace, or an `i64` it gives a new local.
    fn borrow_use(&mut self, r: &str, number: &str) {
        let number = number.replace("{r}", r);
        match self.rng.below(3) {
            0 => {
                let name = self.name_for_binding();
                self.line(&format!("let {name}: i64 = {number};"));
                self.declare(&name, Ty::I64, false);
            }
            1 => {
                let id = self.next_id();
                self.line(&format!("t(format!(\"L{id} {{}}\", {number}));"));
            }
            _ => {
                let id = self.next_id();
                if self.f.on("inline_capture") && self.rng.chance(50) {
                    self.line(&format!("t(format!(\"L{id} {{{r}:?}}\"));"));
                } else {
                    self.line(&format!("t(format!(\"L{id} {{:?}}\", {r}));"));
                }
            }
        }
    }

    /// The arm of a construct after a borrow that asks and then diverges: the borrow is not
    /// live in it. Returns the rounds used.
    fn asking_arm(&mut self, budget: u32) -> u32 {
        self.trace();
        if budget == 0 {
            let d = self.diverging_or_return();
            self.line(&d);
            return 0;
        }
        if self.f.on("ask_positions") && self.rng.chance(25) {
            let r = self.return_ask();
            self.line(&r);
            return 1;
        }
        self.site += 1;
        self.asks += 1;
        let site = self.site;
        let q = self.question(site, 0, "N");
        if self.rng.chance(50) {
            // Often the name of a visible local: the arm hides it.
            let name = self.name_for_binding();
            self.line(&format!("let {name}: Answer<N> = ask!(k{site} = {q});"));
            self.declare(&name, Ty::AnsN, false);
        } else {
            self.line(&format!("ask!(k{site} = {q});"));
        }
        let used = 1 + if self.rng.chance(50) {
            self.stmts(budget - 1, 2)
        } else {
            0
        };
        let d = self.diverging_or_return();
        self.line(&d);
        used
    }

    /// The arm of such a construct that goes on: no ask, nothing that moves or changes the
    /// borrowed local; may read the borrow.
    fn quiet_arm(&mut self, borrow: Option<(&str, &str)>) {
        self.trace();
        if let Some((r, number)) = borrow
            && self.rng.chance(50)
        {
            self.borrow_use(r, number);
        }
    }

    /// `let r = <borrow of v>;`, then either a stretch without asks that reads it, or an `if`
    /// / `match` whose arms that ask all diverge after their ask, and a read of `r` after it
    /// (`borrows`). No ask happens while `r` is live. Returns the rounds used.
    fn borrow_stmt(&mut self, budget: u32, ask: bool) -> u32 {
        let vars = self.borrowable();
        let var = self.rng.pick(&vars).clone();
        let (init, number) = self.borrow_of(&var);
        let r = self.fresh_name("r");
        self.line(&format!("let {r} = {init};"));
        let join = self.can_diverge() && self.rng.chance(70);
        if !join {
            // A stretch without asks. Re-binding the borrowed local's name while the borrow
            // is live would make the machine save the local there (when it is kept after):
            // the shape `borrow_hidden` writes.
            let guarded = !self.f.on("borrow_hidden");
            if guarded {
                self.no_hide.push(var.name.clone());
            }
            for _ in 0..self.rng.below(2) {
                self.trace();
            }
            self.borrow_use(&r, number);
            if self.rng.chance(30) {
                self.borrow_use(&r, number);
            }
            if guarded {
                self.no_hide.pop();
            }
            return 0;
        }
        let budget = if ask { budget } else { 0 };
        let mut used = 0;
        // An arm that asks diverges, so it may re-bind the borrowed local's name (FINDINGS.md
        // 17, fixed). A quiet arm goes on after the construct: re-binding the name there makes
        // the machine put the local away before the construct (when it is kept after), which
        // the borrow forbids (E0505 at the local's `let`, refused by design).
        let quiet = |this: &mut Self, borrow: Option<(&str, &str)>| {
            let guarded = !this.f.on("borrow_hidden");
            if guarded {
                this.no_hide.push(var.name.clone());
            }
            this.quiet_arm(borrow);
            if guarded {
                this.no_hide.pop();
            }
        };
        match self.rng.below(3) {
            0 => {
                let c = self.expr(Ty::Bool, 1);
                self.open(&format!("if {c} {{"));
                used = used.max(self.asking_arm(budget));
                if self.rng.chance(50) {
                    self.close("} else {");
                    self.scopes.push(Vec::new());
                    self.indent += 1;
                    quiet(self, Some((&r, number)));
                }
                self.close("}");
            }
            1 => {
                // The value of a `let`: the arm that goes on gives it, through the borrow. The
                // `let` declares its name in the construct's head, so re-binding the borrowed
                // local's name there puts the local away before the construct while `r` is live
                // (E0505 at the local's `let`, refused by design): only with `borrow_hidden`.
                let guarded = !self.f.on("borrow_hidden");
                if guarded {
                    self.no_hide.push(var.name.clone());
                }
                let name = self.name_for_binding();
                if guarded {
                    self.no_hide.pop();
                }
                let c = self.expr(Ty::Bool, 1);
                let asking_first = self.rng.chance(50);
                self.open(&format!("let {name}: i64 = if {c} {{"));
                if asking_first {
                    used = used.max(self.asking_arm(budget));
                } else {
                    quiet(self, None);
                    self.line(&number.replace("{r}", &r));
                }
                self.close("} else {");
                self.scopes.push(Vec::new());
                self.indent += 1;
                if asking_first {
                    quiet(self, None);
                    self.line(&number.replace("{r}", &r));
                } else {
                    used = used.max(self.asking_arm(budget));
                }
                self.close("};");
                self.declare(&name, Ty::I64, false);
            }
            _ => {
                let e = self.expr(Ty::I64, 1);
                self.line(&format!("match ({e}).rem_euclid(3) {{"));
                self.indent += 1;
                for (i, pattern) in ["0", "1", "_"].iter().enumerate() {
                    self.open(&format!("{pattern} => {{"));
                    if i == 1 || self.rng.chance(40) {
                        quiet(self, Some((&r, number)));
                    } else {
                        used = used.max(self.asking_arm(budget));
                    }
                    self.close("}");
                }
                self.indent -= 1;
                self.line("}");
            }
        }
        self.borrow_use(&r, number);
        used
    }

    fn annotate(&mut self, ty: Ty) -> String {
        if self.f.on("inference")
            && self.rng.chance(60)
            && !matches!(
                ty,
                Ty::VecI64 | Ty::Items | Ty::OptI64 | Ty::AnsN | Ty::AnsC | Ty::OptOpt
            )
            || ty == Ty::StaticStr
        {
            // `let s: &str = ..` is kept only when its value is a literal.
            String::new()
        } else {
            format!(": {}", ty.rust())
        }
    }

    fn let_stmt(&mut self, budget: u32, ask: bool) -> u32 {
        let name = self.name_for_binding();
        let mutable = self.rng.chance(40);
        let mut_kw = if mutable { "mut " } else { "" };
        // A value-producing construct.
        if self.depth < 4 && self.rng.chance(30) {
            let ty = self.random_ty();
            let ann = ty.annotation();
            let pick = self.rng.below(4);
            let (head, used) = match pick {
                0 if self.f.on("if") => (format!("let {mut_kw}{name}{ann} = "), None),
                1 if self.f.on("match") => (format!("let {mut_kw}{name}{ann} = "), Some(1)),
                2 if self.f.on("break_value") && self.f.on("loop") => {
                    (format!("let {mut_kw}{name}{ann} = "), Some(2))
                }
                3 if self.f.on("block") => (format!("let {mut_kw}{name}{ann} = "), Some(3)),
                _ => (String::new(), Some(9)),
            };
            if used != Some(9) {
                let used = match used {
                    None => self.if_stmt(budget, Some((head, ty))),
                    Some(1) => self.match_stmt(budget, Some((head, ty))),
                    Some(2) => self.loop_stmt(budget, Some((head, ty))),
                    _ => {
                        self.open(&format!("{head}{{"));
                        let tail_ask = budget > 0 && self.tail_ask_ok();
                        let used = self.stmts(budget - u32::from(tail_ask), 3);
                        match tail_ask.then(|| self.ask_expr(ty, false)).flatten() {
                            Some(e) => {
                                self.line(&e);
                                self.close("};");
                                used + 1
                            }
                            None => {
                                let v = self.expr(ty, 0);
                                self.line(&v);
                                self.close("};");
                                used
                            }
                        }
                    }
                };
                self.declare(&name, ty, mutable);
                return used;
            }
        }
        if ask
            && self.f.on("ask_nested")
            && self.rng.chance(15)
            && let Some(e) = self.ask_expr(Ty::I64, false)
        {
            {
                let other = self.name_for_binding();
                let other = if other == name {
                    format!("{other}2")
                } else {
                    other
                };
                let ty = self.random_ty();
                let v = self.expr(ty, 1);
                self.line(&format!(
                    "let ({mut_kw}{name}, {other}): (i64, {}) = ({e}, {v});",
                    ty.rust()
                ));
                self.declare(&name, Ty::I64, mutable);
                self.declare(&other, ty, false);
                return 1;
            }
        }
        if ask {
            let ty = *self
                .rng
                .pick(&[Ty::AnsN, Ty::AnsC, Ty::I64, Ty::Bool, Ty::OptI64, Ty::AnsN]);
            if let Some(e) = self.ask_expr(ty, true) {
                let ann = self.annotate(ty);
                if self.f.on("stmt_attr") && self.rng.chance(25) {
                    self.line("#[allow(unused_mut)]");
                }
                self.line(&format!("let {mut_kw}{name}{ann} = {e};"));
                self.declare(&name, ty, mutable);
                return 1;
            }
        }
        let ty = self.random_ty();
        let e = self.expr(ty, 0);
        let ann = self.annotate(ty);
        self.line(&format!("let {mut_kw}{name}{ann} = {e};"));
        self.declare(&name, ty, mutable);
        0
    }

    /// A statement that moves a non-`Copy` local of the current scope (`moves`).
    /// When the moved local is `mut`, often some statements (which may ask) follow, and then
    /// `v = ..` (the revival, which may ask too); returns the rounds used.
    fn move_stmt(&mut self, budget: u32, ask: bool) -> u32 {
        if self.f.on("user_types") && self.f.on("nested_fields") && self.rng.chance(25) {
            return self.nested_move(budget, ask);
        }
        let vars = self.movable(None);
        let var = self.rng.pick(&vars).clone();
        let v = var.name.clone();
        self.set_moved(&v, true);
        self.move_out(&var);
        if !var.mutable || !self.rng.chance(70) {
            return 0;
        }
        let used = self.stmts(budget, 2);
        if !self.revivable().iter().any(|other| other.name == v) {
            return used;
        }
        used + self.revive(&var, budget - used, ask)
    }

    /// Records that the innermost binding of the current scope named `name`, moved out of in
    /// part, still owns the `i64` fields at `fields` (paths from it), and only those.
    fn set_remaining(&mut self, name: &str, fields: &'static [&'static str]) {
        if let Some(var) = self
            .scopes
            .last_mut()
            .and_then(|scope| scope.iter_mut().rev().find(|var| var.name == name))
        {
            var.remaining = Some(fields);
        }
    }

    /// `let w = o.customer.name;`: a field of a field of the (already `moved`) Order `o` goes;
    /// `o.id` and `o.customer.n` stay readable.
    fn move_customer_name(&mut self, o: &str) {
        let name = self.name_for_binding();
        self.line(&format!("let {name} = {o}.customer.name;"));
        self.set_remaining(o, &["id", "customer.n"]);
        self.declare(&name, Ty::Str, false);
    }

    /// `let c = o.customer;`: the inner struct of the (already `moved`) Order `o` goes whole;
    /// only `o.id` stays readable. The new `Pair` may be moved out of in its turn.
    fn move_customer(&mut self, o: &str) {
        let name = self.name_for_binding();
        let mutable = self.rng.chance(30);
        let mut_kw = if mutable { "mut " } else { "" };
        let ann = if self.f.on("inference") && self.rng.chance(50) {
            ""
        } else {
            ": Pair"
        };
        self.line(&format!("let {mut_kw}{name}{ann} = {o}.customer;"));
        self.set_remaining(o, &["id"]);
        self.declare(&name, Ty::Pair, mutable);
    }

    /// The fields the binding in force named `name` still owns, if it is a partly moved
    /// `Order` (a later binding of the name hides it).
    fn order_remaining(&self, name: &str) -> Option<&'static [&'static str]> {
        let var = self
            .scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|var| var.name == name)?;
        (var.ty == Ty::Order && var.moved)
            .then_some(var.remaining)
            .flatten()
    }

    /// A fresh `Order`, a field of its field (or its inner struct) moved out, an ask, then a
    /// field it still owns read into a new local or the trace (`nested_fields`): a partly moved
    /// value kept across an ask. Returns the rounds used.
    fn nested_move(&mut self, budget: u32, ask: bool) -> u32 {
        let o = self.name_for_binding();
        let mutable = self.rng.chance(30);
        let mut_kw = if mutable { "mut " } else { "" };
        let value = self.compound(Ty::Order, 1);
        let ann = self.annotate(Ty::Order);
        self.line(&format!("let {mut_kw}{o}{ann} = {value};"));
        self.declare(&o, Ty::Order, mutable);
        self.set_moved(&o, true);
        if self.rng.chance(75) {
            self.move_customer_name(&o);
        } else {
            self.move_customer(&o);
        }
        let used = if ask && budget > 0 && self.f.on("ask_stmt") {
            self.ask_stmt()
        } else {
            self.trace();
            0
        };
        // `w` may have taken `o`'s name (`shadow_same`): then `o` is no longer readable.
        let Some(fields) = self.order_remaining(&o) else {
            self.trace();
            return used;
        };
        let read = format!("{o}.{}", self.rng.pick(fields));
        if self.rng.chance(50) {
            let name = self.name_for_binding();
            let a = self.lit_i64();
            self.line(&format!("let {name}: i64 = {read}.wrapping_add({a});"));
            self.declare(&name, Ty::I64, false);
        } else {
            let id = self.next_id();
            self.line(&format!("t(format!(\"L{id} {{}}\", {read}));"));
        }
        used
    }

    fn move_out(&mut self, var: &Var) {
        let v = var.name.clone();
        match self.rng.below(4) {
            0 => self.line(&format!("t(eat({v}));")),
            // A partial move: the `name` goes, the `n` stays readable (`user_type_number`).
            1 | 2 if var.ty == Ty::Pair => {
                let name = self.name_for_binding();
                self.line(&format!("let {name} = {v}.name;"));
                self.set_remaining(&v, &["n"]);
                self.declare(&name, Ty::Str, false);
            }
            // Two levels: a field of the inner struct goes (its `n` and the outer `id` stay), or
            // the inner struct goes whole (only `id` stays).
            1 if var.ty == Ty::Order => self.move_customer_name(&v),
            2 if var.ty == Ty::Order => self.move_customer(&v),
            1 if var.ty == Ty::Str => {
                let name = self.name_for_binding();
                self.line(&format!("let {name} = {v} + \"!\";"));
                self.declare(&name, Ty::Str, false);
            }
            1 if var.ty == Ty::VecI64 => {
                let name = self.name_for_binding();
                self.line(&format!(
                    "let {name}: i64 = {v}.into_iter().fold(0i64, i64::wrapping_add);"
                ));
                self.declare(&name, Ty::I64, false);
            }
            _ => {
                let name = self.name_for_binding();
                let mutable = self.rng.chance(40);
                let mut_kw = if mutable { "mut " } else { "" };
                let ann = if self.f.on("inference") && self.rng.chance(50) {
                    String::new()
                } else {
                    format!(": {}", var.ty.rust())
                };
                self.line(&format!("let {mut_kw}{name}{ann} = {v};"));
                self.declare(&name, var.ty, mutable);
            }
        }
    }

    /// `v = ..` after a move: `v` is readable again. Returns the rounds used.
    fn revive(&mut self, var: &Var, budget: u32, ask: bool) -> u32 {
        let mut used = 0;
        let value = match var.ty {
            // `v = ask!(..)` into a moved-out-of `v` (FINDINGS.md, finding 13).
            Ty::AnsN | Ty::AnsC
                if ask
                    && budget > 0
                    && self.f.on("ask_assign")
                    && self.f.on("moved_ask_assign") =>
            {
                used = 1;
                self.ask_expr(var.ty, false).expect("an answer ask")
            }
            ty => self.expr(ty, 0),
        };
        self.line(&format!("{} = {value};", var.name));
        self.set_moved(&var.name, false);
        used
    }

    fn assign_stmt(&mut self, budget: u32, ask: bool) -> u32 {
        let revivable = self.revivable();
        if !revivable.is_empty() && self.rng.chance(85) {
            let var = self.rng.pick(&revivable).clone();
            return self.revive(&var, budget, ask);
        }
        let mutables: Vec<Var> = self.visible().into_iter().filter(|v| v.mutable).collect();
        if mutables.is_empty() {
            self.trace();
            return 0;
        }
        let mut var = self.rng.pick(&mutables).clone();
        let counters: Vec<Var> = mutables
            .iter()
            .filter(|v| v.ty == Ty::I64)
            .cloned()
            .collect();
        if ask && self.f.on("ask_positions") && !counters.is_empty() && self.rng.chance(50) {
            var = self.rng.pick(&counters).clone();
        }
        if ask
            && budget > 0
            && self.f.on("ask_assign")
            && matches!(
                var.ty,
                Ty::I64 | Ty::Bool | Ty::OptI64 | Ty::AnsN | Ty::AnsC
            )
        {
            if var.ty == Ty::I64 && self.f.on("ask_positions") && self.rng.chance(60) {
                self.site += 1;
                self.asks += 1;
                let site = self.site;
                let q = self.question(site, 0, "N");
                let op = *self.rng.pick(&["+=", "-="]);
                let tail = if self.f.on("ask_try") && self.rng.chance(40) {
                    ".accepted()?.n"
                } else {
                    ".ok().map_or(0, |q| q.n)"
                };
                self.line(&format!("{} {op} ask!(k{site} = {q}){tail};", var.name));
                return 1;
            }
            if var.ty == Ty::I64 && self.f.on("ask_receiver") && self.rng.chance(40) {
                self.site += 1;
                self.asks += 1;
                let site = self.site;
                let q = self.question(site, 0, "N");
                self.line(&format!(
                    "{} ^= ask!(k{site} = {q}).ok().map_or(0, |q| q.n);",
                    var.name
                ));
                return 1;
            }
            if let Some(e) = self.ask_expr(var.ty, false) {
                self.line(&format!("{} = {e};", var.name));
                return 1;
            }
        }
        match var.ty {
            Ty::Items if self.rng.chance(60) => {
                let a = self.expr(Ty::I64, 1);
                let c = self.expr(Ty::Char, 1);
                self.line(&format!("{}.push(Item {{ id: {a}, tag: {c} }});", var.name));
            }
            Ty::VecI64 if self.rng.chance(60) => {
                let a = self.expr(Ty::I64, 1);
                self.line(&format!("{}.push({a});", var.name));
            }
            Ty::I64 if self.rng.chance(50) => {
                let a = self.expr(Ty::I64, 1);
                self.line(&format!("{0} = {0}.wrapping_add({a});", var.name));
            }
            ty => {
                let e = self.expr(ty, 0);
                self.line(&format!("{} = {e};", var.name));
            }
        }
        0
    }

    fn let_else(&mut self, budget: u32, ask: bool) -> u32 {
        let name = self.name_for_binding();
        let (form, field, ty) = if self.rng.chance(50) {
            ("N", "n", Ty::I64)
        } else {
            ("C", "ok", Ty::Bool)
        };
        let ans_ty = if form == "N" { Ty::AnsN } else { Ty::AnsC };
        let mut used = 0;
        let scrutinee = if ask && budget > 0 {
            used = 1;
            self.ask_expr(ans_ty, false).expect("an answer ask")
        } else {
            let vars = self.vars_of(ans_ty);
            if vars.is_empty() {
                let n = self.expr(Ty::OptI64, 0);
                let d = self.diverging_or_return();
                self.line(&format!("let Some({name}) = {n} else {{ {d} }};"));
                self.declare(&name, Ty::I64, false);
                return 0;
            }
            let var = self.rng.pick(&vars).clone();
            self.read(&var)
        };
        let d = self.diverging_or_return();
        self.line(&format!(
            "let Answer::Accept({form} {{ {field}: {name} }}) = {scrutinee} else {{ {d} }};"
        ));
        self.declare(&name, ty, false);
        used
    }

    fn diverging_or_return(&mut self) -> String {
        if self.can_diverge() {
            self.diverging()
        } else {
            self.early_return()
        }
    }

    fn if_stmt(&mut self, budget: u32, value: Option<(String, Ty)>) -> u32 {
        let (head, ty) = match &value {
            Some((head, ty)) => (head.clone(), Some(*ty)),
            None => (String::new(), None),
        };
        let mut used = 0;
        // Condition: plain, an ask, `if let` on an option or an answer.
        let ask_cond = budget > 0 && self.f.on("ask_cond") && self.rng.chance(35);
        let kind = self.rng.below(3);
        let mut binding: Option<(String, Ty)> = None;
        // The second `let` of a let chain binds an `i64`.
        let mut second: Option<String> = None;
        let cond = if kind == 0 {
            // if let
            let name = self.name_for_pattern();
            if ask_cond {
                used = 1;
                let (form, field, ty) = if self.rng.chance(50) {
                    ("N", "n", Ty::I64)
                } else {
                    ("C", "ok", Ty::Bool)
                };
                let e = self
                    .ask_expr(if form == "N" { Ty::AnsN } else { Ty::AnsC }, false)
                    .expect("answer ask");
                binding = Some((name.clone(), ty));
                let head = format!("let Answer::Accept({form} {{ {field}: {name} }}) = {e}");
                if self.f.on("ask_positions") && self.rng.chance(50) {
                    // A let chain: the ask's pattern, then a condition on what it bound, or
                    // a second `let` (on a fresh name: re-binding a kept one is refused).
                    self.scopes.push(vec![Var {
                        name: name.clone(),
                        ty,
                        mutable: false,
                        moved: false,
                        moved_at: 0,
                        remaining: None,
                    }]);
                    let more = if self.rng.chance(40) {
                        let m = self.fresh_name("n");
                        let o = self.expr(Ty::OptI64, 1);
                        second = Some(m.clone());
                        format!("let Some({m}) = {o}")
                    } else if ty == Ty::I64 {
                        format!("{name} > {}", self.lit_i64())
                    } else {
                        let c = self.expr(Ty::Bool, 1);
                        format!("{name} && {c}")
                    };
                    self.scopes.pop();
                    format!("{head} && {more}")
                } else {
                    head
                }
            } else {
                let e = self.expr(Ty::OptI64, 0);
                binding = Some((name.clone(), Ty::I64));
                format!("let Some({name}) = {e}")
            }
        } else if ask_cond {
            match self.ask_expr(Ty::Bool, false) {
                Some(e) => {
                    used = 1;
                    e
                }
                None => self.expr(Ty::Bool, 0),
            }
        } else {
            self.expr(Ty::Bool, 0)
        };
        let arm_budget = budget - used;
        self.open(&format!("{head}if {cond} {{"));
        if let Some((name, ty)) = &binding {
            self.declare(name, *ty, false);
        }
        if let Some(name) = &second {
            self.declare(name, Ty::I64, false);
        }
        let then_used = self.arm(arm_budget, ty);
        let has_else = ty.is_some() || self.rng.chance(60);
        let mut else_used = 0;
        if has_else {
            self.indent -= 1;
            self.scopes.pop();
            if ty.is_none() && self.f.on("ask_cond") && self.rng.chance(20) && arm_budget > 0 {
                // else if with an ask in its condition
                if let Some(e) = self.ask_expr(Ty::Bool, false) {
                    self.line(&format!("}} else if {e} {{"));
                    self.indent += 1;
                    self.scopes.push(Vec::new());
                    else_used = 1 + self.arm(arm_budget - 1, None);
                    self.close("}");
                    return used + then_used.max(else_used);
                }
            }
            self.line("} else {");
            self.indent += 1;
            self.scopes.push(Vec::new());
            else_used = self.arm(arm_budget, ty);
        }
        self.close(if value.is_some() { "};" } else { "}" });
        used + then_used.max(else_used)
    }

    /// The statements of an arm and, for a value-producing construct, its value (or, with
    /// `diverge`, a jump instead).
    fn arm(&mut self, budget: u32, ty: Option<Ty>) -> u32 {
        self.trace();
        // With `ask_positions`, the arm's value may be an ask (the block's tail).
        let tail_ask = ty.is_some() && budget > 0 && self.tail_ask_ok();
        let budget = budget - u32::from(tail_ask);
        let used = if self.rng.chance(75) {
            self.stmts(budget, 3)
        } else {
            0
        };
        if let Some(ty) = ty
            && tail_ask
            && let Some(e) = self.ask_expr(ty, false)
        {
            self.line(&e);
            return used + 1;
        }
        if let Some(ty) = ty {
            // A `&'static str` `let` has no annotation: were every arm to diverge, its type
            // would be `!`, which the machine refuses to keep (FINDINGS.md, finding 14).
            if self.f.on("diverge")
                && self.can_diverge()
                && ty != Ty::StaticStr
                && self.rng.chance(15)
            {
                let d = self.diverging_or_return();
                self.line(&d);
            } else {
                let v = self.expr(ty, 0);
                self.line(&v);
            }
        }
        used
    }

    /// Whether a value-producing construct's value is an ask this time (`ask_positions`).
    fn tail_ask_ok(&mut self) -> bool {
        self.f.on("ask_positions") && self.rng.chance(45)
    }

    fn match_stmt(&mut self, budget: u32, value: Option<(String, Ty)>) -> u32 {
        let (head, ty) = match &value {
            Some((head, ty)) => (head.clone(), Some(*ty)),
            None => (String::new(), None),
        };
        let ask_scrut = budget > 0 && self.f.on("ask_scrutinee") && self.rng.chance(40);
        let kind = self.rng.below(5);
        let mut used = 0;
        let (scrutinee, arms): (String, Vec<MatchArm>) = match kind {
            0 | 1 if ask_scrut => {
                used = 1;
                let n = self.name_for_pattern();
                if kind == 0 {
                    let e = self.ask_expr(Ty::AnsN, false).expect("answer ask");
                    (
                        e,
                        vec![
                            (
                                format!("Answer::Accept(N {{ n: {n} }})"),
                                Some((n, Ty::I64)),
                            ),
                            ("Answer::Decline".to_owned(), None),
                            ("Answer::Cancel".to_owned(), None),
                        ],
                    )
                } else {
                    let e = self.ask_expr(Ty::AnsC, false).expect("answer ask");
                    (
                        e,
                        vec![
                            (
                                format!("Answer::Accept(C {{ ok: {n} }})"),
                                Some((n, Ty::Bool)),
                            ),
                            ("_".to_owned(), None),
                        ],
                    )
                }
            }
            0 => {
                let n = self.name_for_pattern();
                let e = self.expr(Ty::OptI64, 0);
                (
                    e,
                    vec![
                        (format!("Some({n})"), Some((n, Ty::I64))),
                        ("None".to_owned(), None),
                    ],
                )
            }
            1 | 2 => {
                let n = self.name_for_pattern();
                let m = self.name_for_pattern();
                let asked = if ask_scrut {
                    self.ask_expr(Ty::I64, false)
                } else {
                    None
                };
                let e = match asked {
                    Some(e) => {
                        used = 1;
                        e
                    }
                    None => self.expr(Ty::I64, 0),
                };
                (
                    e,
                    vec![
                        ("0".to_owned(), None),
                        (format!("{n} @ 1..=4"), Some((n, Ty::I64))),
                        (m.to_string(), Some((m, Ty::I64))),
                    ],
                )
            }
            3 if self.f.on("awkward") => {
                let n = self.name_for_pattern();
                let e = self.expr(Ty::Outer, 0);
                (
                    e,
                    vec![
                        (
                            format!("Outer::A(Inner::Y({n}))"),
                            Some((n.clone(), Ty::I64)),
                        ),
                        ("Outer::A(Inner::X) | Outer::E".to_owned(), None),
                        (format!("Outer::B {{ flag: {n} }}"), Some((n, Ty::Bool))),
                    ],
                )
            }
            _ => {
                let e = self.expr(Ty::Bool, 0);
                (
                    e,
                    vec![("true".to_owned(), None), ("false".to_owned(), None)],
                )
            }
        };
        let arm_budget = budget - used;
        self.line(&format!("{head}match {scrutinee} {{"));
        self.indent += 1;
        let mut worst = 0;
        for (pattern, binding) in arms {
            if let Some(ty) = ty
                && arm_budget > 0
                && self.tail_ask_ok()
            {
                // `Pat => ask!(..).., `: the arm's value is the ask, without a block.
                self.scopes.push(Vec::new());
                if let Some((name, ty)) = &binding {
                    self.declare(name, *ty, false);
                }
                let e = self.ask_expr(ty, false);
                self.scopes.pop();
                if let Some(e) = e {
                    self.line(&format!("{pattern} => {e},"));
                    worst = worst.max(1);
                    continue;
                }
            }
            self.open(&format!("{pattern} => {{"));
            if let Some((name, ty)) = binding {
                self.declare(&name, ty, false);
            }
            worst = worst.max(self.arm(arm_budget, ty));
            self.close("}");
        }
        self.indent -= 1;
        self.line(if value.is_some() { "};" } else { "}" });
        used + worst
    }

    fn label(&mut self) -> Option<String> {
        if self.f.on("labels") && self.rng.chance(40) {
            Some(format!("'{}", self.fresh_name("l")))
        } else {
            None
        }
    }

    fn loop_stmt(&mut self, budget: u32, value: Option<(String, Ty)>) -> u32 {
        let iterations: u32 = 1 + self.rng.below(2) as u32;
        let guard = self.fresh_name("g");
        let label = self.label();
        let lab = label.as_ref().map(|l| format!("{l}: ")).unwrap_or_default();
        let mut kinds = Vec::new();
        if self.f.on("loop") {
            kinds.push(0);
        }
        if value.is_none() {
            if self.f.on("while") {
                kinds.push(1);
            }
            if self.f.on("while_let") {
                kinds.push(2);
            }
            if self.f.on("for_range") {
                kinds.push(3);
            }
            if self.f.on("for_vec") {
                kinds.push(4);
            }
        }
        if kinds.is_empty() {
            self.trace();
            return 0;
        }
        let mut kind = *self.rng.pick(&kinds);
        // With `moves`, a `Vec` of the current scope is often moved into a `for`.
        if self.f.on("moves")
            && kinds.contains(&4)
            && (!self.movable(Some(Ty::VecI64)).is_empty()
                || !self.movable(Some(Ty::Items)).is_empty())
            && self.rng.chance(50)
        {
            kind = 4;
        }
        let ctx = LoopCtx {
            label: label.clone(),
            value: value.as_ref().map(|(_, ty)| *ty),
            block: false,
            // The body is the next scope opened.
            body: self.scopes.len(),
        };
        // Each iteration may use body_budget rounds; a condition ask adds one per evaluation.
        let ask_cond = budget >= iterations + 2 && self.f.on("ask_cond") && self.rng.chance(30);
        match kind {
            0 => {
                self.line(&format!("let mut {guard} = 0u32;"));
                let body_budget = budget / iterations;
                let head = value.as_ref().map(|(h, _)| h.clone()).unwrap_or_default();
                self.open(&format!("{head}{lab}loop {{"));
                self.loops.push(ctx.clone());
                self.line(&format!("{guard} += 1;"));
                let exit = match ctx.value {
                    Some(ty) => {
                        let v = self.expr(ty, 1);
                        format!("break {v};")
                    }
                    None => "break;".to_owned(),
                };
                self.line(&format!("if {guard} > {iterations} {{ {exit} }}"));
                let used = self.stmts(body_budget, 4);
                self.loops.pop();
                self.close(if value.is_some() { "};" } else { "}" });
                used * iterations
            }
            1 => {
                self.line(&format!("let mut {guard} = 0u32;"));
                if ask_cond {
                    let body_budget = (budget - iterations - 1) / iterations;
                    let e = self.ask_expr(Ty::Bool, false).expect("bool ask");
                    self.open(&format!("{lab}while {e} {{"));
                    self.loops.push(ctx);
                    self.line(&format!("{guard} += 1;"));
                    self.line(&format!("if {guard} > {iterations} {{ break; }}"));
                    let used = self.stmts(body_budget, 4);
                    self.loops.pop();
                    self.close("}");
                    used * iterations + iterations + 1
                } else {
                    let body_budget = budget / iterations;
                    self.open(&format!("{lab}while {guard} < {iterations} {{"));
                    self.loops.push(ctx);
                    self.line(&format!("{guard} += 1;"));
                    let used = self.stmts(body_budget, 4);
                    self.loops.pop();
                    self.close("}");
                    used * iterations
                }
            }
            2 => {
                let name = self.name_for_pattern();
                if ask_cond {
                    self.line(&format!("let mut {guard} = 0u32;"));
                    let body_budget = (budget - iterations - 1) / iterations;
                    let e = self.ask_expr(Ty::AnsN, false).expect("answer ask");
                    // With `ask_positions`, a let chain: `.. = ask!(..) && n > 2`.
                    let chain = if self.f.on("ask_positions") && self.rng.chance(40) {
                        format!(" && {name} > {}", self.lit_i64())
                    } else {
                        String::new()
                    };
                    self.open(&format!(
                        "{lab}while let Answer::Accept(N {{ n: {name} }}) = {e}{chain} {{"
                    ));
                    self.declare(&name, Ty::I64, false);
                    self.loops.push(ctx);
                    self.line(&format!("{guard} += 1;"));
                    self.line(&format!("if {guard} > {iterations} {{ break; }}"));
                    let used = self.stmts(body_budget, 4);
                    self.loops.pop();
                    self.close("}");
                    used * iterations + iterations + 1
                } else {
                    let items: Vec<String> =
                        (0..iterations).map(|_| self.expr(Ty::I64, 1)).collect();
                    self.line(&format!(
                        "let mut {guard}: Vec<i64> = vec![{}];",
                        items.join(", ")
                    ));
                    let body_budget = budget / iterations;
                    self.open(&format!("{lab}while let Some({name}) = {guard}.pop() {{"));
                    self.declare(&name, Ty::I64, false);
                    self.loops.push(ctx);
                    let used = self.stmts(body_budget, 4);
                    self.loops.pop();
                    self.close("}");
                    used * iterations
                }
            }
            3 => {
                let name = self.name_for_pattern();
                let body_budget = budget / iterations;
                let spent = self.f.on("spent_range");
                let range = match self.rng.below(if spent { 5 } else { 3 }) {
                    0 => format!("0i64..{iterations}"),
                    1 => format!("1i64..={iterations}"),
                    // Advanced by `next()` before the loop; the second one is exhausted.
                    3 => format!("{{ let mut spent = 0i64..={iterations}; spent.next(); spent }}"),
                    4 => "{ let mut spent = 1i64..=1; spent.next(); spent }".to_owned(),
                    _ => {
                        let lo = self.expr(Ty::I64, 1);
                        let lo = format!("({lo}).rem_euclid(100)");
                        format!("{lo}..({lo} + {iterations})")
                    }
                };
                self.open(&format!("{lab}for {name} in {range} {{"));
                self.declare(&name, Ty::I64, false);
                self.loops.push(ctx);
                let used = self.stmts(body_budget, 4);
                self.loops.pop();
                self.close("}");
                used * iterations
            }
            _ => {
                let name = self.name_for_pattern();
                self.line(&format!("let mut {guard} = 0u32;"));
                let body_budget = budget / iterations;
                let items = match (
                    self.movable(Some(Ty::VecI64)).is_empty(),
                    self.movable(Some(Ty::Items)).is_empty(),
                ) {
                    (false, true) if self.f.on("moves") => false,
                    (true, false) if self.f.on("moves") => true,
                    _ => self.f.on("awkward") && self.rng.chance(50),
                };
                let ty = if items { Ty::Items } else { Ty::VecI64 };
                // With `moves`, often over a local of the current scope, moved into the loop.
                let owned = match self.movable(Some(ty)) {
                    vars if !vars.is_empty() && self.rng.chance(60) => {
                        let var = self.rng.pick(&vars).clone();
                        self.set_moved(&var.name, true);
                        Some(var.name)
                    }
                    _ => None,
                };
                let iterable = owned.unwrap_or_else(|| self.expr(ty, 0));
                let ty = items.then_some(Ty::Items);
                let pattern = if ty.is_some() && self.rng.chance(50) {
                    let m = self.name_for_pattern();
                    let m = if m == name { format!("{m}2") } else { m };
                    format!("Item {{ id: {name}, tag: {m} }}")
                } else if ty.is_some() {
                    format!("Item {{ id: {name}, .. }}")
                } else {
                    name.clone()
                };
                self.open(&format!("{lab}for {pattern} in {iterable} {{"));
                self.declare(&name, Ty::I64, false);
                if let Some(rest) = pattern
                    .strip_prefix("Item { id: ")
                    .and_then(|p| p.split(", tag: ").nth(1))
                {
                    let m = rest.trim_end_matches(" }").to_owned();
                    self.declare(&m, Ty::Char, false);
                }
                self.loops.push(ctx);
                self.line(&format!("{guard} += 1;"));
                self.line(&format!("if {guard} > {iterations} {{ break; }}"));
                let used = self.stmts(body_budget, 4);
                self.loops.pop();
                self.close("}");
                used * iterations
            }
        }
    }

    fn label_block(&mut self) -> u32 {
        let label = format!("'{}", self.fresh_name("blk"));
        let name = self.name_for_binding();
        let ty = self.random_ty();
        self.open(&format!("let {name}{} = {label}: {{", ty.annotation()));
        self.loops.push(LoopCtx {
            label: Some(label.clone()),
            value: Some(ty),
            block: true,
            body: self.scopes.len() - 1,
        });
        let c = self.expr(Ty::Bool, 1);
        let v = self.expr(ty, 1);
        self.line(&format!("if {c} {{ break {label} {v}; }}"));
        // No asks inside a labelled block (refused by design).
        self.stmts(0, 3);
        let v = self.expr(ty, 0);
        self.line(&v);
        self.loops.pop();
        self.close("};");
        self.declare(&name, ty, false);
        0
    }

    /// The whole body (without braces) and the number of `ask!` sites.
    pub fn body(mut self) -> (String, u32) {
        if self.f.on("items") {
            self.line("use std::fmt::Write as _;");
            self.line("const LIM: i64 = 3;");
        }
        if self.f.on("width_capture") {
            self.line("let wd: usize = 6;");
        }
        if self.f.on("user_macro") {
            self.line("macro_rules! twice { ($e:expr) => { ($e).wrapping_mul(2) }; }");
            self.line("macro_rules! note { ($e:expr) => { t(format!(\"M {:?}\", $e)); }; }");
        }
        let rounds = 2 + self.rng.below(7) as u32;
        let used = self.stmts(rounds, 3);
        let _ = self.stmts(rounds - used, 6);
        if self.f.on("items") && self.rng.chance(50) {
            self.line("let mut w_out = String::new();");
            self.line("write!(w_out, \"{}\", LIM).unwrap();");
            self.line("t(w_out);");
        }
        let end = self.result_format("end");
        self.line(&format!("Ok({end})"));
        (self.out, self.asks)
    }
}

/// One generated case.
pub struct Case {
    /// Its number.
    pub index: u64,
    /// Its seed (also the seed of its answer script).
    pub seed: u64,
    /// The body, without the braces.
    pub body: String,
}

/// Generates `count` bodies from `seed`.
pub fn cases(seed: u64, count: u64, features: &Features) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|index| {
            let case_seed = rng.next_u64();
            let (body, _) = Gen::new(case_seed, features).body();
            Case {
                index,
                seed: case_seed,
                body,
            }
        })
        .collect()
}

/// Cases from hand-written bodies separated by `// ----` lines (lines starting with `//!`
/// are comments); the answer scripts are seeded from `seed` and the case number.
pub fn written_cases(text: &str, seed: u64) -> Vec<Case> {
    text.split("\n// ----")
        .map(|body| {
            body.lines()
                .filter(|line| !line.starts_with("//!") && !line.starts_with("// ----"))
                .map(|line| format!("    {line}\n"))
                .collect::<String>()
        })
        .filter(|body| !body.trim().is_empty())
        .enumerate()
        .map(|(index, body)| Case {
            index: index as u64,
            seed: seed.wrapping_add(index as u64),
            body,
        })
        .collect()
}

/// The Rust source holding every case twice, a table of them, and their sources.
pub fn emit_cases(cases: &[Case], seed: u64, features: &Features) -> String {
    let mut plain = String::new();
    let mut tools = String::new();
    let mut table = String::new();
    for case in cases {
        let i = case.index;
        let _ = write!(
            plain,
            "pub async fn case_{i}() -> Result<String, ToolError> {{\n{}}}\n\n",
            case.body
        );
        let _ = write!(
            tools,
            "#[mrtr::tool]\npub async fn case_{i}() -> Result<String, ToolError> {{\n{}}}\n\n",
            case.body
        );
        let _ = writeln!(
            table,
            "    Case {{ index: {i}, seed: {}, source: {:?}, plain: |s| Box::pin(mrtr_differential::run_plain(s, plain::case_{i})), tool: |s| Box::pin(mrtr_differential::run_tool(s, tools::case_{i})) }},",
            case.seed, case.body
        );
    }
    format!(
        "/// The seed the cases were generated from.\npub const SEED: u64 = {seed};\n/// The enabled grammar features.\npub const FEATURES: &str = {:?};\n\n\
         #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]\npub mod plain {{\n    use mrtr::{{Answer, ToolError, elicit, recheck}};\n    use mrtr_differential::{{C, Guard, Inner, Item, Map, Marker, N, Order, Outer, Pair, check, eat, t}};\n    macro_rules! ask {{\n        ($key:ident = $q:expr) => {{ mrtr_differential::plain_ask($q) }};\n        ($($key:ident = $q:expr),+) => {{ ($(mrtr_differential::plain_ask($q)),+) }};\n        ($q:expr) => {{ mrtr_differential::plain_ask($q) }};\n    }}\n\n{plain}}}\n\n\
         #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]\npub mod tools {{\n    use mrtr::{{Answer, ToolError, elicit, recheck}};\n    use mrtr_differential::{{C, Guard, Inner, Item, Map, Marker, N, Order, Outer, Pair, check, eat, t}};\n\n{tools}}}\n\n\
         /// Every case.\npub static CASES: &[Case] = &[\n{table}];\n",
        features.list()
    )
}
