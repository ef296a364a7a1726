//! Which requests the direct path answers: the picker. It decides from the head alone whether
//! the body is worth reading ([`Picker::way`], one pass over the headers), then from the body whether it is a round the
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
//!
//! The body is read into mrtr's own view of the params ([`Params`]): the fields and types of
//! rmcp's, so that it accepts and refuses what rmcp's would, without the copies rmcp's owned
//! strings and sorted answer map make.

use std::borrow::Cow;

use http::{HeaderMap, HeaderValue};
use rmcp::model::{
    CallToolRequestMethod, GetPromptRequestMethod, JsonRpcVersion2_0, MetaObject, ProtocolVersion,
    ReadResourceRequestMethod, RequestId, RequestMetaObject,
};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::server::RoundMethod;

pub(super) const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
const PROTOCOL_VERSION: &str = "2026-07-28";
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
    pub(super) fn way<'h>(&self, method: &http::Method, headers: &'h HeaderMap) -> Way<'h> {
        if *method != http::Method::POST {
            return Way::Pass;
        }
        let head = Head::read(headers);
        if !self.sound(&head) {
            return Way::Pass;
        }
        let Some(mcp_method) = head.mcp_method.text() else {
            return Way::Pass;
        };
        if mcp_method == "subscriptions/listen" && matches!(head.mcp_name, Once::Absent) {
            return Way::Listen;
        }
        // The direct path answers with one JSON response; with `json_response` off rmcp
        // answers with an event stream, so rmcp keeps every request.
        match (
            self.json_response,
            round_method(mcp_method),
            head.mcp_name.text(),
        ) {
            (true, Some(method), Some(name)) => Way::Take(Asked { method, name }),
            _ => Way::Pass,
        }
    }

    /// Whether the request's method and headers allow the direct path.
    #[cfg(test)]
    pub(super) fn takes(&self, method: &http::Method, headers: &HeaderMap) -> bool {
        matches!(self.way(method, headers), Way::Take(_))
    }

    /// The round in `body`, if the direct path answers it: a request of the method and
    /// target the head named (`asked`), with a 2026-07-28 `_meta`, not of a tool whose
    /// arguments are mirrored in headers (`mirrors_headers`: rmcp checks those, even absent
    /// ones).
    pub(super) fn pick<'b>(
        &self,
        asked: Asked<'_>,
        body: &'b [u8],
        mirrors_headers: impl Fn(&str) -> bool,
    ) -> Option<Call<'b>> {
        let call = Call::parse(asked, body)?;
        let mirrored = call.method == RoundMethod::CallTool && mirrors_headers(&call.params.target);
        (!mirrored).then_some(call)
    }

    /// The checks rmcp makes on every stateless 2026-07-28 POST, each at least as strict.
    fn sound(&self, head: &Head<'_>) -> bool {
        !head.refused
            && self.host_allowed(head.host.text())
            && head.accept.json
            && head.accept.event_stream
            && !head.accept.unsure
            && head.content_type.text().is_some_and(|value| {
                let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
                essence.trim().eq_ignore_ascii_case(JSON)
            })
            && head
                .content_length
                .text()
                .and_then(|length| length.parse::<usize>().ok())
                .is_some_and(|length| length < self.body_limit)
            && head.protocol_version.text() == Some(PROTOCOL_VERSION)
    }

    /// The `Host` header is allowed by rmcp's rule: any host when the list is empty, else a
    /// listed host, on its port if the entry names one. A request without a `Host` header goes
    /// to rmcp.
    fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(authority) = host.and_then(|host| http::uri::Authority::try_from(host).ok())
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

/// The method of a round, from its name.
fn round_method(name: &str) -> Option<RoundMethod> {
    Some(match name {
        "tools/call" => RoundMethod::CallTool,
        "prompts/get" => RoundMethod::GetPrompt,
        "resources/read" => RoundMethod::ReadResource,
        _ => return None,
    })
}

/// The three methods whose calls run a machine.
pub(super) fn runs_a_machine(method: &str) -> bool {
    round_method(method).is_some()
}

/// What the head says, read in one pass over its fields rather than a lookup per header.
#[derive(Default)]
struct Head<'h> {
    host: Once<'h>,
    content_type: Once<'h>,
    content_length: Once<'h>,
    protocol_version: Once<'h>,
    mcp_method: Once<'h>,
    mcp_name: Once<'h>,
    accept: Accept,
    /// An `Origin`, a session id or an `Mcp-Param-*` header: rmcp checks those.
    refused: bool,
}

impl<'h> Head<'h> {
    fn read(headers: &'h HeaderMap) -> Self {
        let mut head = Self::default();
        for (name, value) in headers {
            match name.as_str() {
                "host" => head.host.see(value),
                "content-type" => head.content_type.see(value),
                "content-length" => head.content_length.see(value),
                "mcp-protocol-version" => head.protocol_version.see(value),
                "mcp-method" => head.mcp_method.see(value),
                "mcp-name" => head.mcp_name.see(value),
                "accept" => head.accept.see(value),
                "origin" | SESSION_ID => head.refused = true,
                name if name.starts_with("mcp-param-") => head.refused = true,
                _ => {}
            }
        }
        head
    }
}

/// A header seen none, one or several times.
#[derive(Default)]
enum Once<'h> {
    #[default]
    Absent,
    One(&'h HeaderValue),
    Several,
}

impl<'h> Once<'h> {
    fn see(&mut self, value: &'h HeaderValue) {
        *self = match self {
            Self::Absent => Self::One(value),
            Self::One(_) | Self::Several => Self::Several,
        };
    }

    /// The one value, if there is exactly one and it is text.
    fn text(&self) -> Option<&'h str> {
        match self {
            Self::One(value) => value.to_str().ok(),
            Self::Absent | Self::Several => None,
        }
    }
}

/// What the `Accept` values name, over all of them: the direct path needs both media types,
/// with no parameters or quoting anywhere (rmcp weighs those; such requests go to it).
#[derive(Default)]
struct Accept {
    json: bool,
    event_stream: bool,
    unsure: bool,
}

impl Accept {
    fn see(&mut self, value: &HeaderValue) {
        let Ok(value) = value.to_str() else {
            self.unsure = true;
            return;
        };
        if value.contains([';', '"']) {
            self.unsure = true;
            return;
        }
        for essence in value.split(',').map(str::trim) {
            self.json |= essence.eq_ignore_ascii_case(JSON);
            self.event_stream |= essence.eq_ignore_ascii_case(EVENT_STREAM);
        }
    }
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
pub(super) enum Way<'h> {
    /// The direct path may answer it.
    Take(Asked<'h>),
    /// A stateless `subscriptions/listen`.
    Listen,
    /// rmcp answers it.
    Pass,
}

/// What the head asks for: the method (`Mcp-Method`) and its target (`Mcp-Name`, verbatim).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Asked<'h> {
    method: RoundMethod,
    name: &'h str,
}

/// A round request the direct path answers.
pub(super) struct Call<'b> {
    pub(super) id: RequestId,
    pub(super) method: RoundMethod,
    pub(super) params: Params<'b>,
}

/// A round's params, read as rmcp's typed params read them (the same fields, the same types,
/// unknown fields ignored), with the target and the state borrowed from the body where it
/// holds them verbatim, and the answers kept in the order they came.
pub(super) struct Params<'b> {
    /// The members of `_meta` that are read (see [`Meta`]).
    pub(super) meta: Option<Map<String, Value>>,
    /// The tool or prompt name, or the resource URI.
    pub(super) target: Cow<'b, str>,
    pub(super) arguments: Option<Map<String, Value>>,
    pub(super) input_responses: Option<Map<String, Value>>,
    pub(super) request_state: Option<Cow<'b, str>>,
}

/// The params of `tools/call` and `prompts/get`, field for field as rmcp types them.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Named<'b> {
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
    #[serde(borrow)]
    name: Text<'b>,
    arguments: Option<Map<String, Value>>,
    input_responses: Option<Map<String, Value>>,
    #[serde(borrow)]
    request_state: Option<Text<'b>>,
}

/// The params of `resources/read`: a URI and no arguments (rmcp ignores any).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Addressed<'b> {
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
    #[serde(borrow)]
    uri: Text<'b>,
    input_responses: Option<Map<String, Value>>,
    #[serde(borrow)]
    request_state: Option<Text<'b>>,
}

impl<'b> From<Named<'b>> for Params<'b> {
    fn from(params: Named<'b>) -> Self {
        Self {
            meta: params.meta.map(|meta| meta.0),
            target: params.name.0,
            arguments: params.arguments,
            input_responses: params.input_responses,
            request_state: params.request_state.map(|state| state.0),
        }
    }
}

impl<'b> From<Addressed<'b>> for Params<'b> {
    fn from(params: Addressed<'b>) -> Self {
        Self {
            meta: params.meta.map(|meta| meta.0),
            target: params.uri.0,
            arguments: None,
            input_responses: params.input_responses,
            request_state: params.request_state.map(|state| state.0),
        }
    }
}

/// A request's `_meta` as the direct path keeps it: the members that are read, rmcp's checks
/// (the version and the capabilities) and the round's span (the version and the trace
/// context). Every other member, such as `clientInfo`, is checked to be JSON and skipped
/// rather than built.
struct Meta(Map<String, Value>);

/// The `_meta` members the direct path reads.
const READ_META: [&str; 4] = [
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    "traceparent",
    "tracestate",
];

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Map<String, Value>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut members: A,
            ) -> Result<Self::Value, A::Error> {
                let mut read = Map::new();
                while let Some(Text(key)) = members.next_key::<Text<'de>>()? {
                    if READ_META.contains(&&*key) {
                        read.insert(key.into_owned(), members.next_value()?);
                    } else {
                        members.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(read)
            }
        }
        deserializer.deserialize_map(Visitor).map(Meta)
    }
}

/// A JSON string, borrowed from the body when it has no escapes.
struct Text<'b>(Cow<'b, str>);

impl<'de: 'b, 'b> Deserialize<'de> for Text<'b> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(text))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(text.to_owned()))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(text))
            }
        }
        deserializer.deserialize_str(Visitor).map(Text)
    }
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

impl<'b, M: Deserialize<'b>, P: Deserialize<'b> + Into<Params<'b>>> Envelope<M, P> {
    fn parse(body: &'b [u8], method: RoundMethod) -> Option<Call<'b>> {
        let Self { id, params, .. } = serde_json::from_slice(body).ok()?;
        Some(Call {
            id,
            method,
            params: params.into(),
        })
    }
}

impl<'b> Call<'b> {
    /// The round in `body`, if it is one the direct path takes: of the method `Mcp-Method`
    /// names, for the target `Mcp-Name` names verbatim, with a `_meta` carrying what a
    /// 2026-07-28 request must, by rmcp's own reading of it.
    fn parse(asked: Asked<'_>, body: &'b [u8]) -> Option<Self> {
        let mut call = match asked.method {
            RoundMethod::CallTool => {
                Envelope::<CallToolRequestMethod, Named>::parse(body, asked.method)
            }
            RoundMethod::GetPrompt => {
                Envelope::<GetPromptRequestMethod, Named>::parse(body, asked.method)
            }
            RoundMethod::ReadResource => {
                Envelope::<ReadResourceRequestMethod, Addressed>::parse(body, asked.method)
            }
        }?;
        // Lent to rmcp's type for its checks, then taken back: nothing is copied.
        let meta = RequestMetaObject(MetaObject(call.params.meta.take()?));
        let complete = meta.protocol_version() == Some(ProtocolVersion::V_2026_07_28)
            && meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty();
        call.params.meta = Some(meta.0.0);
        // rmcp decodes a Base64-wrapped `Mcp-Name` before comparing; those go to it.
        let name = asked.name;
        let verbatim = !(name.starts_with("=?base64?") && name.ends_with("?="));
        (complete && verbatim && name == call.params.target).then_some(call)
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

    /// What the picker makes of a POST with `headers` and `body`: its head, then its body.
    fn pick<'b>(
        picker: &Picker,
        headers: &HeaderMap,
        body: &'b [u8],
        mirrors_headers: impl Fn(&str) -> bool,
    ) -> Option<Call<'b>> {
        let Way::Take(asked) = picker.way(&Method::POST, headers) else {
            panic!("the head must pass: {headers:?}");
        };
        picker.pick(asked, body, mirrors_headers)
    }

    #[test]
    fn a_well_formed_round_is_picked_with_its_id_and_params() {
        let picker = Picker::new(&config());
        let headers = head("book");
        assert!(picker.takes(&Method::POST, &headers));
        let body = call("book");
        let picked = pick(&picker, &headers, &body, no_mirrors).unwrap();
        assert_eq!(picked.id, RequestId::Number(7));
        assert_eq!(picked.method, RoundMethod::CallTool);
        assert_eq!(picked.params.target, "book");
        assert!(
            matches!(picked.params.target, Cow::Borrowed(_)),
            "borrowed from the body"
        );
        assert_eq!(picked.params.arguments.unwrap()["city"], "Oslo");
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
        assert_eq!(
            picker.way(&Method::POST, &head("book")),
            Way::Take(Asked {
                method: RoundMethod::CallTool,
                name: "book"
            })
        );
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
        assert!(pick(&picker, &headers, &call("book"), no_mirrors).is_some());
        for (why, body) in refused {
            assert!(
                pick(&picker, &headers, &body, no_mirrors).is_none(),
                "{why}"
            );
        }
    }

    #[test]
    fn a_mirroring_tool_and_a_base64_name_go_to_rmcp() {
        let picker = Picker::new(&config());
        let headers = head("book");
        assert!(pick(&picker, &headers, &call("book"), |tool| tool == "book").is_none());
        assert!(pick(&picker, &headers, &call("book"), |tool| tool == "other").is_some());
        let wrapped = head("=?base64?Ym9vaw==?=");
        assert!(pick(&picker, &wrapped, &call("book"), no_mirrors).is_none());
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
        let picked = pick(&picker, &headers, &read, no_mirrors).unwrap();
        assert_eq!(picked.params.target, "file:///notes.txt");
        assert_eq!(picked.method, RoundMethod::ReadResource);
    }

    /// What a round's params read as: target, arguments, answers (sorted: the engine looks
    /// them up by key) and state.
    type Read = (
        String,
        Option<Map<String, Value>>,
        Option<std::collections::BTreeMap<String, Value>>,
        Option<String>,
    );

    /// rmcp's reading of the request in `text`: its envelope with its typed params.
    fn rmcps(method: RoundMethod, text: &str) -> Option<Read> {
        use rmcp::model::{
            CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams,
        };
        fn read<M: serde::de::DeserializeOwned, P: serde::de::DeserializeOwned>(
            text: &str,
        ) -> Option<P> {
            serde_json::from_str::<Envelope<M, P>>(text)
                .ok()
                .map(|envelope| envelope.params)
        }
        Some(match method {
            RoundMethod::CallTool => {
                let p: CallToolRequestParams = read::<CallToolRequestMethod, _>(text)?;
                let name = p.name.into_owned();
                (name, p.arguments, p.input_responses, p.request_state)
            }
            RoundMethod::GetPrompt => {
                let p: GetPromptRequestParams = read::<GetPromptRequestMethod, _>(text)?;
                (p.name, p.arguments, p.input_responses, p.request_state)
            }
            RoundMethod::ReadResource => {
                let p: ReadResourceRequestParams = read::<ReadResourceRequestMethod, _>(text)?;
                (p.uri, None, p.input_responses, p.request_state)
            }
        })
    }

    /// mrtr's reading of the same request.
    fn ours(method: RoundMethod, text: &str) -> Option<Read> {
        // The name the head would carry: the body's own, so that only the body decides.
        let target: Value = serde_json::from_str::<Value>(text).ok()?["params"].clone();
        let name = ["name", "uri"]
            .iter()
            .find_map(|field| target.get(field).and_then(Value::as_str))
            .unwrap_or_default()
            .to_owned();
        let call = Call::parse(
            Asked {
                method,
                name: &name,
            },
            text.as_bytes(),
        )?;
        let p = call.params;
        let answers = p
            .input_responses
            .map(|answers| answers.into_iter().collect());
        let state = p.request_state.map(Cow::into_owned);
        Some((p.target.into_owned(), p.arguments, answers, state))
    }

    #[test]
    fn params_are_read_as_rmcp_reads_them() {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        // Raw text, so that escapes and repeated keys reach both readers as sent.
        let cases = [
            r#""name": "t", "arguments": {"a": 1}, "inputResponses": {"z": 1, "a": {"action": "accept"}}, "requestState": "s.t-_""#,
            r#""name": "t\u0041", "requestState": "a\/b""#,
            r#""name": "t", "arguments": null, "inputResponses": null, "requestState": null"#,
            r#""name": "t", "arguments": [1]"#,
            r#""name": "t", "arguments": "x""#,
            r#""name": "t", "inputResponses": [1]"#,
            r#""name": "t", "requestState": 5"#,
            r#""name": 5"#,
            r#""arguments": {}"#,
            r#""name": "t", "name": "t""#,
            r#""name": "t", "inputResponses": {"k": 1, "k": 2}"#,
            r#""name": "t", "task": {"ttl": 5}, "unknown": [1, 2]"#,
            r#""uri": "file:///a", "arguments": 5, "name": 7"#,
            r#""uri": "file:///a", "inputResponses": {"q": {}}, "requestState": "x""#,
            r#""uri": 1"#,
        ];
        let methods = [
            RoundMethod::CallTool,
            RoundMethod::GetPrompt,
            RoundMethod::ReadResource,
        ];
        let mut picked = 0;
        for case in cases {
            for method in methods {
                let text = format!(
                    r#"{{"jsonrpc": "2.0", "id": 1, "method": "{}", "params": {{"_meta": {meta}, {case}}}}}"#,
                    method.as_str()
                );
                let theirs = rmcps(method, &text);
                picked += usize::from(theirs.is_some());
                assert_eq!(ours(method, &text), theirs, "{} {case}", method.as_str());
            }
        }
        assert!(picked >= 12, "most cases are rounds both read: {picked}");
    }

    #[test]
    fn only_the_meta_members_read_are_kept() {
        let picker = Picker::new(&config());
        let headers = head("book");
        let full = body(
            "tools/call",
            json!({"name": "book", "_meta": {
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "progressToken": [1, {"a": null}],
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "tracestate": "k=v"
            }}),
        );
        let picked = pick(&picker, &headers, &full, no_mirrors).unwrap();
        let meta = picked.params.meta.unwrap();
        let kept: Vec<&str> = meta.keys().map(String::as_str).collect();
        assert_eq!(
            kept,
            [
                "io.modelcontextprotocol/protocolVersion",
                "io.modelcontextprotocol/clientCapabilities",
                "traceparent",
                "tracestate"
            ]
        );
        assert_eq!(meta["tracestate"], "k=v");
        // What is skipped must still be JSON, and the `_meta` an object, as rmcp requires.
        let broken = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "x": [1,}}}"#;
        assert!(pick(&picker, &headers, broken, no_mirrors).is_none());
        let not_an_object = body("tools/call", json!({"name": "book", "_meta": [1]}));
        assert!(pick(&picker, &headers, &not_an_object, no_mirrors).is_none());
    }
}
