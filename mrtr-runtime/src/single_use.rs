//! Single use: a state that may be redeemed at most once. The spec's bindings bound replay to
//! one principal, request and short window; they do not stop a client from sending the same
//! state twice. A single-use tool records each accepted token id in a store, after
//! verification and before any code runs, and refuses it the second time.
//!
//! A lost response then ends the flow: the client cannot retry the round.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::context::BoxFuture;
use crate::token::TokenId;

/// Where consumed token ids are remembered until their token can no longer be accepted.
/// Implement it on a shared store (Redis, a database) when several instances serve the same
/// flows.
pub trait ReplayStore: Send + Sync + 'static {
    /// Records `token` as used until `keep_until` (seconds since the epoch: the last instant
    /// the codec would still accept the token, clock skew included). `Ok(true)` the first time,
    /// `Ok(false)` if it was already recorded. Must be atomic. An `Err` fails the round closed.
    fn consume(
        &self,
        token: TokenId,
        keep_until: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, String>>;
}

/// A [`ReplayStore`] in this process's memory: right for one instance, wrong for several.
///
/// Expired ids are swept when the map has doubled since the last sweep, so a redemption costs
/// amortized O(1). When the map is full of ids that are all still live, redemptions fail
/// closed (the round gets an internal error) until some expire: a flood cannot make the store
/// forget a live id.
#[derive(Debug)]
pub struct MemoryStore {
    inner: Mutex<Seen>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Seen {
    until: HashMap<TokenId, u64>,
    /// Size of the map after the last sweep; the next sweep runs when it has doubled.
    swept_at: usize,
    /// When the last sweep ran: a full store sweeps at most once a second, so a flood
    /// against a full store costs a lookup per call, not a sweep.
    swept_when: u64,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }
}

impl MemoryStore {
    /// The default capacity: a million live ids (about 50 MB).
    pub const DEFAULT_CAPACITY: usize = 1_000_000;

    /// A store that holds at most `capacity` live ids (at least 1).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Seen::default()),
            capacity: capacity.max(1),
        }
    }

    /// How many ids are held (live or not yet swept).
    pub fn len(&self) -> usize {
        self.lock().until.len()
    }

    /// Whether no id is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.inner
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn redeem(&self, token: TokenId, keep_until: u64, now: u64) -> Result<bool, String> {
        let mut seen = self.lock();
        let Seen {
            until,
            swept_at,
            swept_when,
        } = &mut *seen;
        if let Some(kept) = until.get(&token) {
            // An entry past its time may be reused: the codec refuses that token anyway.
            if *kept >= now {
                return Ok(false);
            }
        }
        let full = until.len() >= self.capacity;
        if (full && now > *swept_when) || until.len() >= (*swept_at).max(1024) * 2 {
            until.retain(|_, kept| *kept >= now);
            *swept_at = until.len();
            *swept_when = now;
        }
        if until.len() >= self.capacity && !until.contains_key(&token) {
            return Err(format!(
                "the in-memory single-use store is full ({} live ids)",
                self.capacity
            ));
        }
        until.insert(token, keep_until);
        Ok(true)
    }
}

impl ReplayStore for MemoryStore {
    fn consume(
        &self,
        token: TokenId,
        keep_until: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, String>> {
        Box::pin(std::future::ready(self.redeem(token, keep_until, now)))
    }
}

/// A [`ReplayStore`] in Redis, for flows served by several instances: each consumption is one
/// atomic `SET key 1 NX PX ttl`, so exactly one instance wins a token, and the entry expires
/// when the token can no longer be accepted.
///
/// It holds a redis `ConnectionManager`, which reconnects after Redis restarts: rounds fail
/// closed (an internal error, nothing redeemed) while Redis is away and succeed again after.
#[cfg(feature = "redis")]
#[derive(Clone)]
pub struct RedisStore {
    connection: redis::aio::ConnectionManager,
    prefix: String,
}

#[cfg(feature = "redis")]
impl RedisStore {
    /// Connects to `url` (`redis://127.0.0.1:6379/`); keys are prefixed with `prefix`.
    pub async fn connect(url: &str, prefix: impl Into<String>) -> Result<Self, redis::RedisError> {
        let client = redis::Client::open(url)?;
        // Fail fast while Redis is down (a round fails closed) and keep reconnecting after.
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_number_of_retries(1)
            .set_connection_timeout(Some(std::time::Duration::from_secs(2)))
            .set_response_timeout(Some(std::time::Duration::from_secs(2)));
        let connection = redis::aio::ConnectionManager::new_with_config(client, config).await?;
        Ok(Self {
            connection,
            prefix: prefix.into(),
        })
    }
}

#[cfg(feature = "redis")]
impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "redis")]
impl ReplayStore for RedisStore {
    fn consume(
        &self,
        token: TokenId,
        keep_until: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, String>> {
        let key = format!("{}{token}", self.prefix);
        // One second more than needed: `now` and Redis's clock round differently.
        let ttl_ms = keep_until
            .saturating_sub(now)
            .saturating_add(1)
            .saturating_mul(1000);
        let mut connection = self.connection.clone();
        Box::pin(async move {
            let set: Option<String> = redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(ttl_ms)
                .query_async(&mut connection)
                .await
                .map_err(|error| error.to_string())?;
            Ok(set.is_some())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> TokenId {
        let mut bytes = [0u8; 16];
        crate::token::fill_random(&mut bytes);
        TokenId::from_bytes(bytes)
    }

    #[test]
    fn an_id_is_refused_until_it_expires() {
        let store = MemoryStore::default();
        let token = id();
        assert_eq!(store.redeem(token, 100, 10), Ok(true));
        assert_eq!(
            store.redeem(token, 100, 100),
            Ok(false),
            "kept through its last instant"
        );
        assert_eq!(
            store.redeem(token, 300, 101),
            Ok(true),
            "the codec refuses it by then"
        );
    }

    #[test]
    fn a_full_store_fails_closed_and_recovers_when_ids_expire() {
        let store = MemoryStore::with_capacity(3);
        for _ in 0..3 {
            assert_eq!(store.redeem(id(), 50, 0), Ok(true));
        }
        let late = id();
        assert!(store.redeem(late, 50, 10).is_err(), "full of live ids");
        assert_eq!(
            store.redeem(late, 80, 51),
            Ok(true),
            "swept once they expired"
        );
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn sweeps_are_amortized() {
        let store = MemoryStore::default();
        for _ in 0..5000 {
            store.redeem(id(), 10, 0).unwrap();
        }
        // Everything expired, but no sweep runs until the map has doubled since the last one.
        let before = store.len();
        store.redeem(id(), 100, 20).unwrap();
        assert!(store.len() <= before + 1);
        assert!(store.len() > 1, "no full sweep on every redemption");
        for _ in 0..before * 2 {
            store.redeem(id(), 100, 20).unwrap();
        }
        assert!(
            store.len() <= before * 2 + 1,
            "expired ids were swept: {}",
            store.len()
        );
    }
}
