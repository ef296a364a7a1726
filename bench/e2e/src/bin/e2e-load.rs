//! The end-to-end load client of the `book` flow: closed loop, one keep-alive HTTP/1.1
//! connection per concurrent flow, every flow checked end to end (the offers shown, the
//! confirmation asked, the final text), `requestState` echoed byte for byte.
//!
//! ```text
//! e2e-load --url http://127.0.0.1:8131/mcp -c 16 -d 10 -w 2 --label rmcp   # load run
//! e2e-load --url .. --probe 300 --label rmcp     # flows one at a time: allocations, CPU
//! e2e-load --url .. --check                      # a tampered or re-bound state is refused
//! ```
//!
//! A load run prints `RESULT {json}`: flows/s over the measured window, p50/p99 latency per
//! round, response body and `requestState` sizes per round (for "Lisbon", the first city),
//! and every flow completed including the warm-up (to divide the server's CPU time by). A probe prints `PROBE {json}`: heap allocations and server CPU per round, read from
//! the server's `/stats` around each round of flows run one at a time, less what reading
//! `/stats` itself costs.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use mrtr_bench_e2e::book::round_body;
use mrtr_bench_e2e::{CITIES, offers};
use serde_json::{Value, json};

type Result<T, E = String> = std::result::Result<T, E>;

struct Target {
    addr: SocketAddr,
    host: String,
    path: String,
}

enum Mode {
    Load {
        concurrency: usize,
        duration: Duration,
        warmup: Duration,
    },
    Probe(usize),
    Check,
}

fn parse_args() -> Result<(Target, Mode, String)> {
    let mut url = None;
    let (mut concurrency, mut duration, mut warmup) = (16usize, 10.0f64, 2.0f64);
    let (mut probe, mut check, mut label) = (None, false, String::from("server"));
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--url" => url = Some(value()?),
            "-c" => concurrency = value()?.parse().map_err(|_| "-c: a number")?,
            "-d" => duration = value()?.parse().map_err(|_| "-d: seconds")?,
            "-w" => warmup = value()?.parse().map_err(|_| "-w: seconds")?,
            "--probe" => probe = Some(value()?.parse().map_err(|_| "--probe: a number")?),
            "--check" => check = true,
            "--label" => label = value()?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let url = url.ok_or("--url is required")?;
    let rest = url
        .strip_prefix("http://")
        .ok_or("only http:// URLs on loopback")?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let addr: SocketAddr = host.parse().map_err(|_| "the host must be ip:port")?;
    if !addr.ip().is_loopback() {
        return Err("loopback targets only".into());
    }
    let target = Target {
        addr,
        host: host.to_owned(),
        path: if path.is_empty() { "/" } else { path }.to_owned(),
    };
    let mode = match (probe, check) {
        (_, true) => Mode::Check,
        (Some(flows), _) => Mode::Probe(flows),
        _ => Mode::Load {
            concurrency,
            duration: Duration::from_secs_f64(duration.min(600.0)),
            warmup: Duration::from_secs_f64(warmup.min(60.0)),
        },
    };
    Ok((target, mode, label))
}

/// One keep-alive connection.
struct Connection {
    sender: SendRequest<Full<Bytes>>,
}

impl Connection {
    async fn open(target: &Target) -> Result<Self> {
        let stream = tokio::net::TcpStream::connect(target.addr)
            .await
            .map_err(|error| format!("connect: {error}"))?;
        stream
            .set_nodelay(true)
            .map_err(|error| error.to_string())?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|error| format!("handshake: {error}"))?;
        tokio::spawn(connection);
        Ok(Self { sender })
    }

    async fn send(&mut self, request: hyper::Request<Full<Bytes>>) -> Result<Bytes> {
        self.sender
            .ready()
            .await
            .map_err(|error| format!("connection: {error}"))?;
        let response =
            tokio::time::timeout(Duration::from_secs(10), self.sender.send_request(request))
                .await
                .map_err(|_| "no response within 10 s".to_owned())?
                .map_err(|error| format!("request: {error}"))?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|error| format!("body: {error}"))?
            .to_bytes();
        if !status.is_success() {
            return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&body)));
        }
        Ok(body)
    }

    /// One `tools/call book` round; returns the JSON-RPC response and its body's length.
    async fn call(
        &mut self,
        target: &Target,
        id: u64,
        arguments: Value,
        responses: Option<Value>,
        state: Option<&str>,
    ) -> Result<(Value, usize)> {
        let request = hyper::Request::post(&target.path)
            .header("host", &target.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "book")
            .body(Full::new(Bytes::from(round_body(
                id, arguments, responses, state,
            ))))
            .map_err(|error| error.to_string())?;
        let bytes = self.send(request).await?;
        let message: Value = serde_json::from_slice(&bytes)
            .map_err(|_| format!("not JSON: {}", String::from_utf8_lossy(&bytes)))?;
        if message["id"] != json!(id) {
            return Err(format!("response to another id: {message}"));
        }
        Ok((message, bytes.len()))
    }

    async fn stats(&mut self, target: &Target, query: &str) -> Result<(u64, u64)> {
        let request = hyper::Request::get(format!("/stats{query}"))
            .header("host", &target.host)
            .body(Full::new(Bytes::new()))
            .map_err(|error| error.to_string())?;
        let body = self.send(request).await?;
        let text = String::from_utf8_lossy(&body);
        let mut numbers = text.split(' ').map(|n| n.trim().parse::<u64>());
        match (numbers.next(), numbers.next()) {
            (Some(Ok(allocations)), Some(Ok(cpu))) => Ok((allocations, cpu)),
            _ => Err(format!("/stats answered {text:?}")),
        }
    }
}

/// One `input_required` round: the single question's key, its params and the state.
fn input_required(message: &Value, round: usize) -> Result<(String, Value, String)> {
    let result = message
        .get("result")
        .ok_or_else(|| format!("round {round}: no result: {message}"))?;
    if result["resultType"] != "input_required" {
        return Err(format!("round {round}: not input_required: {result}"));
    }
    let requests = result["inputRequests"]
        .as_object()
        .filter(|requests| requests.len() == 1)
        .ok_or_else(|| format!("round {round}: not exactly one input request: {result}"))?;
    let (key, request) = requests.iter().next().expect("one");
    if request["method"] != "elicitation/create" {
        return Err(format!("round {round}: not an elicitation: {request}"));
    }
    let state = result["requestState"]
        .as_str()
        .ok_or_else(|| format!("round {round}: no requestState"))?;
    Ok((key.clone(), request["params"].clone(), state.to_owned()))
}

/// The single property of a requested schema.
fn only_property(params: &Value, round: usize) -> Result<(String, Value)> {
    let properties = params["requestedSchema"]["properties"]
        .as_object()
        .filter(|properties| properties.len() == 1)
        .ok_or_else(|| format!("round {round}: not a one-field form: {params}"))?;
    let (name, schema) = properties.iter().next().expect("one");
    Ok((name.clone(), schema.clone()))
}

/// What one verified flow measured.
struct Flow {
    end: Instant,
    latency: [Duration; 3],
    body: [usize; 3],
    token: [usize; 2],
}

/// Hooks run between rounds (the probe reads `/stats` there).
trait Between {
    async fn at(&mut self, point: usize) -> Result<()>;
}

struct Nothing;

impl Between for Nothing {
    async fn at(&mut self, _: usize) -> Result<()> {
        Ok(())
    }
}

async fn flow(
    connection: &mut Connection,
    target: &Target,
    next_id: &mut u64,
    city: &str,
    between: &mut impl Between,
) -> Result<Flow> {
    let offers = offers(city);
    let arguments = json!({"to": city});
    let mut id = || {
        *next_id += 1;
        *next_id
    };

    between.at(0).await?;
    let start = Instant::now();
    let (message, body1) = connection
        .call(target, id(), arguments.clone(), None, None)
        .await?;
    let round1 = start.elapsed();
    between.at(1).await?;
    let (pick_key, params, state1) = input_required(&message, 1)?;
    let (field, schema) = only_property(&params, 1)?;
    let shown: Vec<&str> = match schema.get("enum") {
        Some(values) => values
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect(),
        None => schema["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|option| option["const"].as_str())
            .collect(),
    };
    let expected: Vec<&str> = offers.iter().map(|offer| offer.id.as_str()).collect();
    if shown != expected {
        return Err(format!("round 1: offers {shown:?}, expected {expected:?}"));
    }
    let chosen = &offers[1];

    let answer = json!({pick_key: {"action": "accept", "content": {field: chosen.id}}});
    let start2 = Instant::now();
    let (message, body2) = connection
        .call(target, id(), arguments.clone(), Some(answer), Some(&state1))
        .await?;
    let round2 = start2.elapsed();
    between.at(2).await?;
    let (confirm_key, params, state2) = input_required(&message, 2)?;
    let (field, schema) = only_property(&params, 2)?;
    if field != "ok" || schema["type"] != "boolean" {
        return Err(format!("round 2: not a confirmation: {params}"));
    }

    let answer = json!({confirm_key: {"action": "accept", "content": {"ok": true}}});
    let start3 = Instant::now();
    let (message, body3) = connection
        .call(target, id(), arguments, Some(answer), Some(&state2))
        .await?;
    let end = Instant::now();
    between.at(3).await?;
    let result = message
        .get("result")
        .ok_or_else(|| format!("round 3: no result: {message}"))?;
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let wanted = format!("booked {} to {city} for {}", chosen.id, chosen.price);
    if result["isError"] == true || text != wanted {
        return Err(format!("round 3: {result}, expected {wanted:?}"));
    }
    Ok(Flow {
        end,
        latency: [round1, round2, end - start3],
        body: [body1, body2, body3],
        token: [state1.len(), state2.len()],
    })
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index].as_secs_f64() * 1e6
}

async fn load(
    target: &Target,
    label: &str,
    concurrency: usize,
    duration: Duration,
    warmup: Duration,
) -> Result<()> {
    let target = std::sync::Arc::new(Target {
        addr: target.addr,
        host: target.host.clone(),
        path: target.path.clone(),
    });
    let begin = Instant::now();
    let (from, until) = (begin + warmup, begin + warmup + duration);
    let mut workers = Vec::new();
    for worker in 0..concurrency {
        let target = target.clone();
        workers.push(tokio::spawn(async move {
            let mut connection = Connection::open(&target).await?;
            let (mut flows, mut next_id, mut all) = (Vec::new(), 0u64, 0usize);
            let mut turn = worker;
            while Instant::now() < until {
                let city = CITIES[turn % CITIES.len()];
                turn += 1;
                let flow = flow(&mut connection, &target, &mut next_id, city, &mut Nothing)
                    .await
                    .map_err(|error| format!("{city}: {error}"))?;
                all += 1;
                if flow.end >= from && flow.end <= until {
                    flows.push((city, flow));
                }
            }
            Ok::<_, String>((flows, all))
        }));
    }
    let (mut flows, mut all) = (Vec::new(), 0);
    for worker in workers {
        let (done, count) = worker.await.map_err(|error| error.to_string())??;
        flows.extend(done);
        all += count;
    }
    let mut latencies: [Vec<Duration>; 3] = Default::default();
    for (_, flow) in &flows {
        for (round, latency) in flow.latency.iter().enumerate() {
            latencies[round].push(*latency);
        }
    }
    latencies.iter_mut().for_each(|round| round.sort());
    let lisbon = flows
        .iter()
        .find(|(city, _)| *city == CITIES[0])
        .map(|(_, flow)| flow)
        .ok_or("no flow for the first city completed")?;
    let report = json!({
        "label": label,
        "concurrency": concurrency,
        "flows": flows.len(),
        "all_flows": all,
        "seconds": duration.as_secs_f64(),
        "flows_per_s": flows.len() as f64 / duration.as_secs_f64(),
        "p50_us": latencies.iter().map(|round| percentile(round, 0.5)).collect::<Vec<_>>(),
        "p99_us": latencies.iter().map(|round| percentile(round, 0.99)).collect::<Vec<_>>(),
        "body_bytes": lisbon.body,
        "token_bytes": lisbon.token,
    });
    println!("RESULT {report}");
    Ok(())
}

/// Reads `/stats` between rounds on a second connection.
struct Probe<'a> {
    connection: Connection,
    target: &'a Target,
    readings: [(u64, u64); 4],
}

impl Between for Probe<'_> {
    async fn at(&mut self, point: usize) -> Result<()> {
        self.readings[point] = self.connection.stats(self.target, "").await?;
        Ok(())
    }
}

async fn probe(target: &Target, label: &str, flows: usize) -> Result<()> {
    let mut connection = Connection::open(target).await?;
    let mut probe = Probe {
        connection: Connection::open(target).await?,
        target,
        readings: [(0, 0); 4],
    };
    probe.connection.stats(target, "?count=1").await?;
    // What reading /stats twice in a row costs, to take off each round's reading.
    let mut overhead = (0u64, 0u64);
    let calibrations = flows.max(1);
    for _ in 0..calibrations {
        let a = probe.connection.stats(target, "").await?;
        let b = probe.connection.stats(target, "").await?;
        overhead.0 += b.0 - a.0;
        overhead.1 += b.1 - a.1;
    }
    let overhead = (
        overhead.0 as f64 / calibrations as f64,
        overhead.1 as f64 / calibrations as f64,
    );
    let (mut allocations, mut cpu) = ([0f64; 3], [0f64; 3]);
    let mut next_id = 0;
    for turn in 0..flows + 20 {
        let city = CITIES[turn % CITIES.len()];
        flow(&mut connection, target, &mut next_id, city, &mut probe).await?;
        if turn < 20 {
            continue; // warm-up
        }
        for round in 0..3 {
            let (before, after) = (probe.readings[round], probe.readings[round + 1]);
            allocations[round] += (after.0 - before.0) as f64 - overhead.0;
            cpu[round] += (after.1 - before.1) as f64 - overhead.1;
        }
    }
    probe.connection.stats(target, "?count=0").await?;
    let report = json!({
        "label": label,
        "flows": flows,
        "allocations": allocations.map(|total| (total / flows as f64).round()),
        "cpu_us": cpu.map(|total| (total / flows as f64 / 100.0).round() / 10.0),
    });
    println!("PROBE {report}");
    Ok(())
}

/// A tampered state, and a state presented with other arguments, must both be refused.
async fn check(target: &Target) -> Result<()> {
    let mut connection = Connection::open(target).await?;
    let city = CITIES[0];
    let (message, _) = connection
        .call(target, 1, json!({"to": city}), None, None)
        .await?;
    let (key, params, state) = input_required(&message, 1)?;
    let (field, _) = only_property(&params, 1)?;
    let answer = json!({key: {"action": "accept", "content": {field: offers(city)[1].id}}});
    let mut tampered = state.clone().into_bytes();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("ASCII");
    for (what, arguments, state) in [
        ("a tampered state", json!({"to": city}), tampered.as_str()),
        (
            "a state re-bound to other arguments",
            json!({"to": "Paris"}),
            state.as_str(),
        ),
    ] {
        let (message, _) = connection
            .call(target, 2, arguments, Some(answer.clone()), Some(state))
            .await?;
        let refused = message.get("error").is_some() || message["result"]["isError"] == true;
        println!("{what}: {}", if refused { "refused" } else { "ACCEPTED" });
        if !refused {
            return Err(format!("{what} was accepted: {message}"));
        }
    }
    Ok(())
}

fn main() {
    let outcome = parse_args().and_then(|(target, mode, label)| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| error.to_string())?;
        runtime.block_on(async {
            match mode {
                Mode::Load {
                    concurrency,
                    duration,
                    warmup,
                } => load(&target, &label, concurrency, duration, warmup).await,
                Mode::Probe(flows) => probe(&target, &label, flows).await,
                Mode::Check => check(&target).await,
            }
        })
    });
    if let Err(error) = outcome {
        eprintln!("e2e-load: {error}");
        std::process::exit(1);
    }
}
