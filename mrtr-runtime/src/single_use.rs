//! Single use: a state that may be redeemed at most once. The spec's bindings bound replay to
//! one principal, request and short window; they do not stop a client from sending the same
//! state twice. A single-use tool records each accepted token id in a store, after
//! verification and before any code runs, and refuses it the second time.
//!
//! A lost response then ends the flow: the client cannot retry the round.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::Mutex;

use crate::author::context::BoxFuture;
use crate::token::TokenId;

/// A single-use store that could not answer (unreachable, full). The round fails closed: the
/// client gets an internal error, the reason goes to the server's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayStoreError(String);

impl ReplayStoreError {
    /// A failure described by `reason` (for the server's log).
    pub fn new(reason: impl Into<String>) -> Self {
        Self(reason.into())
    }
}

impl std::fmt::Display for ReplayStoreError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "the single-use store failed: {}", self.0)
    }
}

impl std::error::Error for ReplayStoreError {}

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
    ) -> BoxFuture<'_, Result<bool, ReplayStoreError>>;

    /// What the server calls: [`ReplayStore::consume`] with what else it knows of the
    /// redemption (the principal, the codec's clock-skew allowance). By default the rest is
    /// ignored; a store shared by instances whose clocks differ, or one that shares its
    /// capacity among principals, overrides it.
    fn redeem<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, ReplayStoreError>> {
        self.consume(redemption.token, redemption.keep_until, redemption.now)
    }
}

/// One redemption of a single-use state, as the server hands it to a [`ReplayStore`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Redemption<'a> {
    /// The state's token id.
    pub token: TokenId,
    /// The last instant (seconds since the epoch, by this instance's clock) at which this
    /// instance's codec would still accept the token, its clock-skew allowance included.
    pub keep_until: u64,
    /// This instance's time, in seconds since the epoch.
    pub now: u64,
    /// The codec's clock-skew allowance in seconds: how far another instance's clock may be
    /// off this one's.
    pub clock_skew: u64,
    /// The principal the state is bound to (`None`: an anonymous request).
    pub principal: Option<&'a str>,
}

impl<'a> Redemption<'a> {
    /// A redemption of `token`, kept until `keep_until`, at `now`: anonymous and with no
    /// clock-skew allowance until set.
    pub fn new(token: TokenId, keep_until: u64, now: u64) -> Self {
        Self {
            token,
            keep_until,
            now,
            clock_skew: 0,
            principal: None,
        }
    }

    /// Sets the principal the state is bound to.
    pub fn principal(mut self, principal: Option<&'a str>) -> Self {
        self.principal = principal;
        self
    }

    /// Sets the codec's clock-skew allowance, in seconds.
    pub fn clock_skew(mut self, seconds: u64) -> Self {
        self.clock_skew = seconds;
        self
    }

    /// How long a store shared by several instances must keep the id, in milliseconds:
    /// until `keep_until` as the instance whose clock is furthest behind this one reads it.
    /// Another instance accepts the token until `keep_until` by its own clock, which may lag
    /// this one's by up to the clock-skew allowance; one second more covers the rounding of
    /// whole seconds.
    pub fn shared_retention_ms(&self) -> u64 {
        self.keep_until
            .saturating_sub(self.now)
            .saturating_add(self.clock_skew)
            .saturating_add(1)
            .saturating_mul(1000)
    }
}

/// A [`ReplayStore`] in this process's memory: right for one instance, wrong for several.
///
/// Expired ids are swept when the map has doubled since the last sweep, so a redemption costs
/// amortized O(1). When the map is full of ids that are all still live, redemptions fail
/// closed (the round gets an internal error) until some expire: a flood cannot make the store
/// forget a live id.
///
/// **Shares.** No principal may hold more than its share of the capacity (a tenth by
/// default, [`MemoryStore::per_principal`]): once it does, that principal's redemptions fail
/// closed until some of its ids expire, and everyone else's still go through, so one client
/// cannot fill the store to deny single use to the others. Anonymous requests (no principal
/// set by your authentication) count as one principal: a server that authenticates nobody
/// shares a tenth among all its clients unless it raises the share.
#[derive(Debug)]
pub struct MemoryStore {
    inner: Mutex<Seen>,
    capacity: usize,
    per_principal: usize,
    /// Keys the principals' hashes, so that no one can pick a name that shares another's.
    principals: RandomState,
}

/// A consumed id: until when it is kept, and the hash of the principal it counts against.
#[derive(Debug, Clone, Copy)]
struct Entry {
    until: u64,
    owner: u64,
}

#[derive(Debug, Default)]
struct Seen {
    until: HashMap<TokenId, Entry>,
    /// How many ids each principal (by hash) holds.
    held: HashMap<u64, usize>,
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
    /// The default capacity: a million live ids (about 70 MB).
    pub const DEFAULT_CAPACITY: usize = 1_000_000;

    /// The default share of one principal: a tenth of the capacity.
    pub const DEFAULT_SHARE_DIVISOR: usize = 10;

    /// A store that holds at most `capacity` live ids (at least 1), a tenth of them (at least
    /// 1) per principal.
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            inner: Mutex::new(Seen::default()),
            capacity,
            per_principal: (capacity / Self::DEFAULT_SHARE_DIVISOR).max(1),
            principals: RandomState::new(),
        }
    }

    /// Lets one principal hold at most `ids` live ids (at least 1, at most the capacity).
    /// Raise it to the capacity to turn shares off, for a server whose clients are all
    /// anonymous and trusted alike.
    pub fn per_principal(mut self, ids: usize) -> Self {
        self.per_principal = ids.clamp(1, self.capacity);
        self
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

    fn take(&self, redemption: Redemption<'_>) -> Result<bool, ReplayStoreError> {
        let Redemption {
            token,
            keep_until,
            now,
            principal,
            ..
        } = redemption;
        let owner = self.principals.hash_one(principal);
        let mut seen = self.lock();
        let Seen {
            until,
            held,
            swept_at,
            swept_when,
        } = &mut *seen;
        if let Some(kept) = until.get(&token) {
            // An entry past its time may be reused: the codec refuses that token anyway.
            if kept.until >= now {
                return Ok(false);
            }
            let stale = until.remove(&token).expect("just found");
            release(held, stale.owner);
        }
        let crowded = until.len() >= self.capacity || held_by(held, owner) >= self.per_principal;
        if (crowded && now > *swept_when) || until.len() >= (*swept_at).max(1024) * 2 {
            until.retain(|_, kept| {
                let live = kept.until >= now;
                if !live {
                    release(held, kept.owner);
                }
                live
            });
            *swept_at = until.len();
            *swept_when = now;
        }
        if until.len() >= self.capacity {
            return Err(ReplayStoreError::new(format!(
                "the in-memory single-use store is full ({} live ids)",
                self.capacity
            )));
        }
        if held_by(held, owner) >= self.per_principal {
            return Err(ReplayStoreError::new(format!(
                "one principal holds its whole share of the in-memory single-use store ({} \
                 live ids); its rounds fail until some expire, other principals' go through",
                self.per_principal
            )));
        }
        until.insert(
            token,
            Entry {
                until: keep_until,
                owner,
            },
        );
        *held.entry(owner).or_default() += 1;
        Ok(true)
    }
}

fn held_by(held: &HashMap<u64, usize>, owner: u64) -> usize {
    held.get(&owner).copied().unwrap_or(0)
}

/// Counts one id less against `owner`, forgetting principals that hold none.
fn release(held: &mut HashMap<u64, usize>, owner: u64) {
    if let Some(count) = held.get_mut(&owner) {
        *count -= 1;
        if *count == 0 {
            held.remove(&owner);
        }
    }
}

impl ReplayStore for MemoryStore {
    /// Redeems for the anonymous principal.
    fn consume(
        &self,
        token: TokenId,
        keep_until: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, ReplayStoreError>> {
        Box::pin(std::future::ready(
            self.take(Redemption::new(token, keep_until, now)),
        ))
    }

    fn redeem<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, ReplayStoreError>> {
        Box::pin(std::future::ready(self.take(redemption)))
    }
}

/// A [`ReplayStore`] in Redis, for flows served by several instances: each consumption is one
/// atomic `SET key 1 NX PX ttl`, so exactly one instance wins a token, and the entry expires
/// when no instance can accept the token any more: the codec's clock-skew allowance is added
/// to the time left, because an instance whose clock lags the redeeming one's still accepts
/// the token after the redeeming one stopped ([`Redemption::shared_retention_ms`]).
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
    /// Redeems with the default clock-skew allowance
    /// ([`DEFAULT_CLOCK_SKEW`](crate::token::DEFAULT_CLOCK_SKEW)).
    fn consume(
        &self,
        token: TokenId,
        keep_until: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, ReplayStoreError>> {
        let skew = crate::token::DEFAULT_CLOCK_SKEW.as_secs();
        self.redeem(Redemption::new(token, keep_until, now).clock_skew(skew))
    }

    fn redeem<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, ReplayStoreError>> {
        let key = format!("{}{}", self.prefix, redemption.token);
        // Every instance must see the id until it stops accepting the token by its own clock.
        let ttl_ms = redemption.shared_retention_ms();
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
                .map_err(|error| ReplayStoreError::new(error.to_string()))?;
            Ok(set.is_some())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> TokenId {
        let mut bytes = [0u8; 16];
        crate::bytes::fill_random(&mut bytes);
        TokenId::from_bytes(bytes)
    }

    impl MemoryStore {
        /// An anonymous redemption.
        fn redeem_at(
            &self,
            token: TokenId,
            keep_until: u64,
            now: u64,
        ) -> Result<bool, ReplayStoreError> {
            self.take(Redemption::new(token, keep_until, now))
        }

        fn redeem_as(
            &self,
            principal: &str,
            keep_until: u64,
            now: u64,
        ) -> Result<bool, ReplayStoreError> {
            self.take(Redemption::new(id(), keep_until, now).principal(Some(principal)))
        }
    }

    #[test]
    fn an_id_is_refused_until_it_expires() {
        let store = MemoryStore::default();
        let token = id();
        assert_eq!(store.redeem_at(token, 100, 10), Ok(true));
        assert_eq!(
            store.redeem_at(token, 100, 100),
            Ok(false),
            "kept through its last instant"
        );
        assert_eq!(
            store.redeem_at(token, 300, 101),
            Ok(true),
            "the codec refuses it by then"
        );
    }

    #[test]
    fn a_full_store_fails_closed_and_recovers_when_ids_expire() {
        let store = MemoryStore::with_capacity(3).per_principal(3);
        for _ in 0..3 {
            assert_eq!(store.redeem_at(id(), 50, 0), Ok(true));
        }
        let late = id();
        assert!(store.redeem_at(late, 50, 10).is_err(), "full of live ids");
        assert_eq!(
            store.redeem_at(late, 80, 51),
            Ok(true),
            "swept once they expired"
        );
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn one_principal_cannot_take_more_than_its_share() {
        let store = MemoryStore::with_capacity(100);
        for _ in 0..10 {
            assert_eq!(store.redeem_as("mallory", 50, 0), Ok(true));
        }
        let refused = store.redeem_as("mallory", 50, 0).unwrap_err().to_string();
        assert!(refused.contains("share"), "{refused}");
        assert!(
            !refused.contains("mallory"),
            "names no principal: {refused}"
        );
        assert_eq!(
            store.redeem_as("ana", 50, 0),
            Ok(true),
            "others still redeem"
        );
        assert_eq!(store.redeem_at(id(), 50, 0), Ok(true), "anonymous too");
        assert_eq!(
            store.redeem_as("mallory", 80, 51),
            Ok(true),
            "once hers expired"
        );
        // Her expired ids were swept and no longer count: a share's worth again.
        for _ in 1..10 {
            assert_eq!(store.redeem_as("mallory", 80, 51), Ok(true));
        }
        assert!(store.redeem_as("mallory", 80, 51).is_err());
    }

    #[test]
    fn anonymous_requests_share_one_share_and_the_share_can_be_raised() {
        let store = MemoryStore::with_capacity(20);
        assert_eq!(store.redeem_at(id(), 50, 0), Ok(true));
        assert_eq!(store.redeem_at(id(), 50, 0), Ok(true));
        assert!(store.redeem_at(id(), 50, 0).is_err(), "a tenth of 20");
        assert_eq!(
            store.redeem_as("", 50, 0),
            Ok(true),
            "the principal \"\" is not anonymous"
        );

        let open = MemoryStore::with_capacity(20).per_principal(usize::MAX);
        for _ in 0..20 {
            assert_eq!(open.redeem_at(id(), 50, 0), Ok(true));
        }
        assert!(
            open.redeem_at(id(), 50, 0).is_err(),
            "still capped by the capacity"
        );
    }

    #[test]
    fn a_reused_expired_id_moves_to_its_new_principal() {
        let store = MemoryStore::with_capacity(10).per_principal(1);
        let token = id();
        let as_ana = |keep_until, now| {
            store.take(Redemption::new(token, keep_until, now).principal(Some("ana")))
        };
        assert_eq!(as_ana(50, 0), Ok(true));
        // The same id after it expired, now bound to bo: ana's count is released.
        let as_bo = Redemption::new(token, 90, 60).principal(Some("bo"));
        assert_eq!(store.take(as_bo), Ok(true));
        assert_eq!(store.redeem_as("ana", 90, 60), Ok(true));
        assert!(
            store.redeem_as("bo", 90, 60).is_err(),
            "bo holds his one id"
        );
    }

    #[test]
    fn sweeps_are_amortized() {
        let store = MemoryStore::default();
        for _ in 0..5000 {
            store.redeem_at(id(), 10, 0).unwrap();
        }
        // Everything expired, but no sweep runs until the map has doubled since the last one.
        let before = store.len();
        store.redeem_at(id(), 100, 20).unwrap();
        assert!(store.len() <= before + 1);
        assert!(store.len() > 1, "no full sweep on every redemption");
        for _ in 0..before * 2 {
            store.redeem_at(id(), 100, 20).unwrap();
        }
        assert!(
            store.len() <= before * 2 + 1,
            "expired ids were swept: {}",
            store.len()
        );
    }

    #[test]
    fn a_shared_store_keeps_an_id_until_a_lagging_instance_stops_accepting_it() {
        // Both instances accept the token until `keep_until` by their own clocks (expiry 1000
        // plus the 30 s allowance); the redeeming instance's clock runs ahead of the other's.
        let (keep_until, skew) = (1030, 30);
        for ahead in [0, 1, 17, 30] {
            for real_now in [0, 500, 1000, 1029] {
                let redemption =
                    Redemption::new(id(), keep_until, real_now + ahead).clock_skew(skew);
                let gone_at_ms = real_now * 1000 + redemption.shared_retention_ms();
                let lagging_stops_at_ms = keep_until * 1000 + 999;
                assert!(
                    gone_at_ms > lagging_stops_at_ms,
                    "{ahead} s ahead, redeemed at {real_now}: gone at {gone_at_ms} ms, \
                     accepted until {lagging_stops_at_ms} ms"
                );
            }
        }
        assert_eq!(
            Redemption::new(id(), 1030, 430)
                .clock_skew(30)
                .shared_retention_ms(),
            (600 + 30 + 1) * 1000
        );
        assert_eq!(
            Redemption::new(id(), 5, 10)
                .clock_skew(30)
                .shared_retention_ms(),
            31_000,
            "never negative"
        );
    }
}
