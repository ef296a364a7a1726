//! The baseline: the `book` flow hand-written on rmcp 3.11 the way rmcp documents MRTR. A
//! `ServerHandler::call_tool` returns `InputRequiredResult`s and keeps its progress in a
//! `requestState` sealed with rmcp's `RequestStateCodec` (HMAC-SHA256, 600 s TTL), with the
//! method, tool name and arguments as associated data. Served stateless over streamable HTTP
//! with JSON responses.
//!
//! Usage: `e2e-rmcp PORT`

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use mrtr_bench_e2e::{KEY, Offer, alloc::Counting, offers};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, EnumSchema,
    Implementation, InputRequest, InputRequests, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, RequestStateCodec, SealOptions, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const TTL: Duration = Duration::from_secs(600);

/// What the flow keeps between rounds.
#[derive(Serialize, Deserialize)]
enum Progress {
    /// Round 1 showed these offers.
    Shown(Vec<Offer>),
    /// Round 2 picked this one.
    Picked(Offer),
}

#[derive(Clone)]
struct Book {
    codec: Arc<RequestStateCodec>,
}

fn pick_question(city: &str, offers: &[Offer]) -> InputRequest {
    let listing: Vec<String> = offers
        .iter()
        .map(|offer| format!("{} ({})", offer.id, offer.price))
        .collect();
    let ids = offers.iter().map(|offer| offer.id.clone()).collect();
    let schema = ElicitationSchema::builder()
        .required_enum_schema("id", EnumSchema::builder(ids).build())
        .build()
        .expect("a valid schema");
    form(
        format!("Pick an offer to {city}: {}", listing.join(", ")),
        schema,
    )
}

fn confirm_question(city: &str, offer: &Offer) -> InputRequest {
    let schema = ElicitationSchema::builder()
        .required_bool("ok")
        .build()
        .expect("a valid schema");
    form(
        format!("Book {} to {city} for {}?", offer.id, offer.price),
        schema,
    )
}

fn form(message: String, requested_schema: ElicitationSchema) -> InputRequest {
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema,
        },
    ))
}

/// The accepted content of the answer under `key`: `None` if absent or unreadable (ask again),
/// `Some(Err(()))` if declined or cancelled.
fn answer(request: &CallToolRequestParams, key: &str) -> Option<Result<Value, ()>> {
    let raw = request.input_responses.as_ref()?.get(key)?;
    let result = ElicitResult::deserialize(raw).ok()?;
    Some(match result.action {
        ElicitationAction::Accept => Ok(result.content?),
        _ => Err(()),
    })
}

fn tool_error(text: &str) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text)]).into()
}

impl Book {
    fn seal(&self, progress: &Progress, bound: &[u8]) -> Result<String, ErrorData> {
        let options = SealOptions::new().associated_data(bound).ttl(TTL);
        self.codec
            .seal_json_with(progress, &options)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    fn ask(
        &self,
        key: &str,
        question: InputRequest,
        progress: &Progress,
        bound: &[u8],
    ) -> Result<CallToolResponse, ErrorData> {
        let state = self.seal(progress, bound)?;
        let mut requests = InputRequests::new();
        requests.insert(key.to_owned(), question);
        Ok(InputRequiredResult::new(Some(requests), Some(state)).into())
    }

    fn book(&self, request: CallToolRequestParams) -> Result<CallToolResponse, ErrorData> {
        let city = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("to"))
            .and_then(Value::as_str)
            .ok_or_else(|| ErrorData::invalid_params("`to` (a string) is required", None))?;
        // Associated data: the method, the tool and the arguments as sent.
        let mut bound = b"tools/call\0book\0".to_vec();
        if let Some(arguments) = &request.arguments {
            serde_json::to_writer(&mut bound, arguments).expect("a map serializes");
        }
        let progress = match &request.request_state {
            None => None,
            Some(state) => Some(
                self.codec
                    .open_json_with::<Progress>(state, &bound)
                    .map_err(|_| ErrorData::invalid_params("invalid requestState", None))?,
            ),
        };
        match progress {
            None => {
                let offers = offers(city);
                let question = pick_question(city, &offers);
                self.ask("pick", question, &Progress::Shown(offers), &bound)
            }
            Some(Progress::Shown(offers)) => {
                let picked = match answer(&request, "pick") {
                    Some(Err(())) => return Ok(tool_error("not booked: no offer picked")),
                    Some(Ok(content)) => content
                        .get("id")
                        .and_then(Value::as_str)
                        .and_then(|id| offers.iter().find(|offer| offer.id == id))
                        .cloned(),
                    None => None,
                };
                match picked {
                    Some(offer) => {
                        let question = confirm_question(city, &offer);
                        self.ask("confirm", question, &Progress::Picked(offer), &bound)
                    }
                    None => {
                        let question = pick_question(city, &offers);
                        self.ask("pick", question, &Progress::Shown(offers), &bound)
                    }
                }
            }
            Some(Progress::Picked(offer)) => match answer(&request, "confirm") {
                Some(Ok(content)) => match content.get("ok").and_then(Value::as_bool) {
                    Some(true) => {
                        let text = format!("booked {} to {city} for {}", offer.id, offer.price);
                        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
                    }
                    Some(false) => Ok(tool_error("not booked: not confirmed")),
                    None => {
                        let question = confirm_question(city, &offer);
                        self.ask("confirm", question, &Progress::Picked(offer), &bound)
                    }
                },
                Some(Err(())) => Ok(tool_error("not booked: not confirmed")),
                None => {
                    let question = confirm_question(city, &offer);
                    self.ask("confirm", question, &Progress::Picked(offer), &bound)
                }
            },
        }
    }
}

impl ServerHandler for Book {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("e2e-rmcp", "0.1.0"))
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"to": {"type": "string", "description": "Destination city"}},
            "required": ["to"],
        });
        let Value::Object(schema) = schema else {
            unreachable!("an object literal")
        };
        let tool = Tool::new(
            "book",
            "Book a trip: pick one of five offers, then confirm.",
            schema,
        );
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "book" => self.book(request),
            _ => Err(ErrorData::invalid_params("unknown tool", None)),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::args()
        .nth(1)
        .and_then(|port| port.parse().ok())
        .unwrap_or(8131);
    let book = Book {
        codec: Arc::new(RequestStateCodec::try_new(KEY.to_vec())?),
    };
    let service = StreamableHttpService::new(
        move || Ok(book.clone()),
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_legacy_session_mode(false),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    mrtr_bench_e2e::serve(router, port).await?;
    Ok(())
}
