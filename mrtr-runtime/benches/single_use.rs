//! One redemption in the in-memory single-use store, with 1 M live ids already held: the
//! cost must not grow with the number of live ids (sweeps are amortized, not per call).
//!
//! Run with `cargo bench -p mrtr-runtime --bench single_use`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion};
use mrtr_runtime::token::TokenId;
use mrtr_runtime::{MemoryStore, ReplayStore};

fn id(n: u64) -> TokenId {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    bytes[8..].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    TokenId::from_bytes(bytes)
}

/// Polls a future that is ready at once (the memory store never waits).
fn ready<T>(future: impl std::future::Future<Output = T>) -> T {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut context) {
        std::task::Poll::Ready(value) => value,
        std::task::Poll::Pending => unreachable!("MemoryStore::consume is immediate"),
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("memory_store_redeem");
    for live in [1_000u64, 1_000_000] {
        // Capacity above what the bench inserts, so it measures redemption, not refusal.
        // One principal (anonymous) redeems everything here: its share is the whole store.
        let store = MemoryStore::with_capacity(4_000_000).per_principal(4_000_000);
        let now = 1_000;
        for n in 0..live {
            assert_eq!(ready(store.consume(id(n), now + 600, now)), Ok(true));
        }
        // Fresh ids, cycling through a million so memory stays bounded: each is kept only
        // until `now`, so the amortized sweeps find garbage to collect, as in production.
        let mut next = 0u64;
        group.bench_with_input(BenchmarkId::from_parameter(live), &live, |b, _| {
            b.iter(|| {
                next += 1;
                let fresh = id(live + next % 1_000_000);
                black_box(ready(store.consume(fresh, now, now + 1)))
            })
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(20)
        .measurement_time(std::time::Duration::from_secs(2))
        .configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
