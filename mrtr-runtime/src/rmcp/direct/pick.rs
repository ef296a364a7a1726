//! Which requests the direct path answers: the picker. It decides from the head alone whether
//! the body is worth reading ([`Picker::takes`]), then from the body whether it is a round the
//! direct path answers exactly as rmcp would ([`Picker::pick`]). Every other request goes to
//! rmcp. Kept apart from serving, so each rule is tested on its own.
//!
//! A request is picked only if it passes every check rmcp makes on it, each checked here at
//! least as strictly: an allowed `Host` and no `Origin`; `Accept` naming both
//! `application/json` and `text/event-stream` without parameters; a JSON `Content-Type`; a
//! `Content-Length` under rmcp's body limit; exactly one `MCP-Protocol-Version: 2026-07-28`,
//! `Mcp-Method` naming one of the three methods and `Mcp-Name` naming the body's tool, prompt
//! or resource URI verbatim (not Base64-wrapped); no `Mcp-Session-Id` and no `Mcp-Param-*`; a
//! body that is exactly a JSON-RPC request of that method whose `_meta` names 2026-07-28 and
//! the client's capabilities; not a tool that mirrors arguments in `Mcp-Param-*` headers
//! (rmcp checks those).

use http::HeaderMap;
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, GetPromptRequestMethod, GetPromptRequestParams,
    JsonRpcVersion2_0, ProtocolVersion, ReadResourceRequestMethod, ReadResourceRequestParams,
    RequestId,
};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde::Deserialize;

use super::super::round::RoundParams;

pub(super) const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
const PROTOCOL_VERSION: &str = "2026-07-28";
const TOOLS_CALL: &str = "tools/call";
const PROMPTS_GET: &str = "prompts/get";
const RESOURCES_READ: &str = "resources/read";
pub(super) const SESSION_ID: &str = "mcp-session-id";

/// What the direct path takes, from rmcp's configuration (its allowed hosts parsed once).
#[derive(Debug)]
pub(super) struct Picker {
    /// rmcp answers with one JSON response only with `json_response` on; otherwise it answers
    /// with an event stream, and keeps every request.
    json_response: bool,
    body_limit: usize,
    /// rmcp allows any host when its list is empty.
    any_host: bool,
    allowed_hosts: Vec<Authority>,
}

impl Picker {
    /// The picker for rmcp's configuration `config`.
    pub(super) fn new(config: &StreamableHttpServerConfig) -> Self {
        Self {
            json_response: config.json_response,
            body_limit: config.max_request_body_bytes,
            any_host: config.allowed_hosts.is_empty(),
            allowed_hosts: config
                .allowed_hosts
                .iter()
                .filter_map(|host| Authority::allowed(host))
                .collect(),
        }
    }

    /// Which way the request's method and headers send it, the checks both ways share made
    /// once: [`Way::Take`] where the direct path may answer it (the body is checked once
    /// read), [`Way::Listen`] for a stateless `subscriptions/listen` that passes rmcp's
    /// checks (its body is read next: only one naming task ids stays here), else rmcp's.
    pub(super) fn way(&self, method: &http::Method, headers: &HeaderMap) -> Way {
        if !self.sound(method, headers) {
            return Way::Pass;
        }
        let mcp_method = only(headers, "mcp-method");
        if mcp_method == Some("subscriptions/listen") && !headers.contains_key("mcp-name") {
            return Way::Listen;
        }
        // The direct path answers with one JSON response; with `json_response` off rmcp
        // answers with an event stream, so rmcp keeps every request.
        if self.json_response
            && mcp_method.is_some_and(runs_a_machine)
            && only(headers, "mcp-name").is_some()
        {
            return Way::Take;
        }
        Way::Pass
    }

    /// Whether the request's method and headers allow the direct path.
    #[cfg(test)]
    pub(super) fn takes(&self, method: &http::Method, headers: &HeaderMap) -> bool {
        self.way(method, headers) == Way::Take
    }

    /// The round in `body`, if the direct path answers it: a request of the method and
    /// target the head names, with a 2026-07-28 `_meta`, not of a tool whose arguments are
    /// mirrored in headers (`mirrors_headers`: rmcp checks those, even absent ones).
    pub(super) fn pick(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        mirrors_headers: impl Fn(&str) -> bool,
    ) -> Option<Call> {
        Call::parse(headers, body).filter(|call| match &call.round {
            Round::Tool(params) => !mirrors_headers(&params.name),
            Round::Prompt(_) | Round::Resource(_) => true,
        })
    }

    /// The checks rmcp makes on every stateless 2026-07-28 POST, each at least as strict.
    fn sound(&self, method: &http::Method, headers: &HeaderMap) -> bool {
        *method == http::Method::POST
            && !headers.contains_key(ORIGIN)
            && !headers.contains_key(SESSION_ID)
            && self.host_allowed(headers)
            && accepts_json_and_event_stream(headers)
            && only(headers, CONTENT_TYPE.as_str()).is_some_and(|value| {
                let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
                essence.trim().eq_ignore_ascii_case(JSON)
            })
            && only(headers, CONTENT_LENGTH.as_str())
                .and_then(|length| length.parse::<usize>().ok())
                .is_some_and(|length| length < self.body_limit)
            && only(headers, "mcp-protocol-version") == Some(PROTOCOL_VERSION)
            && !headers
                .keys()
                .any(|name| name.as_str().starts_with("mcp-param-"))
    }

    /// The `Host` header is allowed by rmcp's rule: any host when the list is empty, else a
    /// listed host, on its port if the entry names one. A request without a `Host` header goes
    /// to rmcp.
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(authority) =
            only(headers, HOST.as_str()).and_then(|host| http::uri::Authority::try_from(host).ok())
        else {
            return false;
        };
        // The configured list, not the parsed one: a list of blank entries allows no host.
        if self.any_host {
            return true;
        }
        // As `Authority::new` has it, without the copy: the entries are lower-cased already.
        let host = authority.host().trim_matches('[').trim_matches(']');
        let port = authority.port_u16();
        self.allowed_hosts.iter().any(|entry| {
            entry.host.eq_ignore_ascii_case(host)
                && entry.port.is_none_or(|want| port == Some(want))
        })
    }
}

/// The one value of header `name`, if it has exactly one and it is text.
fn only<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// `Accept` names both media types, with no parameters or quoting anywhere (rmcp weighs those;
/// such requests go to it).
fn accepts_json_and_event_stream(headers: &HeaderMap) -> bool {
    let (mut json, mut event_stream) = (false, false);
    for value in headers.get_all(ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        if value.contains([';', '"']) {
            return false;
        }
        for essence in value.split(',').map(str::trim) {
            json |= essence.eq_ignore_ascii_case(JSON);
            event_stream |= essence.eq_ignore_ascii_case(EVENT_STREAM);
        }
    }
    json && event_stream
}

/// A host and optional port, compared as rmcp compares them: the host lower-cased and without
/// brackets.
#[derive(Debug, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn new(host: &str, port: Option<u16>) -> Self {
        Self {
            host: host
                .trim_matches('[')
                .trim_matches(']')
                .to_ascii_lowercase(),
            port,
        }
    }

    /// An entry of rmcp's `allowed_hosts`.
    fn allowed(entry: &str) -> Option<Self> {
        let entry = entry.trim();
        if entry.is_empty() {
            return None;
        }
        Some(match http::uri::Authority::try_from(entry) {
            Ok(authority) => Self::new(authority.host(), authority.port_u16()),
            Err(_) => Self::new(entry, None),
        })
    }
}

/// Which way a request goes (see [`Picker::way`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Way {
    /// The direct path may answer it.
    Take,
    /// A stateless `subscriptions/listen`.
    Listen,
    /// rmcp answers it.
    Pass,
}

/// The three methods whose calls run a machine.
pub(super) fn runs_a_machine(method: &str) -> bool {
    [TOOLS_CALL, PROMPTS_GET, RESOURCES_READ].contains(&method)
}

/// A body that is exactly a JSON-RPC request of method `M` (a marker that only deserializes
/// from its method's name) with params `P`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<M, P> {
    #[allow(dead_code, reason = "only \"2.0\" deserializes")]
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[allow(dead_code, reason = "only the method's name deserializes")]
    method: M,
    params: P,
}

impl<M: serde::de::DeserializeOwned, P: serde::de::DeserializeOwned> Envelope<M, P> {
    fn parse(body: &[u8], round: fn(P) -> Round) -> Option<Call> {
        let Self { id, params, .. } = serde_json::from_slice(body).ok()?;
        Some(Call {
            id,
            round: round(params),
        })
    }
}

/// The params of a round, as rmcp types them.
pub(super) enum Round {
    Tool(CallToolRequestParams),
    Prompt(GetPromptRequestParams),
    Resource(ReadResourceRequestParams),
}

impl Round {
    pub(super) fn method_name(&self) -> &'static str {
        match self {
            Self::Tool(_) => TOOLS_CALL,
            Self::Prompt(_) => PROMPTS_GET,
            Self::Resource(_) => RESOURCES_READ,
        }
    }

    /// What `Mcp-Name` must name: the tool, the prompt, the resource's URI.
    pub(super) fn target(&self) -> &str {
        match self {
            Self::Tool(params) => &params.name,
            Self::Prompt(params) => &params.name,
            Self::Resource(params) => &params.uri,
        }
    }
}

/// A round request the direct path answers.
pub(super) struct Call {
    pub(super) id: RequestId,
    pub(super) round: Round,
}

impl Call {
    /// The round in `body`, if it is one the direct path takes: of the method `Mcp-Method`
    /// names, for the target `Mcp-Name` names verbatim, with a `_meta` carrying what a
    /// 2026-07-28 request must.
    fn parse(headers: &HeaderMap, body: &[u8]) -> Option<Self> {
        let call = match only(headers, "mcp-method")? {
            TOOLS_CALL => Envelope::<CallToolRequestMethod, _>::parse(body, Round::Tool),
            PROMPTS_GET => Envelope::<GetPromptRequestMethod, _>::parse(body, Round::Prompt),
            RESOURCES_READ => {
                Envelope::<ReadResourceRequestMethod, _>::parse(body, Round::Resource)
            }
            _ => None,
        }?;
        let meta = match &call.round {
            Round::Tool(params) => params.meta(),
            Round::Prompt(params) => params.meta(),
            Round::Resource(params) => params.meta(),
        }?;
        let complete = meta.protocol_version() == Some(ProtocolVersion::V_2026_07_28)
            && meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty();
        // rmcp decodes a Base64-wrapped `Mcp-Name` before comparing; those go to it.
        let name = only(headers, "mcp-name")?;
        let verbatim = !(name.starts_with("=?base64?") && name.ends_with("?="));
        (complete && verbatim && name == call.round.target()).then_some(call)
    }
}

#[cfg(test)]
mod tests {
    use http::{HeaderValue, Method};
    use serde_json::json;

    use super::*;

    fn config() -> StreamableHttpServerConfig {
        StreamableHttpServerConfig::default().with_json_response(true)
    }

    /// The head of a stateless `tools/call` of tool `name` that passes every rule.
    fn head(name: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (header, value) in [
            ("host", "localhost:8080"),
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
            ("content-length", "200"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ] {
            headers.insert(header, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn body(method: &str, params: serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
            .unwrap()
    }

    fn call(name: &str) -> Vec<u8> {
        body(
            "tools/call",
            json!({
                "name": name,
                "arguments": {"city": "Oslo"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }),
        )
    }

    fn no_mirrors(_: &str) -> bool {
        false
    }

    #[test]
    fn a_well_formed_round_is_picked_with_its_id_and_params() {
        let picker = Picker::new(&config());
        let headers = head("book");
        assert!(picker.takes(&Method::POST, &headers));
        let picked = picker.pick(&headers, &call("book"), no_mirrors).unwrap();
        assert_eq!(picked.id, RequestId::Number(7));
        assert_eq!(picked.round.method_name(), "tools/call");
        assert_eq!(picked.round.target(), "book");
        let Round::Tool(params) = picked.round else {
            panic!("a tool call");
        };
        assert_eq!(params.arguments.unwrap()["city"], "Oslo");
    }

    #[test]
    fn each_head_rule_sends_the_request_to_rmcp() {
        let picker = Picker::new(&config());
        assert!(!picker.takes(&Method::GET, &head("book")), "not a POST");
        let broken: [(&str, Option<&str>); 9] = [
            ("origin", Some("http://localhost:3000")),
            ("mcp-session-id", Some("abc")),
            ("accept", Some("application/json")),
            ("accept", Some("application/json;q=1, text/event-stream")),
            ("content-type", Some("text/plain")),
            ("content-length", None),
            ("mcp-protocol-version", Some("2025-11-25")),
            ("mcp-method", Some("tools/list")),
            ("mcp-param-city", Some("Oslo")),
        ];
        for (header, value) in broken {
            let mut headers = head("book");
            match value {
                Some(value) => {
                    headers.insert(header, HeaderValue::from_static(value));
                }
                None => {
                    headers.remove(header);
                }
            }
            assert!(
                !picker.takes(&Method::POST, &headers),
                "{header}: {value:?} must go to rmcp"
            );
        }
        let mut headers = head("book");
        headers.append(
            "mcp-protocol-version",
            HeaderValue::from_static("2026-07-28"),
        );
        assert!(
            !picker.takes(&Method::POST, &headers),
            "two protocol versions"
        );
    }

    #[test]
    fn a_body_over_the_limit_or_without_json_responses_goes_to_rmcp() {
        let small = config().with_max_request_body_bytes(100);
        assert!(!Picker::new(&small).takes(&Method::POST, &head("book")));
        let streaming = StreamableHttpServerConfig::default();
        assert!(!Picker::new(&streaming).takes(&Method::POST, &head("book")));
    }

    #[test]
    fn hosts_follow_rmcps_rule() {
        let listed = config().with_allowed_hosts(["example.com:9000", "localhost"]);
        let picker = Picker::new(&listed);
        assert!(
            picker.takes(&Method::POST, &head("book")),
            "localhost, any port"
        );
        let mut headers = head("book");
        headers.insert("host", HeaderValue::from_static("EXAMPLE.com:9000"));
        assert!(
            picker.takes(&Method::POST, &headers),
            "case-insensitive host"
        );
        headers.insert("host", HeaderValue::from_static("example.com:9001"));
        assert!(!picker.takes(&Method::POST, &headers), "another port");
        headers.remove("host");
        assert!(!picker.takes(&Method::POST, &headers), "no host");
        let blank = config().with_allowed_hosts([" "]);
        assert!(
            !Picker::new(&blank).takes(&Method::POST, &head("book")),
            "a list of blank entries allows no host"
        );
        let v6 = Picker::new(&config().with_allowed_hosts(["[::1]"]));
        headers.insert("host", HeaderValue::from_static("[::1]:8080"));
        assert!(
            v6.takes(&Method::POST, &headers),
            "an IPv6 host, brackets aside"
        );
        headers.insert("host", HeaderValue::from_static("[::2]:8080"));
        assert!(!v6.takes(&Method::POST, &headers), "another IPv6 host");
    }

    #[test]
    fn a_listen_goes_its_own_way() {
        let picker = Picker::new(&config());
        assert_eq!(picker.way(&Method::POST, &head("book")), Way::Take);
        let mut headers = head("book");
        headers.insert(
            "mcp-method",
            HeaderValue::from_static("subscriptions/listen"),
        );
        assert_eq!(picker.way(&Method::POST, &headers), Way::Pass, "named");
        headers.remove("mcp-name");
        assert_eq!(picker.way(&Method::POST, &headers), Way::Listen);
        assert_eq!(picker.way(&Method::GET, &headers), Way::Pass, "not a POST");
        let streaming = Picker::new(&StreamableHttpServerConfig::default());
        assert_eq!(streaming.way(&Method::POST, &headers), Way::Listen);
        assert_eq!(streaming.way(&Method::POST, &head("book")), Way::Pass);
    }

    #[test]
    fn each_body_rule_sends_the_request_to_rmcp() {
        let picker = Picker::new(&config());
        let headers = head("book");
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        let refused: [(&str, Vec<u8>); 6] = [
            ("another tool than Mcp-Name", call("other")),
            ("another method than Mcp-Method", body("prompts/get", json!({"name": "book", "_meta": meta}))),
            ("no _meta", body("tools/call", json!({"name": "book"}))),
            (
                "no capabilities",
                body("tools/call", json!({"name": "book", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})),
            ),
            ("not JSON", b"{\"jsonrpc\": \"2.0\"".to_vec()),
            (
                "a field JSON-RPC does not have",
                serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book", "_meta": meta}, "extra": 1})).unwrap(),
            ),
        ];
        assert!(picker.pick(&headers, &call("book"), no_mirrors).is_some());
        for (why, body) in refused {
            assert!(picker.pick(&headers, &body, no_mirrors).is_none(), "{why}");
        }
    }

    #[test]
    fn a_mirroring_tool_and_a_base64_name_go_to_rmcp() {
        let picker = Picker::new(&config());
        let headers = head("book");
        assert!(
            picker
                .pick(&headers, &call("book"), |tool| tool == "book")
                .is_none()
        );
        assert!(
            picker
                .pick(&headers, &call("book"), |tool| tool == "other")
                .is_some()
        );
        let wrapped = head("=?base64?Ym9vaw==?=");
        assert!(picker.pick(&wrapped, &call("book"), no_mirrors).is_none());
    }

    #[test]
    fn a_resource_read_is_picked_by_its_uri() {
        let picker = Picker::new(&config());
        let mut headers = head("file:///notes.txt");
        headers.insert("mcp-method", HeaderValue::from_static("resources/read"));
        let read = body(
            "resources/read",
            json!({"uri": "file:///notes.txt", "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }}),
        );
        let picked = picker.pick(&headers, &read, no_mirrors).unwrap();
        assert_eq!(picked.round.target(), "file:///notes.txt");
        assert!(matches!(picked.round, Round::Resource(_)));
    }
}
