//! A response body for a 2025-era call's event stream that cancels the call when the client goes away. rmcp's
//! session keeps running a call whose HTTP stream was dropped, holding its machine until the
//! client timeout; a dropped stream is the client's `notifications/cancelled`, so it is sent
//! on the client's behalf.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderMap, Request};
use http_body::{Body, Frame, SizeHint};
use http_body_util::Full;
use http_body_util::combinators::BoxBody;
use rmcp::model::RequestId;

use super::sessions::RmcpService;

/// `inner`, the event stream of call `id`; dropped before its end, it cancels the call.
pub(super) struct CancellingBody {
    inner: BoxBody<Bytes, Infallible>,
    cancel: Option<Cancel>,
}

/// What it takes to cancel the call: the session's rmcp service and headers, the call's id.
struct Cancel {
    rmcp: RmcpService,
    headers: HeaderMap,
    id: RequestId,
}

impl CancellingBody {
    pub(super) fn new(
        inner: BoxBody<Bytes, Infallible>,
        rmcp: RmcpService,
        headers: HeaderMap,
        id: RequestId,
    ) -> Self {
        Self {
            inner,
            cancel: Some(Cancel { rmcp, headers, id }),
        }
    }
}

impl Body for CancellingBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let frame = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(None) = frame {
            // The call's answer went out whole: nothing to cancel.
            this.cancel = None;
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for CancellingBody {
    fn drop(&mut self) {
        let Some(Cancel { rmcp, headers, id }) = self.cancel.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let notification = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the client closed the call's stream"},
        });
        let mut request = Request::post("/mcp")
            .body(Full::new(Bytes::from(notification.to_string())))
            .expect("a valid request");
        *request.headers_mut() = headers;
        runtime.spawn(async move {
            let response = rmcp.handle(request).await;
            tracing::debug!(target: "mrtr::rmcp", status = %response.status(), "a call whose client went away was cancelled");
        });
    }
}
