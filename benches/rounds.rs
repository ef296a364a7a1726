//! What a round costs: an mrtr tool against the same three-round flow written by hand on rmcp
//! with its `RequestStateCodec` (the best a careful author does by hand today), in process, no
//! transport; how that cost moves with the round number and with the size of what is kept; and
//! how large the token is next to the raw JSON of the kept values.
//!
//! `cargo bench --bench rounds` prints criterion's report, then the ratios measured in the same
//! run, and writes `target/perf/rounds.svg` and `target/perf/slots.svg`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use mrtr::token::{KeyId, KeyRing, Mode, SecretKey};
use mrtr::{Form, Server, ToolError, elicit};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, InputRequiredResult,
    RequestStateCodec, SealOptions,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---------------------------------------------------------------- the flow, with mrtr

#[derive(Form)]
struct City {
    #[form(min_length = 1)]
    city: String,
}

#[derive(Form)]
struct Nights {
    #[form(minimum = 1, maximum = 30)]
    nights: u8,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct TripArgs {
    traveller: String,
}

#[mrtr::tool]
async fn book(args: TripArgs) -> Result<String, ToolError> {
    let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
    let nights = ask!(elicit::form::<Nights>("How many nights?"))
        .accepted()?
        .nights;
    Ok(format!(
        "{} goes to {city} for {nights} nights",
        args.traveller
    ))
}

/// Keeps `size` bytes across each of `rounds` asks, to see what rounds and slot size cost.
#[derive(Deserialize, schemars::JsonSchema)]
struct LoadArgs {
    rounds: u32,
    size: usize,
}

#[derive(Form)]
struct Go {
    go: bool,
}

#[mrtr::tool]
async fn carry(args: LoadArgs) -> Result<String, ToolError> {
    let kept = "x".repeat(args.size);
    for _ in 0..args.rounds {
        if !ask!(go = elicit::form::<Go>("Again?")).accepted()?.go {
            break;
        }
    }
    Ok(kept.len().to_string())
}

fn mrtr_server(mode: Mode) -> Server {
    let ring = KeyRing::with_signing_key(
        KeyId::new("bench").unwrap(),
        SecretKey::from_bytes(vec![7; 32]).unwrap(),
    );
    Server::builder("bench", "1")
        .key_ring(ring)
        .mode(mode)
        .max_rounds(64)
        .tool(book)
        .tool(carry)
        .build()
        .unwrap()
}

// ---------------------------------------------------------------- the flow, by hand on rmcp

#[derive(Serialize, Deserialize)]
struct BookState {
    step: u8,
    city: Option<String>,
}

struct HandWritten {
    codec: RequestStateCodec,
    city_form: Value,
    nights_form: Value,
}

impl HandWritten {
    fn new() -> Self {
        let form = |name: &str, property: Value| json!({"type": "object", "properties": {name: property}, "required": [name]});
        Self {
            codec: RequestStateCodec::try_new(vec![7u8; 32]).unwrap(),
            city_form: form("city", json!({"type": "string", "minLength": 1})),
            nights_form: form(
                "nights",
                json!({"type": "integer", "minimum": 1, "maximum": 30}),
            ),
        }
    }

    fn ask(
        &self,
        key: &str,
        message: &str,
        schema: &Value,
        state: &BookState,
        binding: &[u8],
    ) -> CallToolResponse {
        let options = SealOptions::new()
            .associated_data(binding)
            .ttl(Duration::from_secs(600));
        let sealed = self.codec.seal_json_with(state, &options).unwrap();
        let request = json!({key: {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": schema}}});
        let requests = serde_json::from_value(request).unwrap();
        CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(sealed)))
    }

    /// One round: the JSON-RPC request in, the response out, as a careful author writes it:
    /// state bound to tool, arguments and principal, answers checked against the schema.
    fn handle(&self, request: &Value) -> Value {
        let params: CallToolRequestParams =
            serde_json::from_value(request["params"].clone()).unwrap();
        let arguments = params.arguments.clone().unwrap_or_default();
        let traveller = arguments
            .get("traveller")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let binding = format!(
            "tools/call\0book\0{}\0anonymous",
            serde_json::to_string(&arguments).unwrap()
        );
        let answer = |key: &str| {
            params
                .input_responses
                .as_ref()
                .and_then(|responses| responses.get(key))
                .filter(|answer| answer["action"] == "accept")
                .map(|answer| answer["content"].clone())
        };
        let response = match &params.request_state {
            None => self.ask(
                "city",
                "Where to?",
                &self.city_form,
                &BookState {
                    step: 1,
                    city: None,
                },
                binding.as_bytes(),
            ),
            Some(sealed) => {
                let state: BookState = self
                    .codec
                    .open_json_with(sealed, binding.as_bytes())
                    .unwrap();
                match (state.step, state.city) {
                    (1, _) => match answer("city").and_then(|content| {
                        content["city"]
                            .as_str()
                            .filter(|city| !city.is_empty())
                            .map(str::to_owned)
                    }) {
                        Some(city) => self.ask(
                            "nights",
                            "How many nights?",
                            &self.nights_form,
                            &BookState {
                                step: 2,
                                city: Some(city),
                            },
                            binding.as_bytes(),
                        ),
                        None => self.ask(
                            "city",
                            "Where to?",
                            &self.city_form,
                            &BookState {
                                step: 1,
                                city: None,
                            },
                            binding.as_bytes(),
                        ),
                    },
                    (_, city) => match answer("nights")
                        .and_then(|content| content["nights"].as_u64())
                        .filter(|nights| (1..=30).contains(nights))
                    {
                        Some(nights) => {
                            let text = format!(
                                "{traveller} goes to {} for {nights} nights",
                                city.unwrap_or_default()
                            );
                            let result: CallToolResult = serde_json::from_value(json!({"content": [{"type": "text", "text": text}], "resultType": "complete"})).unwrap();
                            CallToolResponse::Complete(result)
                        }
                        None => self.ask(
                            "nights",
                            "How many nights?",
                            &self.nights_form,
                            &BookState { step: 2, city },
                            binding.as_bytes(),
                        ),
                    },
                }
            }
        };
        let result = serde_json::to_value(rmcp::model::ServerResult::from(response)).unwrap();
        json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
    }
}

// ---------------------------------------------------------------- driving a flow

fn request(
    tool: &str,
    arguments: &Value,
    responses: Option<Value>,
    state: Option<&Value>,
) -> Value {
    let mut params = json!({
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
        "name": tool, "arguments": arguments
    });
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    if let Some(state) = state {
        params["requestState"] = state.clone();
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

/// The three rounds of the booking flow through `handle`; returns the final text.
fn flow(mut handle: impl FnMut(&Value) -> Value) -> Value {
    let arguments = json!({"traveller": "Ada"});
    let first = handle(&request("book", &arguments, None, None));
    let city = json!({"city": {"action": "accept", "content": {"city": "Lisbon"}}});
    let second = handle(&request(
        "book",
        &arguments,
        Some(city),
        Some(&first["result"]["requestState"]),
    ));
    let nights = json!({"nights": {"action": "accept", "content": {"nights": 3}}});
    let third = handle(&request(
        "book",
        &arguments,
        Some(nights),
        Some(&second["result"]["requestState"]),
    ));
    third["result"]["content"][0]["text"].clone()
}

fn block_on<T>(
    runtime: &tokio::runtime::Runtime,
    future: impl std::future::Future<Output = T>,
) -> T {
    runtime.block_on(future)
}

/// The state of the `carry` tool after `rounds` rounds with `size` bytes kept.
fn carry_state(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
    rounds: u32,
    size: usize,
) -> (Value, Value) {
    let arguments = json!({"rounds": 1000, "size": size});
    let go = json!({"go": {"action": "accept", "content": {"go": true}}});
    let mut response = block_on(
        runtime,
        server.handle(request("carry", &arguments, None, None)),
    );
    for _ in 1..rounds {
        response = block_on(
            runtime,
            server.handle(request(
                "carry",
                &arguments,
                Some(go.clone()),
                Some(&response["result"]["requestState"]),
            )),
        );
    }
    (arguments, response["result"]["requestState"].clone())
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let hand = HandWritten::new();
    assert_eq!(
        flow(|request| hand.handle(request)),
        "Ada goes to Lisbon for 3 nights"
    );

    let mut group = c.benchmark_group("flow");
    group.bench_function(BenchmarkId::new("rmcp-by-hand", "hmac"), |b| {
        b.iter(|| {
            black_box(flow(|request| {
                block_on(&runtime, async { hand.handle(black_box(request)) })
            }))
        })
    });
    for mode in [Mode::Hmac, Mode::Aead] {
        let server = mrtr_server(mode);
        assert_eq!(
            flow(|request| block_on(&runtime, server.handle(request.clone()))),
            "Ada goes to Lisbon for 3 nights"
        );
        let name = format!("{mode:?}").to_lowercase();
        group.bench_function(BenchmarkId::new("mrtr", &name), |b| {
            b.iter(|| {
                black_box(flow(|request| {
                    block_on(&runtime, server.handle(black_box(request.clone())))
                }))
            })
        });
    }
    group.finish();

    // One round of `carry` resumed after k earlier rounds, and with s bytes kept.
    let server = mrtr_server(Mode::Hmac);
    let go = json!({"go": {"action": "accept", "content": {"go": true}}});
    let mut group = c.benchmark_group("round-after");
    for rounds in [1u32, 4, 16, 48] {
        let (arguments, state) = carry_state(&runtime, &server, rounds, 64);
        let retry = request("carry", &arguments, Some(go.clone()), Some(&state));
        group.bench_function(BenchmarkId::from_parameter(rounds), |b| {
            b.iter(|| black_box(block_on(&runtime, server.handle(black_box(retry.clone())))))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("round-keeping");
    for size in [16usize, 256, 4096, 32768] {
        let (arguments, state) = carry_state(&runtime, &server, 1, size);
        let retry = request("carry", &arguments, Some(go.clone()), Some(&state));
        group.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| black_box(block_on(&runtime, server.handle(black_box(retry.clone())))))
        });
    }
    group.finish();
}

/// Mean time of one benchmark from criterion's saved estimates.
fn mean_ns(path: &str) -> Option<f64> {
    let roots = [
        std::env::var_os("CARGO_TARGET_DIR").map(|dir| PathBuf::from(dir).join("criterion")),
        Some(PathBuf::from("target/criterion")),
    ];
    roots
        .into_iter()
        .flatten()
        .map(|root| root.join(path).join("new/estimates.json"))
        .find_map(|file| std::fs::read_to_string(file).ok())
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|estimates| estimates["mean"]["point_estimate"].as_f64())
}

/// A line chart as SVG: one series, each point labelled with its time and its x value
/// (`log_x`: a logarithmic x axis, for sizes).
fn svg(title: &str, x_label: &str, points: &[(f64, f64)], log_x: bool) -> String {
    let (width, height, margin) = (640.0, 360.0, 60.0);
    let scale = |value: f64| if log_x { value.log2() } else { value };
    let (min_x, max_x) = (
        scale(points[0].0).min(0.0),
        points.iter().map(|p| scale(p.0)).fold(f64::MIN, f64::max),
    );
    let max_y = points.iter().map(|p| p.1).fold(f64::MIN, f64::max) * 1.25;
    let x = |value: f64| margin + (scale(value) - min_x) / (max_x - min_x) * (width - 2.0 * margin);
    let y = |value: f64| height - margin - value / max_y * (height - 2.0 * margin);
    let line: Vec<String> = points
        .iter()
        .map(|(px, py)| format!("{:.1},{:.1}", x(*px), y(*py)))
        .collect();
    let marks: String = points
        .iter()
        .map(|(px, py)| {
            format!(
                "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"3\"/><text x=\"{cx:.1}\" y=\"{ty:.1}\" font-size=\"11\" text-anchor=\"middle\">{time:.1} µs</text>\
                 <text x=\"{cx:.1}\" y=\"{xy:.1}\" font-size=\"11\" text-anchor=\"middle\">{px}</text>",
                cx = x(*px),
                cy = y(*py),
                ty = y(*py) - 8.0,
                time = py / 1000.0,
                xy = height - margin + 16.0,
            )
        })
        .collect();
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\">\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
         <text x=\"{margin}\" y=\"24\" font-size=\"15\">{title}</text>\
         <line x1=\"{margin}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"black\"/><line x1=\"{margin}\" y1=\"{margin}\" x2=\"{margin}\" y2=\"{b}\" stroke=\"black\"/>\
         <text x=\"{r}\" y=\"{lx}\" font-size=\"12\" text-anchor=\"end\">{x_label}</text>\
         <text x=\"12\" y=\"{ly}\" font-size=\"12\">time per round (0 at the x axis)</text>\
         <polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"2\" points=\"{}\"/>{marks}</svg>\n",
        line.join(" "),
        b = height - margin,
        r = width - margin,
        lx = height - margin + 36.0,
        ly = margin - 12.0,
    )
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();

    println!("\nper flow of three rounds, same run:");
    let baseline = mean_ns("flow/rmcp-by-hand/hmac");
    for mode in ["hmac", "aead"] {
        if let (Some(mrtr), Some(baseline)) = (mean_ns(&format!("flow/mrtr/{mode}")), baseline) {
            println!(
                "  mrtr {mode}: {:.2}x the hand-written rmcp handler ({:.1} µs vs {:.1} µs a flow)",
                mrtr / baseline,
                mrtr / 1000.0,
                baseline / 1000.0
            );
        }
    }
    let after: Vec<(f64, f64)> = [1u32, 4, 16, 48]
        .iter()
        .filter_map(|rounds| {
            Some((
                f64::from(*rounds),
                mean_ns(&format!("round-after/{rounds}"))?,
            ))
        })
        .collect();
    let keeping: Vec<(f64, f64)> = [16usize, 256, 4096, 32768]
        .iter()
        .filter_map(|size| Some((*size as f64, mean_ns(&format!("round-keeping/{size}"))?)))
        .collect();
    if let (Some(first), Some(last)) = (after.first(), after.last()) {
        println!(
            "  a round after {} rounds costs {:.2}x a round after {}",
            last.0,
            last.1 / first.1,
            first.0
        );
    }
    let out =
        PathBuf::from(std::env::var_os("CARGO_TARGET_DIR").unwrap_or_else(|| "target".into()))
            .join("perf");
    if std::fs::create_dir_all(&out).is_ok() && !after.is_empty() && !keeping.is_empty() {
        let _ = std::fs::write(
            out.join("rounds.svg"),
            svg(
                "Cost of one round vs rounds already run",
                "rounds already run",
                &after,
                false,
            ),
        );
        let _ = std::fs::write(
            out.join("slots.svg"),
            svg(
                "Cost of one round vs bytes kept",
                "bytes kept (log scale)",
                &keeping,
                true,
            ),
        );
        println!("  plots: {}", out.display());
    }

    println!("\ntoken size next to the raw JSON of the kept values:");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for mode in [Mode::Hmac, Mode::Aead] {
        let server = mrtr_server(mode);
        for size in [16usize, 1024, 16384] {
            let (_, state) = carry_state(&runtime, &server, 1, size);
            let raw = serde_json::to_string(&"x".repeat(size)).unwrap().len();
            let token = state.as_str().unwrap_or_default().len();
            println!(
                "  {mode:?} keeping {size:>5} bytes: token {token:>6} bytes, {:.2}x the raw JSON ({raw} bytes)",
                token as f64 / raw as f64
            );
        }
    }
}
