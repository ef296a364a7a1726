//! A [`TaskStore`] in Redis, for tasks served by several instances: every instance that
//! connects with the same URL and prefix sees the same tasks.
//!
//! # Layout
//!
//! With the prefix `P` (for example `mrtr-tasks:`), a task with id `I` is:
//!
//! * `P` `task:` `I` — a hash with the fields `version` (decimal), `expires_at_ms` (decimal),
//!   `body` (the sealed bytes), `principal` (absent for an anonymous task) and `owners` (the
//!   name of the sorted set below that counts it). The key expires by itself
//!   (`PEXPIREAT expires_at_ms`), so Redis drops a task without any sweep.
//! * `P` `principal:` `name`, or `P` `anonymous` for tasks without a principal — a sorted set
//!   of the ids of that principal's tasks, scored by their `expires_at_ms`. It is what the cap
//!   counts: each insert first removes the members whose score is at or before its `now_ms`.
//!   The set expires by itself with its last task.
//!
//! Nothing is ever scanned: every command names its keys, and a set holds at most `cap` live
//! members plus the ones that expired since that principal's last insert.
//!
//! # Atomicity
//!
//! [`TaskStore::insert`] and [`TaskStore::swap`] are each one Lua script (sent as `EVALSHA`,
//! loaded on first use), so Redis runs them without interleaving any other command: two
//! inserts racing for a principal's last place, or two swaps from one version, cannot both
//! succeed. [`TaskStore::load`] is one `HMGET`. The scripts touch the set a task was counted
//! in through the name stored in the task's hash, so this store runs on a single Redis (or a
//! primary with replicas), not on a Redis Cluster.
//!
//! # Clocks
//!
//! Whether a task is live is decided by the caller's `now_ms`, as the trait asks; Redis's own
//! clock only decides when it drops a key. Keep the instances' clocks and Redis's in step
//! (NTP): a Redis clock ahead of the servers' drops a task that much before it expires.

use redis::aio::ConnectionManager;

use crate::author::context::BoxFuture;
use crate::task::{Inserted, StoredTask, TaskId, TaskStore, TaskStoreError};

/// Inserts a task unless its id is live or its principal is at its cap.
///
/// KEYS[1] the task's hash, KEYS[2] its principal's set.
/// ARGV: id, version, expires_at_ms (exact, for the record), expiry (for Redis: score and
/// `PEXPIREAT`), body, cap, now_ms, has_principal (`1`/`0`), principal.
/// Times are compared as Lua numbers (doubles): exact for any millisecond count below 2^53,
/// that is for the next 280,000 years.
const INSERT: &str = r"
local now = tonumber(ARGV[7])
local existing = redis.call('HMGET', KEYS[1], 'expires_at_ms', 'owners')
if existing[1] and tonumber(existing[1]) > now then
  return 'exists'
end
-- Absent, or expired by the caller's clock though Redis has not dropped it yet: the id is free.
if existing[2] then
  redis.call('ZREM', existing[2], ARGV[1])
end
redis.call('DEL', KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then
  return 'at_capacity'
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'expires_at_ms', ARGV[3], 'body', ARGV[5],
  'owners', KEYS[2])
if ARGV[8] == '1' then
  redis.call('HSET', KEYS[1], 'principal', ARGV[9])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
-- The set lives as long as its longest-lived member.
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if tonumber(last[2]) <= tonumber(ARGV[4]) then
  redis.call('PEXPIREAT', KEYS[2], ARGV[4])
end
return 'created'
";

/// Replaces a task if its version is still the expected one.
///
/// KEYS[1] the task's hash, KEYS[2] the set of the new record's principal.
/// ARGV: id, expected version, new version, expires_at_ms, expiry for Redis, body,
/// has_principal, principal.
/// Versions are compared as the decimal strings they were written as, never as numbers.
const SWAP: &str = r"
local stored = redis.call('HMGET', KEYS[1], 'version', 'owners')
if stored[1] ~= ARGV[2] then
  return 0
end
if stored[2] and stored[2] ~= KEYS[2] then
  redis.call('ZREM', stored[2], ARGV[1])
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', ARGV[3], 'expires_at_ms', ARGV[4], 'body', ARGV[6],
  'owners', KEYS[2])
if ARGV[7] == '1' then
  redis.call('HSET', KEYS[1], 'principal', ARGV[8])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if tonumber(last[2]) <= tonumber(ARGV[5]) then
  redis.call('PEXPIREAT', KEYS[2], ARGV[5])
end
return 1
";

/// Tasks in Redis, shared by every instance that connects with the same URL and prefix.
///
/// Each task is a hash at `{prefix}task:{id}` that Redis expires itself at the task's
/// `expires_at_ms`; each principal's live tasks are counted, for the cap, in a sorted set at
/// `{prefix}principal:{name}` (`{prefix}anonymous` for tasks without one). `insert` and
/// `swap` are one Lua script each, so they are atomic; `load` is one `HMGET`; nothing is ever
/// scanned. Runs on a single Redis (or a primary with replicas), not on a Redis Cluster. Keep
/// Redis's clock in step with the instances' (NTP): a Redis clock that runs ahead drops tasks
/// early.
///
/// It holds a redis `ConnectionManager`, which reconnects after Redis restarts: calls fail
/// (the server answers `-32603`, nothing written) while Redis is away and succeed again
/// after. Clones share the connection.
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
    prefix: String,
    insert: redis::Script,
    swap: redis::Script,
}

impl RedisTaskStore {
    /// Connects to `url` (`redis://127.0.0.1:6379/`); every key starts with `prefix` (for
    /// example `mrtr-tasks:`), so that one Redis can hold several deployments' tasks.
    ///
    /// # Errors
    ///
    /// When the URL does not parse or Redis cannot be reached within two seconds.
    pub async fn connect(url: &str, prefix: impl Into<String>) -> Result<Self, TaskStoreError> {
        let client = redis::Client::open(url).map_err(|error| {
            TaskStoreError::new(format!(
                "the Redis URL `{url}` is not valid ({error}); give one like redis://127.0.0.1:6379/"
            ))
        })?;
        // Fail fast while Redis is down (the request fails closed) and keep reconnecting after.
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_number_of_retries(1)
            .set_connection_timeout(Some(std::time::Duration::from_secs(2)))
            .set_response_timeout(Some(std::time::Duration::from_secs(2)));
        let connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|error| {
                TaskStoreError::new(format!("cannot connect to Redis at `{url}`: {error}"))
            })?;
        Ok(Self {
            connection,
            prefix: prefix.into(),
            insert: redis::Script::new(INSERT),
            swap: redis::Script::new(SWAP),
        })
    }

    fn task_key(&self, id: &TaskId) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn owners_key(&self, principal: Option<&str>) -> Vec<u8> {
        // Built as bytes: a principal is any string, and `anonymous` cannot collide with a
        // `principal:` key.
        let mut key = self.prefix.as_bytes().to_vec();
        match principal {
            Some(name) => {
                key.extend_from_slice(b"principal:");
                key.extend_from_slice(name.as_bytes());
            }
            None => key.extend_from_slice(b"anonymous"),
        }
        key
    }
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn failed(error: redis::RedisError) -> TaskStoreError {
    TaskStoreError::new(format!("Redis: {error}"))
}

/// The expiry Redis is given (the set's score and `PEXPIREAT`): the record's, capped at 2^53
/// milliseconds (year 287,396), the largest a Lua number and a score hold exactly. The record
/// itself keeps the exact value.
fn redis_time(expires_at_ms: u64) -> u64 {
    expires_at_ms.min((1 << 53) - 1)
}

impl TaskStore for RedisTaskStore {
    fn insert<'a>(
        &'a self,
        id: &'a TaskId,
        task: StoredTask,
        cap: usize,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Inserted, TaskStoreError>> {
        let mut connection = self.connection.clone();
        Box::pin(async move {
            let outcome: String = self
                .insert
                .key(self.task_key(id))
                .key(self.owners_key(task.principal.as_deref()))
                .arg(id.as_str())
                .arg(task.version)
                .arg(task.expires_at_ms)
                .arg(redis_time(task.expires_at_ms))
                .arg(task.body)
                .arg(cap)
                .arg(now_ms)
                .arg(if task.principal.is_some() { "1" } else { "0" })
                .arg(task.principal.as_deref().unwrap_or(""))
                .invoke_async(&mut connection)
                .await
                .map_err(failed)?;
            match outcome.as_str() {
                "created" => Ok(Inserted::Created),
                "at_capacity" => Ok(Inserted::AtCapacity),
                "exists" => Ok(Inserted::Exists),
                other => Err(TaskStoreError::new(format!(
                    "the insert script answered `{other}`"
                ))),
            }
        })
    }

    fn load<'a>(
        &'a self,
        id: &'a TaskId,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, TaskStoreError>> {
        let mut connection = self.connection.clone();
        Box::pin(async move {
            type Fields = (Option<u64>, Option<u64>, Option<Vec<u8>>, Option<String>);
            let (version, expires_at_ms, body, principal): Fields = redis::cmd("HMGET")
                .arg(self.task_key(id))
                .arg("version")
                .arg("expires_at_ms")
                .arg("body")
                .arg("principal")
                .query_async(&mut connection)
                .await
                .map_err(failed)?;
            let (Some(version), Some(expires_at_ms), Some(body)) = (version, expires_at_ms, body)
            else {
                return Ok(None);
            };
            Ok((expires_at_ms > now_ms).then_some(StoredTask {
                version,
                principal,
                expires_at_ms,
                body,
            }))
        })
    }

    fn swap<'a>(
        &'a self,
        id: &'a TaskId,
        expected: u64,
        task: StoredTask,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let mut connection = self.connection.clone();
        Box::pin(async move {
            let swapped: i64 = self
                .swap
                .key(self.task_key(id))
                .key(self.owners_key(task.principal.as_deref()))
                .arg(id.as_str())
                .arg(expected)
                .arg(task.version)
                .arg(task.expires_at_ms)
                .arg(redis_time(task.expires_at_ms))
                .arg(task.body)
                .arg(if task.principal.is_some() { "1" } else { "0" })
                .arg(task.principal.as_deref().unwrap_or(""))
                .invoke_async(&mut connection)
                .await
                .map_err(failed)?;
            Ok(swapped == 1)
        })
    }
}
