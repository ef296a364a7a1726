//! The resumable machine: what `#[mrtr::tool]` (and `#[mrtr::prompt]`, `#[mrtr::resource]`)
//! generate, and what a hand-written multi-round handler implements. An author of attribute
//! tools never names these types; a host or a hand-written machine does.
//!
//! A machine is a program counter plus a frame of kept values. The engine calls
//! [`Machine::step`] with the pc and frame from the verified state and the answers that count
//! for the question pending there; the machine runs its code up to the next suspension and
//! returns the new pc, frame and questions, or its final result. Code between two suspensions
//! therefore runs once per accepted state. The questions a suspension asks are
//! [`InputRequest`]s (`input.rs`).

pub(crate) mod input;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::answer::FromAnswer;
use crate::author::ask::Ask;
use crate::author::context::{BoxFuture, Context};
use crate::capabilities::InputKind;
pub use crate::state::Frame;
use crate::task::TaskSupport;
use crate::token::Fingerprint;
pub use input::InputRequest;

/// A resumable computation driven one round at a time by the engine.
pub trait Machine: Send + Sync + 'static {
    /// Identifies the machine's code generation; a state minted by another generation is
    /// refused. Generated machines use [`Fingerprint::of_version`], so only an explicit
    /// `version` bump changes it; edits are checked per resume point instead.
    fn fingerprint(&self) -> Fingerprint;

    /// The resume points and what identifies each across builds. A state names its resume
    /// point by [`ResumePoint::id`], so a state minted by an earlier build resumes wherever the
    /// same point still exists, at whatever pc it now has. Generated machines list every `ask!`;
    /// a hand-written machine may return none, and its states then name the pc itself.
    fn resume_points(&self) -> &'static [ResumePoint] {
        &[]
    }

    /// Runs from `step.pc` to the next suspension or to the end. `pc` 0 is the start, with an
    /// empty frame and no answers.
    fn step<'a>(&'a self, step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>>;

    /// The machine's flow as Mermaid flowchart text: its start, each ask (keys and kinds), its
    /// end, and which can follow which. `#[mrtr::tool]`, `#[mrtr::prompt]` and
    /// `#[mrtr::resource]` provide it (and draw it in the function's rustdoc); `None` for a
    /// hand-written machine.
    fn flowchart(&self) -> Option<&'static str> {
        None
    }

    /// The `requestedSchema` of each form the machine asks by type (`elicit::form::<T>`).
    /// A server registers them when it is built; a state waiting at one of these forms then
    /// names it by an id derived from the schema instead of carrying it. `#[mrtr::tool]`,
    /// `#[mrtr::prompt]` and `#[mrtr::resource]` list the forms their `ask!`s name with a
    /// turbofish; a form missing here is carried whole, as before.
    fn known_forms(&self) -> Vec<Value> {
        Vec::new()
    }
}

/// The input of one [`Machine::step`].
#[derive(Debug)]
pub struct Step<'a> {
    /// The tool or prompt name, or the resource URI, of this request.
    pub target: &'a str,
    /// The request's arguments (an object; `{}` when absent; for a resource, the variables of
    /// its URI template).
    pub arguments: &'a Value,
    /// This round's context.
    pub cx: &'a Context,
    /// Where to resume: 0 at the start, otherwise a pc returned in a [`Suspension`].
    pub pc: u32,
    /// The kept values returned with that suspension (empty at the start).
    pub frame: Frame,
    /// The [`Suspension::kept_types`] the state was minted with (0 at the start): the machine
    /// checks it against what this build keeps at `pc` before it decodes the frame.
    pub kept_types: u32,
    /// The validated answers to the questions asked at that suspension.
    pub answers: Answers,
}

/// How a step ended.
#[derive(Debug)]
pub enum Outcome {
    /// The final result (for a tool a `CallToolResult`, for a prompt a `GetPromptResult`, for a
    /// resource a `ReadResourceResult`), without `resultType`, which the engine adds.
    Complete(Value),
    /// The author's code failed; for a tool this becomes a result with `isError: true`.
    Failed(String),
    /// The machine needs answers (or, with no questions, just another round).
    Suspend(Suspension),
}

/// A suspension point reached: where to resume, what to keep, what to ask.
#[derive(Debug)]
pub struct Suspension {
    /// The pc to resume at.
    pub pc: u32,
    /// The kept values.
    pub frame: Frame,
    /// A signature of the kept values' names and types and of the answers' types at this
    /// point (a hash the generated code computes from `std::any::type_name`), carried in the state so that
    /// another build resumes only if it keeps and expects exactly the same. 0 for none.
    pub kept_types: u32,
    /// The questions of this round by key; empty for a state-only round.
    pub questions: Vec<(String, InputRequest)>,
    /// The tool reached its hand-off point (`ask!(handoff())`): what follows runs as a task
    /// for a client that declared the tasks extension, and at once for any other.
    pub handoff: bool,
}

/// A resume point of a machine: where a state can resume, and how a state names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumePoint {
    /// Where the machine resumes in this build.
    pub pc: u32,
    /// What the state carries: a hash of the point's place in the source's structure (its ask
    /// keys and the constructs around it), the same in every build where the point exists.
    pub id: u32,
    /// The point for people: its ask keys and the constructs around it.
    pub label: &'static str,
}

impl Suspension {
    /// A suspension with no questions yet, keeping `frame` (a [`Frame`], or a hand-written
    /// machine's JSON value: `Null` keeps nothing).
    pub fn new(pc: u32, frame: impl Into<Frame>) -> Self {
        Self {
            pc,
            frame: frame.into(),
            kept_types: 0,
            questions: Vec::new(),
            handoff: false,
        }
    }

    /// Sets the signature of what this point keeps and expects (see
    /// [`Suspension::kept_types`](Suspension#structfield.kept_types)).
    #[must_use]
    pub fn keeping(mut self, kept_types: u32) -> Self {
        self.kept_types = kept_types;
        self
    }

    /// Adds `ask` under `key` (a state-only [`recheck`](crate::recheck) adds nothing). A
    /// select not named with [`Ask::field`] takes `key` as its property's name.
    pub fn ask<A>(mut self, key: impl Into<String>, ask: Ask<A>) -> Self {
        let key = key.into();
        self.handoff |= ask.is_handoff();
        if let Some(request) = ask.into_request_for(&key) {
            self.questions.push((key, request));
        }
        self
    }
}

/// Why a step could not run. These are never the user's answers' fault (invalid answers are
/// asked again before the machine runs).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    /// The request's arguments do not fit the machine's argument type.
    #[error("invalid arguments: {0}")]
    Arguments(String),
    /// The kept values of the state do not decode (refused like any invalid state).
    #[error("the kept values do not decode: {0}")]
    Frame(String),
    /// The state was minted by a build that keeps other values, or expects other answers, at
    /// this resume point (refused like any invalid state).
    #[error("{0}")]
    Changed(String),
    /// A validated answer does not decode into the type the machine expects: the question's
    /// schema and its Rust type disagree.
    #[error("the answer to `{key}` does not decode: {reason}")]
    Answer {
        /// The question's key.
        key: String,
        /// The decoding error.
        reason: String,
    },
    /// A pc the machine does not have, or another fault of the machine itself.
    #[error("{0}")]
    Internal(String),
}

/// The answers that count for the suspension being resumed, validated against the questions
/// that were sent.
#[derive(Debug, Default)]
pub struct Answers {
    values: BTreeMap<String, Value>,
}

impl Answers {
    pub(crate) fn new(values: BTreeMap<String, Value>) -> Self {
        Self { values }
    }

    /// Takes the answer to `key` as `A`. Each answer can be taken once.
    pub fn take<A: FromAnswer>(&mut self, key: &str) -> Result<A, StepError> {
        if A::OPTIONAL && !self.values.contains_key(key) {
            return A::from_answer(&Value::Null).map_err(|error| StepError::Answer {
                key: key.to_owned(),
                reason: error.to_string(),
            });
        }
        let value = self.values.remove(key).ok_or_else(|| StepError::Answer {
            key: key.to_owned(),
            reason: "no answer for this key at this resume point".to_owned(),
        })?;
        A::from_answer(&value).map_err(|error| StepError::Answer {
            key: key.to_owned(),
            reason: error.to_string(),
        })
    }

    /// Whether no answer is left.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// How a client may cache a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheHint {
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Whether the result may be shared across users.
    pub scope: CacheScope,
}

/// `cacheScope` of a cacheable result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheScope {
    /// May be shared across users.
    Public,
    /// Only for the requesting authorization context.
    Private,
}

impl CacheScope {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}

impl CacheHint {
    /// Not cacheable: `ttlMs: 0`, `cacheScope: "private"` (what results of a retry carry).
    pub const NONE: CacheHint = CacheHint {
        ttl_ms: 0,
        scope: CacheScope::Private,
    };
}

/// How a tool is listed and run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ToolDescriptor {
    /// The tool's name.
    pub name: String,
    /// A display title.
    pub title: Option<String>,
    /// What the tool does (from the doc comment).
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// The kinds of question the tool may ask.
    pub asks: Vec<InputKind>,
    /// Most `input_required` rounds before the flow ends with an error (default: the server's).
    pub max_rounds: Option<u32>,
    /// Each state may be redeemed once.
    pub single_use: bool,
    /// Whether the tool runs as a task for clients that declared the tasks extension
    /// (`tools/list`'s `execution.taskSupport`).
    pub task: TaskSupport,
    /// The body has a hand-off point (`ask!(handoff())`). A task-capable tool without one
    /// hands off at the start of its body.
    pub hands_off: bool,
}

impl ToolDescriptor {
    /// A descriptor with only a name and an argument schema.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            asks: Vec::new(),
            max_rounds: None,
            single_use: false,
            task: TaskSupport::Forbidden,
            hands_off: false,
        }
    }

    /// Sets the tool's task support; `hands_off` says whether its body has an
    /// `ask!(handoff())` (without one, the whole body runs as the task).
    pub fn task(mut self, support: TaskSupport, hands_off: bool) -> Self {
        self.task = support;
        self.hands_off = hands_off;
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the round cap.
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.max_rounds = Some(rounds);
        self
    }

    /// Declares the kinds of question the tool may ask.
    pub fn asks(mut self, kinds: impl IntoIterator<Item = InputKind>) -> Self {
        self.asks = kinds.into_iter().collect();
        self
    }
}

/// A tool: a machine with a descriptor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "did you forget `#[mrtr::tool]`?",
    note = "`#[mrtr::tool]` on an `async fn` makes it one; register that function by its name: \
            `.tool(name)`"
)]
pub trait Tool: Machine {
    /// How the tool is listed and run.
    fn descriptor(&self) -> ToolDescriptor;
}

/// One argument of a prompt.
#[derive(Clone, Debug)]
pub struct PromptArgument {
    /// The argument's name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Whether the client must send it.
    pub required: bool,
}

/// How a prompt is listed and run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PromptDescriptor {
    /// The prompt's name.
    pub name: String,
    /// A display title.
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// Its (string) arguments.
    pub arguments: Vec<PromptArgument>,
    /// Round cap (default: the server's).
    pub max_rounds: Option<u32>,
}

impl PromptDescriptor {
    /// A descriptor with a name and no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            max_rounds: None,
        }
    }
}

/// A prompt: a machine with a descriptor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt",
    label = "did you forget `#[mrtr::prompt]`?",
    note = "`#[mrtr::prompt]` on an `async fn` makes it one; register that function by its name: \
            `.prompt(name)`"
)]
pub trait Prompt: Machine {
    /// How the prompt is listed and run.
    fn descriptor(&self) -> PromptDescriptor;
}

/// How a resource template is listed and read.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ResourceDescriptor {
    /// The RFC 6570 level-1 template, e.g. `notes://{owner}/{id}`.
    pub uri_template: String,
    /// The template's name.
    pub name: String,
    /// A display title.
    pub title: Option<String>,
    /// What the resources are.
    pub description: Option<String>,
    /// MIME type of the contents.
    pub mime_type: Option<String>,
    /// Cache hint of a read that carried no retry fields.
    pub cache: CacheHint,
    /// Round cap (default: the server's).
    pub max_rounds: Option<u32>,
}

impl ResourceDescriptor {
    /// Whether the URI template names one resource (it has no `{expression}`). Such a
    /// resource is listed by `resources/list`; the others by `resources/templates/list`.
    pub fn is_concrete(&self) -> bool {
        !self.uri_template.contains('{')
    }

    /// A descriptor for `uri_template`, not cacheable by default.
    pub fn new(name: impl Into<String>, uri_template: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            cache: CacheHint::NONE,
            max_rounds: None,
        }
    }
}

/// A resource template whose reads may ask: a machine with a descriptor. The machine's
/// arguments are the template's variables, taken from the URI.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource template",
    label = "did you forget `#[mrtr::resource]`?",
    note = "`#[mrtr::resource]` on an `async fn` makes it one; register that function by its name: \
            `.resource(name)`"
)]
pub trait Resource: Machine {
    /// How the template is listed and read.
    fn descriptor(&self) -> ResourceDescriptor;
}

// `#[mrtr::tool] async fn order(..)` leaves a function `order` that returns the machine, so a
// local named `order` inside the body is an ordinary binding (a unit value named `order` would
// turn it into a pattern). These impls let the function itself be registered: `.tool(order)`.

/// A machine that `#[mrtr::tool]`, `#[mrtr::prompt]` or `#[mrtr::resource]` made: what the
/// function they leave returns. The impls below take only such functions, so that registering
/// an `async fn` without the attribute is reported as that, not as a missing `Fn()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a machine made by `#[mrtr::tool]`, `#[mrtr::prompt]` or \
               `#[mrtr::resource]`",
    label = "did you forget `#[mrtr::tool]`?",
    note = "the attribute on an `async fn` makes it a tool (a prompt, a resource template); \
            register that function by its name: `.tool(name)`"
)]
pub trait Generated: Machine {
    /// The descriptor of the machine's kind.
    type Descriptor;
    /// The machine's descriptor.
    fn describe(&self) -> Self::Descriptor;
}

impl<F, M> Machine for F
where
    F: Fn() -> M + Send + Sync + 'static,
    M: Generated,
{
    fn fingerprint(&self) -> Fingerprint {
        self().fingerprint()
    }

    fn resume_points(&self) -> &'static [ResumePoint] {
        self().resume_points()
    }

    fn step<'a>(&'a self, step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        let machine = self();
        Box::pin(async move { machine.step(step).await })
    }

    fn flowchart(&self) -> Option<&'static str> {
        self().flowchart()
    }

    fn known_forms(&self) -> Vec<Value> {
        self().known_forms()
    }
}

impl<F, M> Tool for F
where
    F: Fn() -> M + Send + Sync + 'static,
    M: Generated<Descriptor = ToolDescriptor>,
{
    fn descriptor(&self) -> ToolDescriptor {
        self().describe()
    }
}

impl<F, M> Prompt for F
where
    F: Fn() -> M + Send + Sync + 'static,
    M: Generated<Descriptor = PromptDescriptor>,
{
    fn descriptor(&self) -> PromptDescriptor {
        self().describe()
    }
}

impl<F, M> Resource for F
where
    F: Fn() -> M + Send + Sync + 'static,
    M: Generated<Descriptor = ResourceDescriptor>,
{
    fn descriptor(&self) -> ResourceDescriptor {
        self().describe()
    }
}
