//! Seal/open throughput against the raw primitive over the same bytes.
//!
//! Run with `cargo bench -p mrtr-runtime --bench codec`. After criterion's own report, the
//! bench prints each operation's cost as a ratio to the raw primitive measured in the same run.

use std::hint::black_box;
use std::path::PathBuf;

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use criterion::{BenchmarkId, Criterion, Throughput};
use hmac::{Hmac, Mac};
use mrtr_runtime::token::{Binding, Fingerprint, KeyId, KeyRing, Mode, SecretKey, StateCodec};
use serde_json::{Value, json};
use sha2::Sha256;

/// A typical machine payload: a pc, a few kept values and one pending question.
fn payload() -> Value {
    json!({
        "pc": 3,
        "slots": {"forecast": "sunny, 21°C", "offers": ["AF1234 09:10", "LH88 11:45", "KL55 14:20"]},
        "pending": {"seat": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Pick a seat",
            "requestedSchema": {"type": "object", "properties": {"seat": {"type": "string"}}}
        }}}
    })
}

fn bench(c: &mut Criterion) {
    let payload = payload();
    let args = json!({"location": "Paris"});
    let binding = Binding::new("tools/call", "get_weather", Some(&args)).principal(Some("alice"));
    let fingerprint = Fingerprint::of(b"bench");
    // The codec's body is ~120 bytes of claims plus the JSON payload: the raw primitive gets
    // exactly that many bytes, so the ratio is the codec's own overhead.
    let body = vec![0x5au8; 120 + serde_json::to_vec(&payload).unwrap().len()];
    let key = [7u8; 32];

    for mode in [Mode::Hmac, Mode::Aead] {
        let name = format!("{mode:?}").to_lowercase();
        let codec = StateCodec::builder()
            .mode(mode)
            .key_ring(KeyRing::with_signing_key(
                KeyId::new("k1").unwrap(),
                SecretKey::random(),
            ))
            .build()
            .unwrap();
        let flow = codec.start_flow(fingerprint);
        let token = codec.seal(&flow, &binding, &payload).unwrap();

        let mut group = c.benchmark_group(&name);
        group.throughput(Throughput::Bytes(body.len() as u64));
        match mode {
            Mode::Hmac => group.bench_function(BenchmarkId::new("raw", "hmac-sha256"), |b| {
                b.iter(|| {
                    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key).unwrap();
                    mac.update(black_box(&body));
                    black_box(mac.finalize().into_bytes())
                })
            }),
            Mode::Aead => group.bench_function(BenchmarkId::new("raw", "xchacha20poly1305"), |b| {
                let cipher = XChaCha20Poly1305::new((&key).into());
                let nonce = [3u8; 24];
                b.iter(|| {
                    let msg = Payload {
                        msg: black_box(&body[..]),
                        aad: b"aad",
                    };
                    black_box(cipher.encrypt(XNonce::from_slice(&nonce), msg).unwrap())
                })
            }),
        };
        group.bench_function(BenchmarkId::new("codec", "seal"), |b| {
            b.iter(|| black_box(codec.seal(&flow, &binding, black_box(&payload)).unwrap()))
        });
        group.bench_function(BenchmarkId::new("codec", "open"), |b| {
            b.iter(|| {
                black_box(
                    codec
                        .open::<Value>(black_box(&token), &binding, fingerprint)
                        .unwrap(),
                )
            })
        });
        group.finish();
    }
}

/// Mean time of one benchmark from criterion's saved estimates.
fn mean_ns(group: &str, function: &str, parameter: &str) -> Option<f64> {
    let roots = [std::env::var_os("CRITERION_HOME").map(PathBuf::from)]
        .into_iter()
        .flatten()
        .chain(std::env::var_os("CARGO_TARGET_DIR").map(|dir| PathBuf::from(dir).join("criterion")))
        .chain(["target/criterion", "../target/criterion"].map(PathBuf::from));
    roots
        .map(|root| {
            root.join(group)
                .join(function)
                .join(parameter)
                .join("new/estimates.json")
        })
        .find_map(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|estimates| estimates["mean"]["point_estimate"].as_f64())
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();

    println!("\nratios to the raw primitive over the same bytes (same run):");
    for (group, raw) in [("hmac", "hmac-sha256"), ("aead", "xchacha20poly1305")] {
        let Some(baseline) = mean_ns(group, "raw", raw) else {
            continue;
        };
        for op in ["seal", "open"] {
            if let Some(mean) = mean_ns(group, "codec", op) {
                println!(
                    "  {group:<5} {op}: {:>6.2}x  ({mean:.0} ns vs {baseline:.0} ns)",
                    mean / baseline
                );
            }
        }
    }
}
