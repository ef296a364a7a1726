#!/usr/bin/env bash
# End-to-end benchmark of the 3-round `book` flow over stateless streamable HTTP (JSON
# responses): the hand-written rmcp baseline (`e2e-rmcp`, RequestStateCodec HMAC) against mrtr
# through McpServer::streamable_http, AEAD (default) and HMAC. Each server runs pinned to one
# core, the load client (bench/e2e, `e2e-load`) on the other. Servers are interleaved within each
# repetition (rmcp, mrtr, mrtr-hmac, rmcp, ...), and ratios are taken against the baseline of
# the same run. Prints a Markdown table (the one PERFORMANCE.md leads with); raw lines go to
# $OUT/results.jsonl.
#
# Settings (environment, defaults in brackets):
#   SERVERS       which servers, in order              [rmcp mrtr mrtr-hmac]
#                 (also: mrtr-hmac-deflate, HMAC deflating payloads over 256 bytes;
#                 mrtr-mounted, McpServer as the handler of rmcp's own service, AEAD;
#                 mrtr-handle, Server::handle behind the author's own axum route, AEAD)
#   CONCURRENCY   concurrent flows                     [16 64]
#   REPS          interleaved repetitions              [3]
#   DURATION      measured seconds per run             [10]
#   WARMUP        warm-up seconds per run              [2]
#   PROBE_FLOWS   flows run one at a time for allocations and CPU per round (0: none) [300]
#   SERVER_CPU    core of the server                   [1]
#   CLIENT_CPU    core of the client                   [0]
#   OUT           where raw results go                 [target/bench-e2e/<UTC stamp>]
#   SKIP_BUILD    1: use the binaries already built    [0]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

SERVERS=${SERVERS:-"rmcp mrtr mrtr-hmac"}
CONCURRENCY=${CONCURRENCY:-"16 64"}
REPS=${REPS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
PROBE_FLOWS=${PROBE_FLOWS:-300}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
target_dir=${CARGO_TARGET_DIR:-$root/target}
OUT=${OUT:-$target_dir/bench-e2e/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  cargo build --quiet --profile e2e -p mrtr-bench-e2e
fi
bin="$target_dir/e2e"

command_of() { # server port
  case "$1" in
    rmcp) echo "$bin/e2e-rmcp $2" ;;
    mrtr) echo "$bin/e2e-mrtr $2" ;;
    mrtr-hmac) echo "$bin/e2e-mrtr $2 --hmac" ;;
    mrtr-hmac-deflate) echo "$bin/e2e-mrtr $2 --hmac --deflate" ;;
    mrtr-mounted) echo "$bin/e2e-mrtr $2 --mounted" ;;
    mrtr-handle) echo "$bin/e2e-mrtr $2 --handle" ;;
    *) echo "unknown server $1" >&2; exit 2 ;;
  esac
}

server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap stop_server EXIT

# CPU seconds (user + system) a process has used, from /proc.
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{ s = $0; sub(/.*\) /, "", s); split(s, f, " "); printf "%.3f\n", (f[12] + f[13]) / hz }' "/proc/$1/stat"
}
# Load on the machine from others: the 1-minute load average before each run.
loadavg() { cut -d' ' -f1 /proc/loadavg; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "rustc: $(rustc --version)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "settings: SERVERS='$SERVERS' CONCURRENCY='$CONCURRENCY' REPS=$REPS DURATION=$DURATION WARMUP=$WARMUP PROBE_FLOWS=$PROBE_FLOWS SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU"
} | tee "$OUT/env.txt" >&2

results="$OUT/results.jsonl"
: > "$results"
port=8140
for rep in $(seq 1 "$REPS"); do
  for server in $SERVERS; do
    port=$((port + 1))
    url="http://127.0.0.1:$port/mcp"
    # shellcheck disable=SC2046
    taskset -c "$SERVER_CPU" $(command_of "$server" "$port") 2>"$OUT/$server-r$rep.log" &
    server_pid=$!
    for _ in $(seq 1 100); do
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
      sleep 0.1
    done
    if [ "$rep" = 1 ]; then
      taskset -c "$CLIENT_CPU" "$bin/e2e-load" --url "$url" --check >&2
    fi
    for c in $CONCURRENCY; do
      before=$(cpu_seconds "$server_pid")
      load=$(loadavg)
      line=$(taskset -c "$CLIENT_CPU" "$bin/e2e-load" --url "$url" -c "$c" -d "$DURATION" -w "$WARMUP" --label "$server" | grep '^RESULT ' | sed 's/^RESULT //')
      after=$(cpu_seconds "$server_pid")
      echo "$line" | python3 -c 'import json, sys; r = json.loads(sys.stdin.read()); r.update(rep=int(sys.argv[1]), server_cpu_s=float(sys.argv[3]) - float(sys.argv[2]), loadavg=float(sys.argv[4])); print(json.dumps(r))' \
        "$rep" "$before" "$after" "$load" | tee -a "$results" >&2
    done
    if [ "$rep" = 1 ] && [ "$PROBE_FLOWS" -gt 0 ]; then
      taskset -c "$CLIENT_CPU" "$bin/e2e-load" --url "$url" --probe "$PROBE_FLOWS" --label "$server" | grep '^PROBE ' | sed 's/^PROBE //' | tee -a "$results" >&2
    fi
    stop_server
  done
done

python3 "$root/scripts/bench_e2e_report.py" "$results" | tee "$OUT/table.md"
echo "raw results: $OUT" >&2
