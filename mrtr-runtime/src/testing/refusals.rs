//! The reasons a server logs when it refuses a `requestState`, caught while one request runs:
//! the client only ever sees the opaque `-32602`, and a test that checks states needs the why.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Collects the `mrtr::state` events of the future it is attached to.
#[derive(Clone, Default)]
pub(crate) struct Refusals {
    lines: Arc<Mutex<Vec<String>>>,
}

impl Refusals {
    /// What was logged, one line per event: the message, then its fields.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }
}

impl Subscriber for Refusals {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == "mrtr::state" || metadata.is_span()
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        if event.metadata().target() != "mrtr::state" {
            return;
        }
        let mut line = Line::default();
        event.record(&mut line);
        let text = format!("{}{}", line.message, line.fields);
        self.lines
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push(text);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

#[derive(Default)]
struct Line {
    message: String,
    fields: String,
}

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, "; {} = {value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, "; {} = {value}", field.name());
        }
    }
}
