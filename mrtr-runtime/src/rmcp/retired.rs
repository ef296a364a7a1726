//! Fields the 2026-07-28 revision retired but rmcp 3.11 still writes: its URL-mode
//! elicitation type has a required `elicitation_id`, serialized as `"elicitationId": ""`.
//! Outgoing messages are filtered at the byte level, where the typed model cannot interfere.
//! The same filter puts back what rmcp's types cannot carry: a tool's `execution` in
//! `tools/list` (see execution.rs).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use serde_json::Value;
use tokio::io::AsyncWrite;

/// Marks a response whose body was filtered where it was built (the direct path's), so that
/// [`RetiredFieldsLayer`](super::RetiredFieldsLayer) passes it on without reading it again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldsFiltered;

/// Removes retired fields from one JSON-RPC message (in place), and moves each tool's
/// `execution` (`taskSupport`), which mrtr carries through rmcp's `Tool` in its `_meta`, back
/// to the tool's top level.
pub fn strip_retired_fields(message: &mut Value) {
    super::execution::hoist(message);
    let Some(requests) = message
        .pointer_mut("/result/inputRequests")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for request in requests.values_mut() {
        if let Some(params) = request.get_mut("params").and_then(Value::as_object_mut) {
            params.remove("elicitationId");
        }
    }
}

/// [`strip_retired_fields_from_bytes`] on a shared buffer, which is handed back untouched (not
/// copied) when it names no retired field: the common case.
pub(crate) fn strip_retired_fields_from_shared(bytes: bytes::Bytes) -> bytes::Bytes {
    if names_a_retired_field(&bytes) {
        strip_retired_fields_from_bytes(&bytes).into()
    } else {
        bytes
    }
}

fn names_a_retired_field(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\"elicitationId\"").is_some()
        || super::execution::names_carrier(bytes)
}

/// [`strip_retired_fields`] on a serialized message; bytes that are not JSON pass unchanged.
pub fn strip_retired_fields_from_bytes(bytes: &[u8]) -> Vec<u8> {
    // Most messages have nothing to remove: only parse those that name a retired field.
    if !names_a_retired_field(bytes) {
        return bytes.to_vec();
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(mut message)
            if message.pointer("/result/inputRequests").is_some()
                || message.pointer("/result/tools").is_some() =>
        {
            strip_retired_fields(&mut message);
            serde_json::to_vec(&message).unwrap_or_else(|_| bytes.to_vec())
        }
        _ => bytes.to_vec(),
    }
}

/// A writer for newline-delimited JSON-RPC (stdio) that filters every message line through
/// [`strip_retired_fields`] before it reaches `inner`.
#[derive(Debug)]
pub struct RetiredFieldsFilter<W> {
    inner: W,
    line: Vec<u8>,
    pending: Vec<u8>,
}

impl<W> RetiredFieldsFilter<W> {
    /// Filters what is written to `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            line: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl<W: AsyncWrite + Unpin> RetiredFieldsFilter<W> {
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            let written = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending))?;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending.drain(..written);
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for RetiredFieldsFilter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        this.line.extend_from_slice(buf);
        while let Some(end) = this.line.iter().position(|byte| *byte == b'\n') {
            let line: Vec<u8> = this.line.drain(..=end).collect();
            this.pending
                .extend(strip_retired_fields_from_bytes(&line[..line.len() - 1]));
            this.pending.push(b'\n');
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// rmcp's stdio transport with the retired fields filtered out of what the server writes.
pub fn stdio() -> (tokio::io::Stdin, RetiredFieldsFilter<tokio::io::Stdout>) {
    (
        tokio::io::stdin(),
        RetiredFieldsFilter::new(tokio::io::stdout()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn the_filter_removes_elicitation_ids_from_each_line() {
        let mut out = RetiredFieldsFilter::new(Vec::new());
        let message = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
            "inputRequests": {"k": {"method": "elicitation/create", "params": {"mode": "url", "url": "u", "message": "m", "elicitationId": ""}}}}});
        let text = format!("{message}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{}}}}\n");
        let (first, second) = text.as_bytes().split_at(17);
        out.write_all(first).await.unwrap();
        out.write_all(second).await.unwrap();
        out.flush().await.unwrap();
        let written = String::from_utf8(out.inner).unwrap();
        assert!(!written.contains("elicitationId"), "{written}");
        assert_eq!(written.lines().count(), 2);
        assert!(written.ends_with("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"));
    }
}
