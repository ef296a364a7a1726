//! Time as the codec sees it: whole seconds since the Unix epoch, behind a trait so tests and
//! the testing harness can move it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of the current time in seconds since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    /// Seconds since 1970-01-01T00:00:00Z.
    fn now(&self) -> u64;
}

/// The operating system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs())
    }
}

/// A clock that only moves when told to. Clones share the same time.
///
/// ```
/// use mrtr::token::{Clock, ManualClock};
/// let clock = ManualClock::new(1_000);
/// clock.advance(60);
/// assert_eq!(clock.now(), 1_060);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Arc<AtomicU64>);

impl ManualClock {
    /// A clock stopped at `now` (seconds since the epoch).
    pub fn new(now: u64) -> Self {
        Self(Arc::new(AtomicU64::new(now)))
    }

    /// Sets the time.
    pub fn set(&self, now: u64) {
        self.0.store(now, Ordering::SeqCst);
    }

    /// Moves the time forward by `seconds`.
    pub fn advance(&self, seconds: u64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}
