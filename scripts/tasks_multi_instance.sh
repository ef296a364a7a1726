#!/usr/bin/env bash
# Tasks (SEP-2663) across three instances of examples/conformance_server.rs that share one
# Redis task store (MRTR_TASK_STORE) and one state key (MRTR_STATE_KEYS), with a per-client
# task cap above the run's count (MRTR_TASKS_PER_PRINCIPAL), behind nginx (round
# robin, loopback only). The client is scripts/tasks_multi_instance.py (standard library only).
#   Scenario: the `durable_job` fixture's MRTR round on instance A, its hand-off on B, the
#     task's tasks/update on C; the instance that runs the step is killed (SIGKILL) in the
#     middle of it, and tasks/get is polled through nginx until the task ends: it must complete
#     once, on a surviving instance, its result naming the MRTR answer.
#   Load: TASKS tasks (default 200) through nginx, CONCURRENCY (16) at a time, after the killed
#     instance is started again: reports tasks/s; 0 lost and 0 run twice allowed.
# A fresh Redis is started on a random port unless MRTR_TASK_STORE names one (then its keys
# are left behind). WORK_MS (3000) is how long the scenario's step works; MRTR_TASK_LEASE_MS
# (3000) is the instances' step lease, so the killed step is taken over within seconds (the
# library's default, 30 s, is for deployments); the scenario fails if the takeover takes
# longer than the lease plus the step's work plus 10 s.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tasks="${TASKS:-200}"
concurrency="${CONCURRENCY:-16}"
work_ms="${WORK_MS:-3000}"

if ! command -v nginx >/dev/null 2>&1; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
fi
cargo build --quiet --release --features rmcp,redis --example conformance_server
bin="${CARGO_TARGET_DIR:-$root/target}/release/examples/conformance_server"

work="$(mktemp -d)"
mkdir -p "$work/tmp"
pids=()
redis_port=""
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  [ -n "$redis_port" ] && redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
}
trap cleanup EXIT
echo "work dir: $work"

if [ -z "${MRTR_TASK_STORE:-}" ]; then
  if ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  fi
  redis_port=$((30000 + RANDOM % 20000))
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --daemonize yes >/dev/null
  for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  export MRTR_TASK_STORE="redis://127.0.0.1:$redis_port/"
fi
# One key for every instance: each opens the task records (and states) the others sealed.
MRTR_STATE_KEYS="k1:$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
export MRTR_STATE_KEYS
# Every task of the run is anonymous and stays live (readable) until its TTL: let one client
# hold all of them.
export MRTR_TASKS_PER_PRINCIPAL="${MRTR_TASKS_PER_PRINCIPAL:-$((tasks + 10))}"
# A short lease: a dead instance's step is taken over this long after its last renewal.
export MRTR_TASK_LEASE_MS="${MRTR_TASK_LEASE_MS:-3000}"

base=$((20000 + RANDOM % 20000))
ports=("$base" "$((base + 1))" "$((base + 2))")
balancer=$((base + 3))

declare -A pid_of
start_instance() { # port
  PORT="$1" "$bin" >>"$work/instance-$1.log" 2>&1 &
  pids+=("$!")
  pid_of[$1]="$!"
}
source "$(dirname "$0")/three_instances.sh"
for port in "${ports[@]}"; do start_instance "$port"; done
for port in "${ports[@]}"; do wait_for "$port"; done

# A killed instance refuses connections: nginx sends the request to the next one.
start_balancer "error timeout"

client=(python3 scripts/tasks_multi_instance.py
  --instances "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" "127.0.0.1:${ports[2]}"
  --balancer "127.0.0.1:$balancer" --logs "$work")

echo "== scenario: MRTR on A, hand-off on B, tasks/update on C, the step's instance killed"
pid_list="${ports[0]}=${pid_of[${ports[0]}]},${ports[1]}=${pid_of[${ports[1]}]},${ports[2]}=${pid_of[${ports[2]}]}"
started=$SECONDS
"${client[@]}" scenario --pids "$pid_list" --work-ms "$work_ms" --lease-ms "$MRTR_TASK_LEASE_MS" || { tail -n 20 "$work"/instance-*.log; exit 1; }
echo "scenario took $((SECONDS - started)) s"

# Start the killed instance again, so that the load run has three.
killed="$(cat "$work/killed")"
wait "${pid_of[$killed]}" 2>/dev/null || true
start_instance "$killed"
wait_for "$killed"

echo "== load: $tasks tasks through nginx, $concurrency at a time"
"${client[@]}" load --tasks "$tasks" --concurrency "$concurrency" || { tail -n 20 "$work"/instance-*.log; exit 1; }
echo "tasks multi-instance test: passed"
