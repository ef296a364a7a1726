#!/usr/bin/env bash
# Where the server's CPU goes, per round, for each way of serving the end-to-end `book` flow
# (bench/e2e): each server runs pinned to one core under `perf record` while the load client
# drives it from the other, and scripts/profile_e2e.py sorts every sample into one owner (mrtr's
# round, rmcp's per-request machinery, hyper and the kernel, ...) and prints microseconds of
# server CPU per round for each. PERFORMANCE.md's "where the time goes" table comes from here.
#
# The binaries are built with frame pointers and line tables into their own target directory
# (the call chains need them; the figures of scripts/bench_e2e.sh come from a plain build).
#
# Settings (environment, defaults in brackets):
#   SERVERS      [rmcp mrtr mrtr-mounted mrtr-handle]   (names as in scripts/bench_e2e.sh)
#   CONCURRENCY  [16]
#   SECONDS_ON   seconds sampled per server             [8]
#   FREQUENCY    samples per second                     [1999]
#   OUT          where perf data and the table go       [target/profile-e2e/<UTC stamp>]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

SERVERS=${SERVERS:-"rmcp mrtr mrtr-mounted mrtr-handle"}
CONCURRENCY=${CONCURRENCY:-16}
SECONDS_ON=${SECONDS_ON:-8}
FREQUENCY=${FREQUENCY:-1999}
target_dir=${PROFILE_TARGET_DIR:-$root/target/profile}
OUT=${OUT:-$root/target/profile-e2e/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
command -v perf >/dev/null || { echo "perf is needed (Debian: linux-perf)" >&2; exit 2; }

RUSTFLAGS="-C force-frame-pointers=yes" CARGO_PROFILE_E2E_DEBUG=line-tables-only \
  CARGO_TARGET_DIR="$target_dir" cargo build --quiet --profile e2e -p mrtr-bench-e2e
bin="$target_dir/e2e"

command_of() { # server port
  case "$1" in
    rmcp) echo "$bin/e2e-rmcp $2" ;;
    mrtr) echo "$bin/e2e-mrtr $2" ;;
    mrtr-hmac) echo "$bin/e2e-mrtr $2 --hmac" ;;
    mrtr-mounted) echo "$bin/e2e-mrtr $2 --mounted" ;;
    mrtr-handle) echo "$bin/e2e-mrtr $2 --handle" ;;
    *) echo "unknown server $1" >&2; exit 2 ;;
  esac
}

port=8190
for server in $SERVERS; do
  port=$((port + 1))
  url="http://127.0.0.1:$port/mcp"
  # shellcheck disable=SC2046
  taskset -c 1 $(command_of "$server" "$port") 2>/dev/null &
  pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  # The client runs two seconds longer on each side of the sampled window.
  taskset -c 0 "$bin/e2e-load" --url "$url" -c "$CONCURRENCY" -d $((SECONDS_ON + 4)) -w 1 \
    --label "$server" | grep '^RESULT ' | sed 's/^RESULT //' > "$OUT/$server.result" &
  load=$!
  sleep 3
  perf record -q -F "$FREQUENCY" --call-graph fp -p "$pid" -o "$OUT/$server.data" \
    -- sleep "$SECONDS_ON" >/dev/null 2>&1
  wait "$load"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  perf script -i "$OUT/$server.data" -F ip,sym 2>/dev/null > "$OUT/$server.stacks"
done

python3 "$root/scripts/profile_e2e.py" "$OUT" "$FREQUENCY" "$SECONDS_ON" $SERVERS | tee "$OUT/table.md"
echo "perf data: $OUT" >&2
