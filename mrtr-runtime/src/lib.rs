//! Runtime of [mrtr](https://docs.rs/mrtr): everything the `#[mrtr::tool]` macro's generated
//! code relies on, and the building blocks for hosts and advanced users.
//!
//! * [`token`]: the sealed `requestState` (AEAD or HMAC, key ring, bindings, claims).
//! * [`elicit`], [`sample`], [`roots`], [`recheck`], [`handoff`]: typed questions (and the
//!   hand-off point where a tool goes on as a [`task`]); [`Answer`] and [`Reply`]:
//!   their answers; [`form`]: the restricted elicitation schema and its validation.
//! * [`Context`]: what a tool sees of its round; [`Server`]'s builder registers tools.
//! * [`machine`]: [`Machine`](machine::Machine) and its descriptors, what the attributes
//!   generate and a hand-written multi-round handler implements, with the host-level types a
//!   round is made of (steps, suspensions, frames, questions). An author of attribute tools
//!   never names them.
//! * [`Server`]: a framework-agnostic MCP 2026-07-28 server running those machines;
//!   [`legacy`]: the same machines for 2025-11-25 clients, run in process over their session.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod answer;
mod author;
mod bytes;
mod capabilities;
mod driver;
mod engine;
pub mod form;
mod kept;
pub mod legacy;
pub mod machine;
mod param_headers;
pub mod protocol;
#[cfg(feature = "rmcp")]
pub mod rmcp;
mod server;
mod single_use;
mod state;
pub mod task;
mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod token;
mod uri_template;

pub use answer::{Answer, FromAnswer, NotAccepted, Reply, Root, SampledMessage};
pub use author::ask::{Ask, SamplingRequest, elicit, recheck, roots, sample};
pub use author::completion::{
    Complete, Completion, CompletionRequest, CompletionTarget, MAX_COMPLETION_VALUES,
};
pub use author::content;
pub use author::context::{Access, AppState, Authorize, BoxFuture, Context, Denied};
pub use author::error::ToolError;
pub use author::results::{
    CallToolResult, Json, PromptMessage, PromptOutput, ResourceContents, ResourceOutput, ToolOutput,
};
pub use capabilities::{ClientCapabilities, InputKind};
pub use form::{AnswerError, Choice, ChoiceOption, Form, FormField, FormSchema};
pub use legacy::LegacyOptions;
pub use machine::{CacheHint, CacheScope};
pub use mrtr_uri_template::{TemplateError, TemplateErrorKind};
pub use protocol::RpcError;
pub use server::{
    BuildError, DEFAULT_MAX_ROUNDS, MAX_LISTENED_TASKS, Server, ServerBuilder, ServerInfo,
    TaskListener,
};
#[cfg(feature = "redis")]
pub use single_use::RedisStore;
pub use single_use::{MemoryStore, Redemption, ReplayStore, ReplayStoreError};
pub use task::{TaskOptions, TaskSupport, handoff};
pub use uri_template::UriTemplate;

/// The `ask!` points of a `#[mrtr::tool]` body are rewritten by the attribute; an `ask!` that
/// reaches this macro was not (it sits inside another macro's arguments, or outside a tool).
#[macro_export]
macro_rules! ask {
    ($($anything:tt)*) => {
        ::core::compile_error!(
            "ask! can only be used directly in the body of a #[mrtr::tool] function, not inside \
             another macro's arguments (println!, vec!, ..) or outside a tool; bind the answer \
             first: `let answer = ask!(..);`"
        )
    };
}

/// What generated code names. Not part of the public API: no stability guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::ask;
    pub use crate::author::context::{BoxFuture, Context};
    pub use crate::capabilities::InputKind;
    pub use crate::driver::{
        BreakInsideAnotherMacroCannotLeaveALoopThatAsks, Channel,
        ContinueInsideAnotherMacroCannotReachALoopThatAsks, Ended, IntoLoopState, Kept, LoopCursor,
        LoopState, QuestionMark, RangeIndex, RangeState, Remaining, answer, answer_type,
        answer_type_of, arguments, body, check_kept_types, drive, fail, finish_prompt,
        finish_resource, finish_tool, frame_as_json, keep, kept_types, kept_types_once, loop_state,
        restore, reuse_arguments, suspend, type_of, unlowered, unslot, versioned_fingerprint,
    };
    pub use crate::form::{AnswerError, Choice, ChoiceOption, Form, FormField, FormSchema};
    pub use crate::machine::{
        Answers, CacheHint, CacheScope, Generated, Machine, Outcome, Prompt, PromptArgument,
        PromptDescriptor, Resource, ResourceDescriptor, ResumePoint, Step, StepError, Suspension,
        Tool, ToolDescriptor,
    };
    pub use crate::state::frame::Frame;
    pub use crate::task::TaskSupport;
    #[cfg(feature = "testing")]
    pub use crate::testing::round_trip::check_kept_round_trip;
    pub use crate::token::Fingerprint;

    /// Without the `testing` feature, restored kept values are not encoded again.
    #[cfg(not(feature = "testing"))]
    #[inline(always)]
    pub fn check_kept_round_trip<T>(_: &Frame, _: &str, _: &Option<T>) {}
    pub use schemars;
    pub use serde_json::{Map, Value};

    /// The JSON Schema of a tool's argument type, as `tools/list` shows it.
    pub fn input_schema<T: schemars::JsonSchema>() -> Value {
        serde_json::to_value(schemars::schema_for!(T))
            .unwrap_or_else(|_| serde_json::json!({"type": "object"}))
    }

    /// A prompt's arguments, read from the JSON Schema of its argument struct: each property
    /// is a (string) argument, required if the schema requires it.
    pub fn prompt_arguments<T: schemars::JsonSchema>() -> Vec<PromptArgument> {
        let schema = input_schema::<T>();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        schema["properties"]
            .as_object()
            .map(|properties| {
                properties
                    .iter()
                    .map(|(name, property)| PromptArgument {
                        name: name.clone(),
                        description: property["description"].as_str().map(str::to_owned),
                        required: required.contains(&name.as_str()),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The argument schema of a tool without arguments.
    pub fn no_arguments_schema() -> Value {
        serde_json::json!({"type": "object", "properties": {}})
    }
}
