//! Round spans in OpenTelemetry's semantic conventions for MCP, so that a
//! `tracing-opentelemetry` layer exports each round as an MCP server span.
//!
//! A round's span is named `mrtr.round` for `tracing` and `{mcp.method.name} {target}` for
//! OpenTelemetry (`otel.name`), has kind server, and carries `mcp.method.name`,
//! `mcp.protocol.version` (from `_meta`), `jsonrpc.request.id`, its target under
//! `gen_ai.tool.name`, `gen_ai.prompt.name` or `mcp.resource.uri`, and, when the round fails,
//! `error.type` (`tool_error`, or the JSON-RPC code) and `rpc.response.status_code`. mrtr's own
//! fields sit under `mrtr.`: the round number, the flow id, the resume point, the outcome, the
//! keys asked, the reason of a refusal and the duration. Each round also emits an event carrying
//! the `mcp.server.operation.duration` histogram (seconds), which `tracing-opentelemetry`'s
//! metrics layer records (target `mrtr::metrics`, level DEBUG).
//!
//! With the `opentelemetry` feature a round also continues the W3C `traceparent` of its
//! `params._meta`, and links to a span context named by its flow id (see `otel.rs`).

#[cfg(feature = "opentelemetry")]
mod otel;
mod traceparent;

use std::fmt;
use std::time::Instant;

use serde_json::{Map, Value};
use tracing::Span;
use tracing::field::Empty;

use crate::protocol::META_PROTOCOL_VERSION;
use crate::token::Flow;

/// What a host knows of a request besides its params: its JSON-RPC id and its `_meta`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RequestTrace<'a> {
    pub(crate) id: Option<JsonRpcId<'a>>,
    pub(crate) meta: Option<&'a Map<String, Value>>,
}

/// A JSON-RPC request id, borrowed from whichever type the host parsed it into.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JsonRpcId<'a> {
    Number(i64),
    Text(&'a str),
}

impl<'a> JsonRpcId<'a> {
    /// The id of a request parsed as JSON (a number or a string; anything else is not an id).
    pub(crate) fn of(id: &'a Value) -> Option<Self> {
        match id {
            Value::Number(number) => number.as_i64().map(Self::Number),
            Value::String(text) => Some(Self::Text(text)),
            _ => None,
        }
    }
}

#[cfg(feature = "rmcp")]
impl<'a> JsonRpcId<'a> {
    /// The id of a request rmcp parsed.
    pub(crate) fn of_rmcp(id: &'a rmcp::model::RequestId) -> Self {
        match id {
            rmcp::model::NumberOrString::Number(number) => Self::Number(*number),
            rmcp::model::NumberOrString::String(text) => Self::Text(text),
        }
    }
}

impl fmt::Display for JsonRpcId<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(number) => number.fmt(formatter),
            Self::Text(text) => text.fmt(formatter),
        }
    }
}

/// How a round ended, as its span and its duration metric report it.
pub(crate) struct Ending {
    /// `complete`, `input_required`, `tool_error`, `refused` or `task`.
    pub(crate) outcome: &'static str,
    /// The keys asked, comma-separated, when the round asks.
    pub(crate) keys: Option<String>,
    /// Why the round was refused or failed.
    pub(crate) reason: Option<String>,
    /// `error.type`: `tool_error`, or the JSON-RPC error code.
    pub(crate) error: Option<ErrorType>,
}

/// OpenTelemetry's `error.type` of a round.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ErrorType {
    /// The result carried `isError: true`.
    ToolError,
    /// The request was answered with a JSON-RPC error of this code.
    JsonRpc(i64),
}

/// A round's span, open from the request to the reply.
pub(crate) struct OpenSpan {
    span: Span,
    started: Instant,
    method: &'static str,
}

impl OpenSpan {
    /// Opens the span of a `method` round on `target` (the tool or prompt name, or the resource
    /// URI).
    pub(crate) fn open(method: &'static str, target: &str, request: RequestTrace<'_>) -> Self {
        let span = tracing::info_span!(
            target: "mrtr::round",
            "mrtr.round",
            otel.name = %format_args!("{method} {target}"),
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = method,
            mcp.protocol.version = Empty,
            jsonrpc.request.id = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            mcp.resource.uri = Empty,
            error.type = Empty,
            rpc.response.status_code = Empty,
            mrtr.round = Empty,
            mrtr.flow = Empty,
            mrtr.resume = Empty,
            mrtr.outcome = Empty,
            mrtr.keys = Empty,
            mrtr.reason = Empty,
            mrtr.duration_us = Empty,
        );
        if !span.is_disabled() {
            describe_target(&span, method, target);
            describe_request(&span, request);
        }
        Self {
            span,
            started: Instant::now(),
            method,
        }
    }

    /// The span, to run the round in.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Records how the round ended on the span, and its duration as the
    /// `mcp.server.operation.duration` metric. `ending` runs only when a subscriber listens to
    /// either: with no one listening a round pays nothing for the keys and reasons.
    pub(crate) fn close(self, ending: impl FnOnce() -> Ending) {
        let span = &self.span;
        let metered = tracing::enabled!(target: "mrtr::metrics", tracing::Level::DEBUG);
        if span.is_disabled() && !metered {
            return;
        }
        let elapsed = self.started.elapsed();
        let ended = ending();
        if !span.is_disabled() {
            span.record("mrtr.outcome", ended.outcome);
            span.record("mrtr.duration_us", elapsed.as_micros() as u64);
            if let Some(keys) = &ended.keys {
                span.record("mrtr.keys", keys.as_str());
            }
            if let Some(reason) = &ended.reason {
                span.record("mrtr.reason", reason.as_str());
            }
            match ended.error {
                Some(ErrorType::ToolError) => {
                    span.record("error.type", "tool_error");
                    span.record("otel.status_code", "ERROR");
                }
                Some(ErrorType::JsonRpc(code)) => {
                    span.record("error.type", tracing::field::display(code));
                    span.record("rpc.response.status_code", tracing::field::display(code));
                    span.record("otel.status_code", "ERROR");
                }
                None => {}
            }
        }
        if !metered {
            return;
        }
        let error_type = ended.error.map(|error| match error {
            ErrorType::ToolError => "tool_error".to_owned(),
            ErrorType::JsonRpc(code) => code.to_string(),
        });
        tracing::event!(
            target: "mrtr::metrics",
            tracing::Level::DEBUG,
            histogram.mcp.server.operation.duration = elapsed.as_secs_f64(),
            mcp.method.name = self.method,
            error.type = error_type,
        );
    }
}

/// Records, on the current round's span, the flow it belongs to, its number and where it
/// resumes.
pub(crate) fn record_flow(flow: &Flow, resume: impl fmt::Display) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    span.record("mrtr.round", flow.round());
    span.record("mrtr.flow", tracing::field::display(flow.id()));
    span.record("mrtr.resume", tracing::field::display(resume));
    #[cfg(feature = "opentelemetry")]
    otel::link_flow(&span, flow.id());
}

/// The target under the attribute the conventions give it for `method`.
fn describe_target(span: &Span, method: &str, target: &str) {
    match method {
        "tools/call" => {
            span.record("gen_ai.operation.name", "execute_tool");
            span.record("gen_ai.tool.name", target);
        }
        "prompts/get" => {
            span.record("gen_ai.prompt.name", target);
        }
        _ => {
            span.record("mcp.resource.uri", target);
        }
    }
}

/// The request's id, its protocol version and, with the `opentelemetry` feature, the trace it
/// continues.
fn describe_request(span: &Span, request: RequestTrace<'_>) {
    if let Some(id) = request.id {
        span.record("jsonrpc.request.id", tracing::field::display(id));
    }
    let Some(meta) = request.meta else { return };
    if let Some(Value::String(version)) = meta.get(META_PROTOCOL_VERSION) {
        span.record("mcp.protocol.version", version.as_str());
    }
    if let Some(Value::String(value)) = meta.get("traceparent")
        && let Some(parent) = traceparent::TraceParent::parse(value)
    {
        #[cfg(feature = "opentelemetry")]
        otel::continue_trace(span, parent, meta.get("tracestate"));
        #[cfg(not(feature = "opentelemetry"))]
        let _ = parent;
    }
}
