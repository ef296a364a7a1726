//! Drives many concurrent three-round flows through a load balancer (loopback only, bounded in
//! count) and checks every result: each flow must end with exactly its own answers. Used by
//! `scripts/load_test.sh`.
//!
//! `TARGET=127.0.0.1:8080 FLOWS=300 CONCURRENCY=16 cargo run --release --example load_driver`;
//! `ALLOW_DEPLOY_REFUSALS=1` counts `-32602` refusals of in-flight states (after a deploy) apart
//! from errors.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Default)]
struct Tally {
    completed: AtomicUsize,
    /// Refusals by the round that was refused (2: resuming at the city question, 3: at the
    /// nights question).
    refused: [AtomicUsize; 2],
    errors: AtomicUsize,
    mixed: AtomicUsize,
}

async fn post(target: &str, body: &Value) -> Result<Value, String> {
    let body = body.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: plan_trip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::TcpStream::connect(target),
    )
    .await
    .map_err(|_| "connect timeout")?
    .map_err(|e| e.to_string())?;
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .map_err(|_| "read timeout")?
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").ok_or("no HTTP body")?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_owned()
    };
    serde_json::from_str(&body).map_err(|e| format!("{e}: {head}"))
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

fn call(id: usize, traveller: &str, responses: Option<Value>, state: Option<&Value>) -> Value {
    let mut params = json!({
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                  "io.modelcontextprotocol/clientInfo": {"name": "load-driver", "version": "1"}},
        "name": "plan_trip", "arguments": {"traveller": traveller}
    });
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    if let Some(state) = state {
        params["requestState"] = state.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

enum End {
    Completed,
    /// Refused when resuming in this round (2 or 3).
    Refused(usize),
}

/// One flow of three rounds; `Err` is anything unexpected.
async fn flow(target: &str, index: usize, allow_refusals: bool) -> Result<End, String> {
    let traveller = format!("traveller-{index}");
    let (city, nights) = (format!("city-{index}"), index % 30 + 1);
    let answers = [
        json!({"city": {"action": "accept", "content": {"city": city}}}),
        json!({"nights": {"action": "accept", "content": {"nights": nights}}}),
    ];
    let mut response = post(target, &call(1, &traveller, None, None)).await?;
    for (round, answer) in answers.into_iter().enumerate() {
        if allow_refusals && round > 0 && response["error"]["code"] == -32602 {
            return Ok(End::Refused(round + 1));
        }
        let result = &response["result"];
        if result["resultType"] != "input_required" {
            return Err(format!(
                "round {} of flow {index}: expected input_required, got {response}",
                round + 1
            ));
        }
        let state = result["requestState"].clone();
        response = post(
            target,
            &call(round + 2, &traveller, Some(answer), Some(&state)),
        )
        .await?;
    }
    if allow_refusals && response["error"]["code"] == -32602 {
        return Ok(End::Refused(3));
    }
    let text = response["result"]["content"][0]["text"]
        .as_str()
        .ok_or_else(|| format!("flow {index}: no final text in {response}"))?;
    let expected = format!("{traveller} goes to {city} for {nights} nights");
    if text != expected {
        return Err(format!(
            "MIXED flow {index}: {text:?} instead of {expected:?}"
        ));
    }
    Ok(End::Completed)
}

#[tokio::main]
async fn main() {
    let env =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let target = env("TARGET", "127.0.0.1:8080");
    let flows: usize = env("FLOWS", "300").parse().expect("FLOWS is a number");
    let concurrency: usize = env("CONCURRENCY", "16")
        .parse()
        .expect("CONCURRENCY is a number");
    let allow_refusals = std::env::var("ALLOW_DEPLOY_REFUSALS").is_ok();
    let next = Arc::new(AtomicUsize::new(0));
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (target, next, tally) = (target.clone(), Arc::clone(&next), Arc::clone(&tally));
            tokio::spawn(async move {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= flows {
                        break;
                    }
                    match flow(&target, index, allow_refusals).await {
                        Ok(End::Completed) => tally.completed.fetch_add(1, Ordering::SeqCst),
                        Ok(End::Refused(round)) => {
                            tally.refused[round - 2].fetch_add(1, Ordering::SeqCst)
                        }
                        Err(error) => {
                            eprintln!("{error}");
                            let counter = if error.starts_with("MIXED") {
                                &tally.mixed
                            } else {
                                &tally.errors
                            };
                            counter.fetch_add(1, Ordering::SeqCst)
                        }
                    };
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a worker panicked");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let (completed, refused_2, refused_3, errors, mixed) = (
        tally.completed.load(Ordering::SeqCst),
        tally.refused[0].load(Ordering::SeqCst),
        tally.refused[1].load(Ordering::SeqCst),
        tally.errors.load(Ordering::SeqCst),
        tally.mixed.load(Ordering::SeqCst),
    );
    let refused = refused_2 + refused_3;
    println!(
        "flows={flows} completed={completed} refused_by_deploy={refused} refused_at_city={refused_2} refused_at_nights={refused_3} errors={errors} mixed={mixed} seconds={elapsed:.1} flows_per_second={:.0}",
        flows as f64 / elapsed
    );
    if errors > 0 || mixed > 0 || completed + refused != flows {
        std::process::exit(1);
    }
}
