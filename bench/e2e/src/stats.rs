//! `GET /stats[?count=1|0]`: the server's allocation count and CPU time, as
//! `allocations cpu_nanoseconds`. The probe reads it around each round of a flow run alone.

use axum::extract::RawQuery;

/// The probe's handler. `count=1` turns allocation counting on, `count=0` off.
pub async fn handler(RawQuery(query): RawQuery) -> String {
    match query.as_deref() {
        Some("count=1") => super::alloc::set_counting(true),
        Some("count=0") => super::alloc::set_counting(false),
        _ => {}
    }
    format!("{} {}", super::alloc::allocations(), cpu_nanos())
}

/// CPU time used by the whole process (every thread), in nanoseconds.
pub fn cpu_nanos() -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    if status != 0 {
        return 0;
    }
    (time.tv_sec as u64) * 1_000_000_000 + time.tv_nsec as u64
}
