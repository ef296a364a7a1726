//! The `opentelemetry` feature: a round continues the trace of the client that sent it, and
//! links to a span context named by its flow id.
//!
//! The link is how a trace viewer gathers one flow: its rounds arrive as separate requests,
//! possibly at different instances and in different traces, but every round of a flow links to
//! the same context, whose trace id is the flow id (for example Tempo's TraceQL
//! `{ link:traceID = "<flow id>" }`).

use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::traceparent::TraceParent;
use crate::token::FlowId;

/// Makes the client's span, named by `traceparent` (and `tracestate`), the remote parent of the
/// round's span.
pub(super) fn continue_trace(span: &Span, parent: TraceParent, trace_state: Option<&Value>) {
    let trace_state = trace_state
        .and_then(Value::as_str)
        .and_then(|state| state.parse::<TraceState>().ok())
        .unwrap_or_default();
    let remote = SpanContext::new(
        TraceId::from_bytes(parent.trace_id),
        SpanId::from_bytes(parent.parent_id),
        TraceFlags::new(parent.flags),
        true,
        trace_state,
    );
    // Without an OpenTelemetry layer there is no trace to continue, which is not an error.
    let _ = span.set_parent(Context::new().with_remote_span_context(remote));
}

/// Links the round's span to the context its flow is named by.
pub(super) fn link_flow(span: &Span, flow: FlowId) {
    let bytes = flow.as_bytes();
    let mut span_id = [0; 8];
    span_id.copy_from_slice(&bytes[..8]);
    let flow_context = SpanContext::new(
        TraceId::from_bytes(*bytes),
        SpanId::from_bytes(span_id),
        TraceFlags::default(),
        true,
        TraceState::default(),
    );
    span.add_link_with_attributes(
        flow_context,
        vec![KeyValue::new("mrtr.flow", flow.to_string())],
    );
}
