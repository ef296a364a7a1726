//! The lowered machine: blocks of nodes, the ask sites that end blocks, and the bindings the
//! body declares. The lowering builds it, liveness reads it, emission turns it into code.
//!
//! The lowering resolves every name as the author's source does and records, wherever emission
//! must name a binding (the start of a block, a jump, a suspension, a `let` that hides one),
//! which binding each name refers to there. Emission never guesses from identifiers.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Span, TokenStream};
use syn::Expr;

use super::scope::{Binding, BindingId, Read, Visible};

pub(crate) type BlockId = usize;
pub(crate) type SiteId = usize;
pub(crate) type HoleId = usize;

/// Author's code copied as written, with holes where a `break`/`continue` leaves a loop that
/// the lowering took apart (each hole is an [`Exit`] in [`Program::holes`]).
#[derive(Clone, Default)]
pub(crate) struct Code {
    pub(crate) tokens: TokenStream,
    pub(crate) holes: Vec<HoleId>,
    /// The bindings the code uses (recorded for the author's statements).
    pub(crate) uses: BTreeSet<BindingId>,
    /// How it reads them, in source order.
    pub(crate) reads: Vec<Read>,
}

/// A piece of a block.
pub(crate) enum Node {
    /// A statement (or glue) that declares no name.
    Stmt(Code),
    /// `let PAT = INIT [else ..];`: declares the bindings of its pattern after evaluating INIT.
    Let {
        attrs: TokenStream,
        pat: TokenStream,
        init: Code,
        diverge: Option<Code>,
        declares: Vec<BindingId>,
        /// Bindings of enclosing scopes this `let` hides. One the machine still needs is saved
        /// just before it is hidden, after the initializer (which may read it) ran.
        hides: Vec<BindingId>,
        /// What the code after it reads, or the blocks it may go to need
        /// (`plan::note_needs`).
        needed_after: BTreeSet<BindingId>,
    },
    /// Save what the target block needs and go there.
    Jump { target: BlockId, visible: Visible },
    /// Ask the site's questions and end the step.
    Suspend { site: SiteId, visible: Visible },
    /// A construct that asks, started in this block: its arms are emitted in place.
    Branch(Branch),
    /// The value an arm of an in-place construct hands to the code after the construct.
    Tail(Code),
}

/// An `if`, a `match` or a plain block that asks, whose arms are emitted in place. An arm
/// that completes in this block hands its value out (`Node::Tail`), and the construct's
/// destination receives it after the construct, where the author's scopes have closed again.
pub(crate) struct Branch {
    pub(crate) shape: BranchShape,
    pub(crate) arms: Vec<Arm>,
    /// Where the value of an arm that completes in place goes.
    pub(crate) dest: Flow,
    /// The names its head declares (an `if`'s condition, a `match`'s scrutinee, its arms'
    /// patterns and guards); an arm's body declares [`Arm::declared_names`].
    pub(crate) head_names: BTreeSet<String>,
    /// The names in force around the construct (where its value is delivered).
    pub(crate) visible: Visible,
    /// What the code after the construct reads, or the blocks it may go to need
    /// (`plan::note_needs`).
    pub(crate) needed_after: BTreeSet<BindingId>,
    /// That, and what the arms read or may go to.
    pub(crate) needed: BTreeSet<BindingId>,
}

pub(crate) enum BranchShape {
    /// `if COND {arms[0]} else {arms[1]}`, or `if let PATTERN = COND ..` when `pattern` is
    /// set; `if let` bindings are declared by `arms[0]`.
    If {
        pattern: Option<TokenStream>,
        cond: Code,
    },
    /// `match SCRUTINEE { HEAD => arm, .. }`, a head per arm.
    Match { scrutinee: Code, heads: Vec<Code> },
    /// `{ arms[0] }`.
    Block,
}

/// An arm: the bindings its head declares (pattern, `if let`), then its nodes.
pub(crate) struct Arm {
    pub(crate) declares: Vec<BindingId>,
    /// Bindings of enclosing scopes the head's pattern hides inside the arm.
    pub(crate) hides: Vec<BindingId>,
    pub(crate) nodes: Vec<Node>,
    /// The names its body declares anywhere.
    pub(crate) declared_names: BTreeSet<String>,
}

/// What happens to the value an arm hands out in place.
///
/// The join is a block of its own only where an arm completes in another block (after an ask
/// it does not diverge from). Without one, the code after the construct goes on in the block
/// where the construct started, as in the source: nothing in force there crosses a step.
#[derive(Clone, Copy)]
pub(crate) enum Flow {
    /// Discarded, then a jump to the join block if there is one.
    Discard(Option<BlockId>),
    /// Bound to a synthetic binding, then a jump to the join block if there is one.
    Value(BindingId, Option<BlockId>),
    /// Returned from the body.
    Return,
    /// The construct is itself the value of an enclosing arm kept in place.
    Tail,
}

impl Flow {
    /// The join block the code after the construct goes on in, if it has one.
    pub(crate) fn join(self) -> Option<BlockId> {
        match self {
            Flow::Discard(join) | Flow::Value(_, join) => join,
            Flow::Return | Flow::Tail => None,
        }
    }
}

/// A jump out of a taken-apart loop from inside the author's code: `break` (with the binding
/// that receives its value, if the loop has one) or `continue`.
pub(crate) struct Exit {
    pub(crate) target: BlockId,
    pub(crate) value: Option<(Option<BindingId>, Option<TokenStream>)>,
    /// The names in force at the jump, the author's own inner bindings removed.
    pub(crate) visible: Visible,
    /// The names the author's code re-binds around the jump: a kept value hidden by one of
    /// them cannot be saved there.
    pub(crate) hidden: BTreeSet<String>,
}

/// A block of the machine (one `pc`).
#[derive(Default)]
pub(crate) struct Block {
    pub(crate) nodes: Vec<Node>,
    pub(crate) declared: BTreeSet<BindingId>,
    pub(crate) used: BTreeSet<BindingId>,
    /// Bindings the block gives a new value (`x = ..;`) before it reads them, each with the
    /// blocks the code before that assignment may leave to (a `break`/`continue`, or an arm of
    /// a construct kept in place that asks or jumps). The value a binding had on entry (it may
    /// have been moved away) is needed only if one of those blocks needs it.
    pub(crate) assigned_first: BTreeMap<BindingId, BTreeSet<BlockId>>,
    pub(crate) successors: BTreeSet<BlockId>,
    /// The names in force where the block starts.
    pub(crate) entry: Visible,
    /// Position of the block's first statement in the source, for emission in source order.
    pub(crate) source_order: usize,
}

/// One `ask!`: its questions (key, key span, request) and where the machine resumes.
pub(crate) struct Site {
    pub(crate) questions: Vec<(String, Span, Expr)>,
    /// The bindings its questions read, before the step ends, and how.
    pub(crate) uses: BTreeSet<BindingId>,
    pub(crate) reads: Vec<Read>,
    pub(crate) resume: BlockId,
    /// The constructs around the ask, outermost first (`if`, `else`, `match PATTERN`, `loop`,
    /// `while`, `for`): with the keys, what identifies the resume point across builds.
    pub(crate) path: Vec<String>,
}

/// The lowered machine.
pub(crate) struct Program {
    pub(crate) blocks: Vec<Block>,
    pub(crate) sites: Vec<Site>,
    pub(crate) bindings: Vec<Binding>,
    pub(crate) holes: Vec<Exit>,
    /// Items declared in the body (`use`, `fn`, `const`, `macro_rules!`, ..): emitted once
    /// before the machine, so every block sees them as every statement of the body did.
    pub(crate) items: Vec<TokenStream>,
    /// The calls of other macros inside loops that ask that carry a guard (see
    /// `lower::guard_ident`): a `continue` hidden in one of them fails to compile there.
    pub(crate) guards: Vec<Span>,
    /// The body's string literals, sorted: a kept `&'static str` equal to one is restored as
    /// that literal.
    pub(crate) literals: Vec<String>,
    /// Identifiers a statement macro receives in a binding position (`bind!(v = 1)`) that
    /// name a binding of an enclosing scope: the macro may declare a new one that hides it
    /// until the scope ends, invisibly to the machine. Refused where that binding is kept.
    pub(crate) macro_binds: Vec<(Ident, String, BindingId)>,
    /// What the lowering met and could not take apart, each at the author's tokens
    /// (`check::unlowerable` says why, and the way out).
    pub(crate) unlowerable: Vec<Unlowerable>,
}

/// Author's code the lowering cannot take apart. Recorded where it is met; `check` reports it
/// with the other refusals, before anything is emitted.
pub(crate) enum Unlowerable {
    /// An `ask!(..)` whose tokens do not parse (the parser's own message).
    MalformedAsk(syn::Error),
    /// A question of an unbound `ask!` without a key: its request.
    AskWithoutKey(TokenStream),
    /// An `ask!` that its statement does not evaluate first.
    AskNotEvaluatedFirst(Span),
    /// A second `ask!` in a statement whose first is evaluated in place.
    SecondAskInPlace(Span),
    /// An `ask!` in a labelled block: its label.
    AskInLabeledBlock(TokenStream),
    /// An `ask!` in an `unsafe` block: the keyword.
    AskInUnsafeBlock(TokenStream),
    /// An `ask!` in an expression the lowering does not take apart.
    AskInThisPosition(TokenStream),
    /// An item in a nested block that asks: its name.
    ItemInABlockThatAsks(TokenStream),
    /// A second `macro_rules!` of the same name in the body.
    MacroDefinedTwice(Ident),
    /// A body `macro_rules!` that reads a local.
    MacroReadsALocal { name: Ident, local: Ident },
    /// A `break`/`continue` in another macro's tokens inside a loop that asks.
    JumpInsideAnotherMacro {
        at: Span,
        jump: String,
        name: String,
    },
}
