//! The task store contract (`mrtr_runtime::task::TaskStore`), one set of cases run against
//! every store: the memory store always, the Redis store when a Redis server is given.
//!
//! Each case gets several handles on one store: for memory, clones of one `Arc`; for Redis,
//! separate connections with one key prefix, as separate instances of a deployment would
//! have. The Redis cases are `#[ignore]`d so that `cargo test` needs no Redis; `.ci/run` starts
//! one and runs them:
//!
//! ```text
//! MRTR_TEST_REDIS_URL=redis://127.0.0.1:6379/ \
//!   cargo test -p mrtr-runtime --features redis --test task_store_contract -- --ignored redis::
//! ```
//!
//! Times are real (milliseconds since the epoch, a minute of life), because Redis expires keys
//! by its own clock; the cases move `now_ms` forward to judge expiry, as a later request would.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use mrtr_runtime::task::{Inserted, MemoryTaskStore, StoredTask, TaskId, TaskStore};

/// Handles on one store, as several instances hold them.
struct Handles(Vec<Arc<dyn TaskStore>>);

impl Handles {
    fn first(&self) -> &dyn TaskStore {
        &*self.0[0]
    }

    fn second(&self) -> &dyn TaskStore {
        &*self.0[1]
    }
}

/// How many handles each case gets (the race spreads its swaps over all of them).
const HANDLES: usize = 4;

fn memory() -> Handles {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    Handles(vec![store; HANDLES])
}

fn now_ms() -> u64 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970");
    u64::try_from(since_epoch.as_millis()).expect("milliseconds fit in u64")
}

/// A minute of life from `now`.
const LIFE_MS: u64 = 60_000;

/// A new task's record (version 1). The body holds bytes that are not UTF-8, as a sealed
/// body does.
fn task(principal: Option<&str>, expires_at_ms: u64, body: &[u8]) -> StoredTask {
    let mut sealed = vec![0x00, 0xff, 0xfe];
    sealed.extend_from_slice(body);
    StoredTask {
        version: 1,
        principal: principal.map(str::to_owned),
        expires_at_ms,
        body: sealed,
    }
}

/// The record a swap writes over `previous`.
fn next(previous: &StoredTask, body: &[u8]) -> StoredTask {
    StoredTask {
        version: previous.version + 1,
        body: body.to_vec(),
        ..previous.clone()
    }
}

// ------------------------------------------------------------------------------- the cases

/// Creation is durable and visible to another instance, anonymous or not, byte for byte.
async fn an_inserted_task_is_loaded_by_another_instance(stores: Handles) {
    let now = now_ms();
    for principal in [Some("ada"), None, Some("")] {
        let id = TaskId::random();
        let record = task(principal, now + LIFE_MS, b"frame");
        let inserted = stores.first().insert(&id, record.clone(), 10, now).await;
        assert_eq!(inserted, Ok(Inserted::Created), "{principal:?}");
        assert_eq!(
            stores.second().load(&id, now).await,
            Ok(Some(record)),
            "{principal:?}"
        );
    }
    assert_eq!(
        stores.second().load(&TaskId::random(), now).await,
        Ok(None),
        "an unknown id"
    );
}

/// A second insert of a live id is refused and leaves the first record as it was.
async fn a_second_insert_of_an_id_exists(stores: Handles) {
    let now = now_ms();
    let id = TaskId::random();
    let first = task(Some("ada"), now + LIFE_MS, b"first");
    assert_eq!(
        stores.first().insert(&id, first.clone(), 10, now).await,
        Ok(Inserted::Created)
    );
    for (store, principal) in [(stores.first(), Some("ada")), (stores.second(), None)] {
        let again = task(principal, now + 2 * LIFE_MS, b"second");
        assert_eq!(
            store.insert(&id, again, 10, now + 1).await,
            Ok(Inserted::Exists)
        );
    }
    assert_eq!(stores.second().load(&id, now + 1).await, Ok(Some(first)));
}

/// The cap bounds each principal's live tasks on its own; anonymous tasks are one principal
/// (`None`), not to be confused with a principal of any name.
async fn the_cap_bounds_each_principal_and_anonymous_is_one(stores: Handles) {
    const CAP: usize = 3;
    let now = now_ms();
    let principals = [Some("ada"), None, Some("anonymous"), Some("")];
    for principal in principals {
        for n in 0..CAP {
            let record = task(principal, now + LIFE_MS, b"frame");
            let store = if n % 2 == 0 {
                stores.first()
            } else {
                stores.second()
            };
            assert_eq!(
                store.insert(&TaskId::random(), record, CAP, now).await,
                Ok(Inserted::Created),
                "{principal:?}, task {n}"
            );
        }
    }
    for principal in principals {
        let refused = TaskId::random();
        let record = task(principal, now + LIFE_MS, b"one too many");
        assert_eq!(
            stores.second().insert(&refused, record, CAP, now).await,
            Ok(Inserted::AtCapacity),
            "{principal:?}"
        );
        assert_eq!(
            stores.first().load(&refused, now).await,
            Ok(None),
            "{principal:?}: a refused task is not stored"
        );
        // A larger cap (a reconfigured server) lets one more in.
        let record = task(principal, now + LIFE_MS, b"room");
        assert_eq!(
            stores.first().insert(&refused, record, CAP + 1, now).await,
            Ok(Inserted::Created),
            "{principal:?}"
        );
    }
    let record = task(Some("grace"), now + LIFE_MS, b"frame");
    assert_eq!(
        stores
            .first()
            .insert(&TaskId::random(), record, 0, now)
            .await,
        Ok(Inserted::AtCapacity),
        "a cap of 0 admits nothing"
    );
}

/// A task stops counting against its principal's cap when it expires (at its
/// `expires_at_ms`, not a millisecond later), by the `now_ms` of the insert.
async fn expired_tasks_free_their_place(stores: Handles) {
    const CAP: usize = 2;
    let now = now_ms();
    for principal in [Some("ada"), None] {
        let soon = now + 1_000;
        for expires_at_ms in [soon, now + LIFE_MS] {
            let record = task(principal, expires_at_ms, b"frame");
            assert_eq!(
                stores
                    .first()
                    .insert(&TaskId::random(), record, CAP, now)
                    .await,
                Ok(Inserted::Created)
            );
        }
        let waiting = TaskId::random();
        let record = task(principal, now + LIFE_MS, b"waiting");
        for at in [now, soon - 1] {
            assert_eq!(
                stores
                    .second()
                    .insert(&waiting, record.clone(), CAP, at)
                    .await,
                Ok(Inserted::AtCapacity),
                "{principal:?}: full at {}",
                at - now
            );
        }
        assert_eq!(
            stores
                .second()
                .insert(&waiting, record.clone(), CAP, soon)
                .await,
            Ok(Inserted::Created),
            "{principal:?}: the first task expired, its place is free"
        );
        let later = task(principal, now + LIFE_MS, b"later");
        assert_eq!(
            stores
                .first()
                .insert(&TaskId::random(), later, CAP, soon)
                .await,
            Ok(Inserted::AtCapacity),
            "{principal:?}: the freed place is taken"
        );
    }
}

/// The cap counts records as they are now: a swap that shortens a task's life frees its place
/// sooner, and one that moves it to another principal moves its place with it.
async fn the_cap_follows_swapped_records(stores: Handles) {
    let now = now_ms();
    let id = TaskId::random();
    let record = task(Some("ada"), now + LIFE_MS, b"frame");
    assert_eq!(
        stores.first().insert(&id, record.clone(), 1, now).await,
        Ok(Inserted::Created)
    );
    let shortened = StoredTask {
        expires_at_ms: now + 1_000,
        ..next(&record, b"shortened")
    };
    assert_eq!(
        stores.second().swap(&id, 1, shortened.clone()).await,
        Ok(true)
    );
    let record = task(Some("ada"), now + LIFE_MS, b"next");
    assert_eq!(
        stores
            .first()
            .insert(&TaskId::random(), record, 1, now + 1_000)
            .await,
        Ok(Inserted::Created),
        "the shortened task expired"
    );

    let moved_id = TaskId::random();
    let record = task(Some("grace"), now + LIFE_MS, b"frame");
    assert_eq!(
        stores
            .first()
            .insert(&moved_id, record.clone(), 1, now)
            .await,
        Ok(Inserted::Created)
    );
    let moved = StoredTask {
        principal: None,
        ..next(&record, b"moved")
    };
    assert_eq!(
        stores.second().swap(&moved_id, 1, moved.clone()).await,
        Ok(true)
    );
    assert_eq!(stores.first().load(&moved_id, now).await, Ok(Some(moved)));
    let grace = task(Some("grace"), now + LIFE_MS, b"room");
    assert_eq!(
        stores
            .first()
            .insert(&TaskId::random(), grace, 1, now)
            .await,
        Ok(Inserted::Created),
        "grace's place moved with the task"
    );
    let anonymous = task(None, now + LIFE_MS, b"full");
    assert_eq!(
        stores
            .first()
            .insert(&TaskId::random(), anonymous, 1, now)
            .await,
        Ok(Inserted::AtCapacity),
        "the anonymous place is taken by the moved task"
    );
}

/// A swap against a version that is not the current one fails and changes nothing; a swap
/// never creates a task.
async fn a_stale_swap_fails_and_leaves_the_record(stores: Handles) {
    let now = now_ms();
    let id = TaskId::random();
    let first = task(Some("ada"), now + LIFE_MS, b"v1");
    assert_eq!(
        stores.first().insert(&id, first.clone(), 10, now).await,
        Ok(Inserted::Created)
    );
    let second = next(&first, b"v2");
    assert_eq!(stores.first().swap(&id, 1, second.clone()).await, Ok(true));
    for expected in [1, 3, 0] {
        let stale = StoredTask {
            version: expected + 1,
            principal: None,
            expires_at_ms: now + 2 * LIFE_MS,
            body: b"stale".to_vec(),
        };
        assert_eq!(
            stores.second().swap(&id, expected, stale).await,
            Ok(false),
            "expected version {expected}"
        );
    }
    assert_eq!(stores.second().load(&id, now).await, Ok(Some(second)));

    let unknown = TaskId::random();
    assert_eq!(
        stores.first().swap(&unknown, 1, next(&first, b"v2")).await,
        Ok(false)
    );
    assert_eq!(
        stores.second().load(&unknown, now).await,
        Ok(None),
        "a failed swap created nothing"
    );
}

/// Of many swaps from one version, sent at once from several instances, exactly one wins and
/// its record is the one stored; repeated from each new version.
async fn one_of_many_concurrent_swaps_wins(stores: Handles) {
    const RACERS: usize = 16;
    const ROUNDS: u64 = 10;
    let now = now_ms();
    let id = TaskId::random();
    let mut current = task(Some("ada"), now + LIFE_MS, b"start");
    assert_eq!(
        stores.first().insert(&id, current.clone(), 10, now).await,
        Ok(Inserted::Created)
    );
    for round in 0..ROUNDS {
        let racers: Vec<_> = (0..RACERS)
            .map(|racer| {
                let store = Arc::clone(&stores.0[racer % stores.0.len()]);
                let (id, expected) = (id.clone(), current.version);
                let record = next(&current, format!("round {round} racer {racer}").as_bytes());
                tokio::spawn(async move {
                    let won = store.swap(&id, expected, record.clone()).await;
                    (won, record)
                })
            })
            .collect();
        let mut winners = Vec::new();
        for racer in racers {
            let (won, record) = racer.await.expect("the racer ran");
            if won.expect("the store answered") {
                winners.push(record);
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: exactly one swap wins");
        current = winners.remove(0);
        assert_eq!(
            stores.second().load(&id, now).await,
            Ok(Some(current.clone())),
            "round {round}: the winner's record is stored"
        );
    }
    assert_eq!(current.version, 1 + ROUNDS);
}

/// A task is loaded until its `expires_at_ms` and never at or after it, and its id is free
/// again after.
async fn an_expired_task_is_not_loaded(stores: Handles) {
    let now = now_ms();
    let id = TaskId::random();
    let expires_at_ms = now + LIFE_MS;
    let record = task(None, expires_at_ms, b"frame");
    assert_eq!(
        stores.first().insert(&id, record.clone(), 10, now).await,
        Ok(Inserted::Created)
    );
    assert_eq!(
        stores.second().load(&id, expires_at_ms - 1).await,
        Ok(Some(record))
    );
    for at in [expires_at_ms, expires_at_ms + 1, expires_at_ms + LIFE_MS] {
        assert_eq!(
            stores.second().load(&id, at).await,
            Ok(None),
            "{} ms after expiry",
            at - expires_at_ms
        );
    }
    let again = task(Some("ada"), expires_at_ms + LIFE_MS, b"again");
    assert_eq!(
        stores
            .first()
            .insert(&id, again.clone(), 10, expires_at_ms)
            .await,
        Ok(Inserted::Created),
        "an expired task's id is free"
    );
    assert_eq!(
        stores.second().load(&id, expires_at_ms).await,
        Ok(Some(again))
    );
}

// ------------------------------------------------------------------------------- the runs

/// Runs each case against a fresh store of every kind: `memory::<case>` always,
/// `redis::<case>` when asked (`--ignored`).
macro_rules! contract {
    ($($case:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    super::$case(super::memory()).await;
                }
            )*
        }

        #[cfg(feature = "redis")]
        mod redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                #[ignore = "needs a Redis server: .ci/run starts one and sets MRTR_TEST_REDIS_URL"]
                async fn $case() {
                    super::$case(super::redis_store::handles().await).await;
                }
            )*
        }
    };
}

contract!(
    an_inserted_task_is_loaded_by_another_instance,
    a_second_insert_of_an_id_exists,
    the_cap_bounds_each_principal_and_anonymous_is_one,
    expired_tasks_free_their_place,
    the_cap_follows_swapped_records,
    a_stale_swap_fails_and_leaves_the_record,
    one_of_many_concurrent_swaps_wins,
    an_expired_task_is_not_loaded,
);

/// What only the Redis store has: connections, a key layout, Redis's own expiry.
#[cfg(feature = "redis")]
mod redis_store {
    use super::*;
    use mrtr_runtime::task::RedisTaskStore;

    fn url() -> String {
        std::env::var("MRTR_TEST_REDIS_URL")
            .expect("MRTR_TEST_REDIS_URL, e.g. redis://127.0.0.1:6379/")
    }

    /// A prefix no other case or run shares.
    fn fresh_prefix() -> String {
        format!("mrtr-contract-{}-{}:", std::process::id(), TaskId::random())
    }

    /// Separate connections under one fresh prefix: several instances of one deployment.
    pub(super) async fn handles() -> Handles {
        let (url, prefix) = (url(), fresh_prefix());
        let mut stores: Vec<Arc<dyn TaskStore>> = Vec::new();
        for _ in 0..HANDLES {
            let store = RedisTaskStore::connect(&url, prefix.clone())
                .await
                .expect("Redis reachable");
            stores.push(Arc::new(store));
        }
        Handles(stores)
    }

    #[tokio::test]
    async fn connecting_where_no_redis_listens_fails_fast_and_says_where() {
        // Port 1 (tcpmux) is not Redis on any machine this runs on.
        let started = std::time::Instant::now();
        let error = RedisTaskStore::connect("redis://127.0.0.1:1/", "mrtr:")
            .await
            .expect_err("nothing listens");
        assert!(
            error.to_string().contains("redis://127.0.0.1:1/"),
            "{error}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        let error = RedisTaskStore::connect("not a url", "mrtr:")
            .await
            .expect_err("not a URL");
        assert!(
            error.to_string().contains("redis://127.0.0.1:6379/"),
            "{error}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs a Redis server: .ci/run starts one and sets MRTR_TEST_REDIS_URL"]
    async fn keys_live_under_the_prefix_and_expire_with_their_tasks() {
        let prefix = fresh_prefix();
        let store = RedisTaskStore::connect(&url(), prefix.clone())
            .await
            .expect("Redis reachable");
        let mut raw = ::redis::Client::open(url())
            .expect("the URL parses")
            .get_multiplexed_async_connection()
            .await
            .expect("Redis reachable");

        let now = now_ms();
        let id = TaskId::random();
        let life = 400;
        let record = task(Some("ada"), now + life, b"frame");
        assert_eq!(
            store.insert(&id, record.clone(), 10, now).await,
            Ok(Inserted::Created)
        );
        let task_key = format!("{prefix}task:{id}");
        let owners_key = format!("{prefix}principal:ada");
        for key in [&task_key, &owners_key] {
            let ttl: i64 = ::redis::cmd("PTTL")
                .arg(key)
                .query_async(&mut raw)
                .await
                .expect("PTTL");
            assert!(0 < ttl && ttl <= 400, "{key} expires with the task: {ttl}");
        }
        let mut keys: Vec<String> = ::redis::cmd("KEYS")
            .arg(format!("{prefix}*"))
            .query_async(&mut raw)
            .await
            .expect("KEYS");
        keys.sort();
        assert_eq!(keys, [owners_key.clone(), task_key.clone()]);

        // Redis drops the task itself: even by a clock that says it is live, it is gone.
        std::thread::sleep(std::time::Duration::from_millis(life + 300));
        assert_eq!(store.load(&id, now).await, Ok(None));
        let left: Vec<String> = ::redis::cmd("KEYS")
            .arg(format!("{prefix}*"))
            .query_async(&mut raw)
            .await
            .expect("KEYS");
        assert_eq!(left, Vec::<String>::new(), "nothing left behind");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs a Redis server: .ci/run starts one and sets MRTR_TEST_REDIS_URL"]
    async fn stores_with_other_prefixes_share_nothing() {
        let url = url();
        let one = RedisTaskStore::connect(&url, fresh_prefix())
            .await
            .expect("Redis reachable");
        let other = RedisTaskStore::connect(&url, fresh_prefix())
            .await
            .expect("Redis reachable");
        let now = now_ms();
        let id = TaskId::random();
        let record = task(Some("ada"), now + LIFE_MS, b"frame");
        assert_eq!(
            one.insert(&id, record.clone(), 1, now).await,
            Ok(Inserted::Created)
        );
        assert_eq!(other.load(&id, now).await, Ok(None));
        assert_eq!(
            other.insert(&TaskId::random(), record, 1, now).await,
            Ok(Inserted::Created),
            "ada's cap is counted per prefix"
        );
    }
}
