//! The retired-field filter for streamable HTTP, as a tower layer: JSON response bodies are
//! filtered whole, SSE response bodies one `data:` line at a time as they stream.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http_body::{Body, Frame};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::direct::DirectRounds;
use super::mcp_server::McpServer;
use super::retired::{
    FieldsFiltered, strip_retired_fields_from_bytes, strip_retired_fields_from_shared,
};
use super::sessions::BoundedSessions;

/// A tower layer that removes the fields the 2026-07-28 revision retired (rmcp 3.11 writes
/// `"elicitationId": ""` in URL-mode elicitations) from HTTP responses: `application/json`
/// bodies whole, `text/event-stream` bodies line by line. Other bodies pass unchanged.
/// [`McpServer::streamable_http`] applies it already.
#[derive(Clone, Copy, Debug, Default)]
pub struct RetiredFieldsLayer;

impl<S> tower_layer::Layer<S> for RetiredFieldsLayer {
    type Service = RetiredFieldsService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RetiredFieldsService { inner }
    }
}

/// The service of [`RetiredFieldsLayer`].
#[derive(Clone, Debug)]
pub struct RetiredFieldsService<S> {
    inner: S,
}

impl<S, Request, B> tower_service::Service<Request> for RetiredFieldsService<S>
where
    S: tower_service::Service<Request, Response = http::Response<B>>,
    S::Future: Send + 'static,
    B: Body<Data = Bytes> + Unpin + Send + 'static,
{
    type Response = http::Response<RetiredFieldsBody<B>>;
    type Error = S::Error;
    type Future =
        Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let response = self.inner.call(request);
        Box::pin(async move {
            let (mut parts, mut body) = response.await?.into_parts();
            if parts.extensions.get::<FieldsFiltered>().is_some() {
                let body = RetiredFieldsBody {
                    inner: body,
                    kind: Kind::Pass,
                    buffer: Vec::new(),
                    ready: Bytes::new(),
                    done: false,
                };
                return Ok(http::Response::from_parts(parts, body));
            }
            let content_type = parts
                .headers
                .get(http::header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .unwrap_or_default()
                .to_ascii_lowercase();
            let kind = if content_type.starts_with("application/json") {
                Kind::Json
            } else if content_type.starts_with("text/event-stream") {
                Kind::Sse
            } else {
                Kind::Pass
            };
            if kind == Kind::Json {
                // One JSON message, already in memory: read it whole, filter it, and send it
                // with its length (no chunked encoding). rmcp sends it as one frame, which
                // passes on without a copy when there is nothing to filter.
                let mut whole = WholeBody::default();
                let complete = loop {
                    match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
                        Some(Ok(frame)) => match frame.into_data() {
                            Ok(data) => whole.push(data),
                            Err(_) => break false,
                        },
                        Some(Err(_)) => break false,
                        None => break true,
                    }
                };
                if complete {
                    let filtered = strip_retired_fields_from_shared(whole.into_bytes());
                    parts
                        .headers
                        .insert(http::header::CONTENT_LENGTH, filtered.len().into());
                    let body = RetiredFieldsBody {
                        inner: body,
                        kind: Kind::Ready,
                        buffer: Vec::new(),
                        ready: filtered,
                        done: false,
                    };
                    return Ok(http::Response::from_parts(parts, body));
                }
                let buffer = whole.into_bytes().into();
                // Trailers or a failing body (never from rmcp): stream what is left.
                tracing::warn!(target: "mrtr::rmcp", "a JSON response body did not read whole");
                parts.headers.remove(http::header::CONTENT_LENGTH);
                let body = RetiredFieldsBody {
                    inner: body,
                    kind,
                    buffer,
                    ready: Bytes::new(),
                    done: false,
                };
                return Ok(http::Response::from_parts(parts, body));
            }
            if kind != Kind::Pass {
                // The filtered body is shorter.
                parts.headers.remove(http::header::CONTENT_LENGTH);
            }
            let body = RetiredFieldsBody {
                inner: body,
                kind,
                buffer: Vec::new(),
                ready: Bytes::new(),
                done: false,
            };
            Ok(http::Response::from_parts(parts, body))
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Json,
    Sse,
    Pass,
    /// A JSON body read and filtered whole: `ready` is all there is.
    Ready,
}

/// The data frames of a body read whole: the only frame as it came, or several joined.
#[derive(Default)]
struct WholeBody {
    first: Bytes,
    rest: Vec<u8>,
}

impl WholeBody {
    fn push(&mut self, data: Bytes) {
        if self.first.is_empty() && self.rest.is_empty() {
            self.first = data;
        } else {
            if self.rest.is_empty() {
                self.rest
                    .extend_from_slice(&std::mem::take(&mut self.first));
            }
            self.rest.extend_from_slice(&data);
        }
    }

    fn into_bytes(self) -> Bytes {
        if self.rest.is_empty() {
            self.first
        } else {
            self.rest.into()
        }
    }
}

/// A response body with the retired fields filtered out (see [`RetiredFieldsLayer`]).
#[derive(Debug)]
pub struct RetiredFieldsBody<B> {
    inner: B,
    kind: Kind,
    /// What arrived of a streamed body and is not yet sent.
    buffer: Vec<u8>,
    /// A body read and filtered whole ([`Kind::Ready`]).
    ready: Bytes,
    done: bool,
}

/// Filters one SSE line (without its line break): a `data:` line carries one JSON-RPC message.
fn filter_sse_line(line: &[u8], out: &mut Vec<u8>) {
    let (line, carriage_return) = match line.strip_suffix(b"\r") {
        Some(line) => (line, true),
        None => (line, false),
    };
    match line.strip_prefix(b"data:") {
        Some(data) => {
            let space = data.starts_with(b" ");
            out.extend_from_slice(if space { b"data: " } else { b"data:" });
            let json = if space { &data[1..] } else { data };
            out.extend(strip_retired_fields_from_bytes(json));
        }
        None => out.extend_from_slice(line),
    }
    if carriage_return {
        out.push(b'\r');
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for RetiredFieldsBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.get_mut();
        if this.kind == Kind::Ready {
            if this.done {
                return Poll::Ready(None);
            }
            this.done = true;
            return Poll::Ready(Some(Ok(Frame::data(std::mem::take(&mut this.ready)))));
        }
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Ok(frame)) => {
                    let data = match frame.into_data() {
                        Ok(data) => data,
                        Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
                    };
                    match this.kind {
                        Kind::Pass | Kind::Ready => {
                            return Poll::Ready(Some(Ok(Frame::data(data))));
                        }
                        Kind::Json => this.buffer.extend_from_slice(&data),
                        Kind::Sse => {
                            this.buffer.extend_from_slice(&data);
                            // Everything up to the last line break is complete: send it.
                            let Some(end) = this.buffer.iter().rposition(|byte| *byte == b'\n')
                            else {
                                continue;
                            };
                            let complete: Vec<u8> = this.buffer.drain(..=end).collect();
                            let mut out = Vec::with_capacity(complete.len());
                            for line in complete[..complete.len() - 1].split(|byte| *byte == b'\n')
                            {
                                filter_sse_line(line, &mut out);
                                out.push(b'\n');
                            }
                            return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                        }
                    }
                }
                Some(Err(error)) => return Poll::Ready(Some(Err(error))),
                None => {
                    this.done = true;
                    let rest = std::mem::take(&mut this.buffer);
                    if rest.is_empty() {
                        return Poll::Ready(None);
                    }
                    let out = match this.kind {
                        Kind::Json => strip_retired_fields_from_bytes(&rest),
                        _ => {
                            let mut out = Vec::new();
                            filter_sse_line(&rest, &mut out);
                            out
                        }
                    };
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done && self.buffer.is_empty() && self.ready.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self.kind {
            Kind::Ready => http_body::SizeHint::with_exact(self.ready.len() as u64),
            Kind::Pass => self.inner.size_hint(),
            _ => http_body::SizeHint::default(),
        }
    }
}

/// The streamable-HTTP service of one mrtr server: what to mount at `/mcp`.
pub type StreamableHttp = RetiredFieldsService<DirectRounds>;

impl McpServer {
    /// Streamable HTTP for this server (rmcp's `StreamableHttpService`), with the
    /// retired-field filter applied. Mount it in any tower-based router, e.g. axum's
    /// `nest_service("/mcp", ..)`. `config` is rmcp's.
    ///
    /// 2026-07-28 requests are served statelessly, one handler per request, all sharing the
    /// server and its keys. With `config.json_response` on, a well-formed round (`tools/call`,
    /// `prompts/get`, `resources/read`) is answered on [`DirectRounds`]' direct path, with
    /// rmcp's checks and rmcp's response but without its per-request session machinery; every
    /// other request is rmcp's.
    ///
    /// `Origin` is always validated: a request that carries one is refused with 403 unless it
    /// is in `config.allowed_origins`, or, when that list is empty, a page served from this
    /// machine ([`LOCAL_ORIGINS`]: `http` or `https` on `localhost`, `127.0.0.1` or `[::1]`,
    /// any port). `Origin:
    /// null` is refused unless listed. A request without `Origin` (any non-browser client) is
    /// served.
    ///
    /// An `initialize` opens a session (in this process's memory) for a 2025-11-25 or
    /// 2025-06-18 client, unless [`McpServer::without_legacy`]: then no session is ever
    /// created. Sessions are bounded by [`LegacyOptions`](crate::legacy::LegacyOptions): how
    /// many may be open, how long one may stay idle, how many calls may run; each is bound to
    /// the principal that opened it.
    pub fn streamable_http(self, config: StreamableHttpServerConfig) -> StreamableHttp {
        let server = self;
        let sessions = server.legacy().is_some();
        let config = origin_checked(config).with_legacy_session_mode(sessions);
        let manager = Arc::new(BoundedSessions::new(
            &server.legacy().cloned().unwrap_or_default(),
        ));
        let handler = server.clone();
        let rmcp = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::clone(&manager),
            config.clone(),
        );
        let service = DirectRounds::new(server, rmcp, manager, config);
        tower_layer::Layer::layer(&RetiredFieldsLayer, service)
    }
}

/// The browser origins [`McpServer::streamable_http`] allows when the configuration names
/// none: pages served from this machine, on any port. To allow your own pages as well, list
/// them together: `config.with_allowed_origins(LOCAL_ORIGINS.into_iter().chain(["https://app.example.com:443"]))`.
pub const LOCAL_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// `config` with `Origin` validation on (rmcp leaves it off for an empty list).
fn origin_checked(config: StreamableHttpServerConfig) -> StreamableHttpServerConfig {
    let config = if config.allowed_origins.is_empty() {
        config.with_allowed_origins(LOCAL_ORIGINS)
    } else {
        config
    };
    config.enforce_origin_validation()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// A body that yields its chunks one by one.
    struct Chunks(Vec<Bytes>);

    impl Body for Chunks {
        type Data = Bytes;
        type Error = Infallible;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            let this = self.get_mut();
            Poll::Ready((!this.0.is_empty()).then(|| Ok(Frame::data(this.0.remove(0)))))
        }
    }

    fn collect(kind: Kind, chunks: &[&str]) -> String {
        let mut body = RetiredFieldsBody {
            inner: Chunks(chunks.iter().map(|c| Bytes::from(c.to_string())).collect()),
            kind,
            buffer: Vec::new(),
            ready: Bytes::new(),
            done: false,
        };
        let mut context = Context::from_waker(std::task::Waker::noop());
        let mut out = Vec::new();
        while let Poll::Ready(Some(frame)) = Pin::new(&mut body).poll_frame(&mut context) {
            out.extend_from_slice(&frame.unwrap().into_data().unwrap());
        }
        String::from_utf8(out).unwrap()
    }

    const MESSAGE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"mode":"url","url":"https://x.test/","message":"m","elicitationId":""}}}}}"#;

    #[test]
    fn sse_data_lines_are_filtered_even_when_split_across_chunks() {
        let event = format!("id: 0\r\nevent: message\r\ndata: {MESSAGE}\r\n\r\n");
        let (a, b) = event.split_at(40);
        let filtered = collect(Kind::Sse, &[a, b]);
        assert!(!filtered.contains("elicitationId"), "{filtered}");
        assert!(
            filtered.starts_with("id: 0\r\nevent: message\r\ndata: {"),
            "{filtered}"
        );
        assert!(filtered.ends_with("}\r\n\r\n"), "{filtered:?}");
        assert!(filtered.contains(r#""url":"https://x.test/""#));
    }

    #[test]
    fn json_bodies_are_filtered_whole_and_others_pass() {
        let (a, b) = MESSAGE.split_at(30);
        let filtered = collect(Kind::Json, &[a, b]);
        assert!(!filtered.contains("elicitationId"), "{filtered}");
        assert_eq!(collect(Kind::Pass, &[MESSAGE]), MESSAGE);
    }

    #[test]
    fn a_body_of_one_frame_is_passed_on_without_a_copy_and_several_are_joined() {
        let one = Bytes::from(MESSAGE.replace("elicitationId", "other"));
        let mut whole = WholeBody::default();
        whole.push(one.clone());
        let passed = strip_retired_fields_from_shared(whole.into_bytes());
        assert_eq!(passed.as_ptr(), one.as_ptr(), "the frame was copied");

        let (a, b) = MESSAGE.split_at(30);
        let mut whole = WholeBody::default();
        whole.push(Bytes::from(a.to_owned()));
        whole.push(Bytes::from(b.to_owned()));
        let joined = whole.into_bytes();
        assert_eq!(joined, MESSAGE.as_bytes());
        let filtered = strip_retired_fields_from_shared(joined);
        assert!(!String::from_utf8_lossy(&filtered).contains("elicitationId"));
    }
}
