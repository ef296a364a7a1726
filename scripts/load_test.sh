#!/usr/bin/env bash
# Three instances of examples/http_server.rs behind nginx (round robin, loopback only), many
# concurrent three-round flows whose rounds land on different instances.
#   Run 1: a signing-key rotation (add -> promote -> retire) in the middle of the run; zero
#          errors and zero mixed answers allowed.
#   Runs 2-4: rolling deploys (the instances restarted one at a time with another build of the
#          tool, so old and new builds serve the same flows for a while, in both directions):
#     2: messages and the code after the last ask edited: no flow refused at all;
#     3: a kept value's type changed at the nights question: only flows waiting there are
#        refused (-32602), and some must be; none waiting at the city question;
#     4: `version` bumped: flows in flight at either question are refused.
#   Nothing else may fail, and no flow may get another flow's answers.
# FLOWS, DEPLOY_FLOWS (default 2 x FLOWS) and CONCURRENCY bound the runs (CI uses the defaults; raise FLOWS for the long form).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
flows="${FLOWS:-20000}"
concurrency="${CONCURRENCY:-16}"
# A rolling deploy restarts three instances one after the other: its runs need to last longer.
deploy_flows="${DEPLOY_FLOWS:-$((flows * 2))}"

if ! command -v nginx >/dev/null 2>&1; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
fi
cargo build --quiet --release --example http_server --example load_driver
bin="$root/target/release/examples"

work="$(mktemp -d)"
mkdir -p "$work/tmp"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
}
trap cleanup EXIT
echo "work dir: $work"

key() { head -c 32 /dev/urandom | base64 | tr -d '=\n'; }
old_key="$(key)"
new_key="$(key)"
echo "old:$old_key" >"$work/keys"

base=$((20000 + RANDOM % 20000))
ports=("$base" "$((base + 1))" "$((base + 2))")
balancer=$((base + 3))

declare -A pid_of
start_instance() { # port variant
  PORT="$1" MRTR_KEY_FILE="$work/keys" FLOW_VARIANT="$2" "$bin/http_server" >>"$work/instance-$1.log" 2>&1 &
  pids+=("$!")
  pid_of[$1]="$!"
}
source "$(dirname "$0")/three_instances.sh"
for port in "${ports[@]}"; do start_instance "$port" 1; done
for port in "${ports[@]}"; do wait_for "$port"; done

# An instance stopping mid-deploy can drop a request it already accepted: send the round
# to another instance (a round may run again; that is what the idempotency key is for).
start_balancer "error timeout non_idempotent"

echo "== run 1: $flows flows, $concurrency at a time, keys rotated in the middle"
TARGET="127.0.0.1:$balancer" FLOWS="$flows" CONCURRENCY="$concurrency" "$bin/load_driver" >"$work/run1.txt" 2>"$work/run1.err" &
driver=$!
sleep 0.2; echo "old:$old_key,new:$new_key" >"$work/keys"   # add the new key, verify only
sleep 0.5; echo "new:$new_key,old:$old_key" >"$work/keys"   # promote it; the old one verifies
sleep 0.7; echo "new:$new_key" >"$work/keys"                # retire the old one
running_at_retire=0; kill -0 "$driver" 2>/dev/null && running_at_retire=1
status=0; wait "$driver" || status=$?
cat "$work/run1.txt"; head -5 "$work/run1.err"
[ "$status" -eq 0 ] || { echo "load test: run 1 failed"; exit 1; }
[ "$running_at_retire" -eq 1 ] || { echo "load test: run 1 ended before the rotation finished; raise FLOWS"; exit 1; }
grep -q "signing with Some(KeyId(new))" "$work/instance-${ports[0]}.log" || { echo "load test: keys were not reloaded"; exit 1; }

# A rolling deploy of `variant` while a run of the load driver is going on.
rolling_run() { # run-number variant allow-refusals description
  local run="$1" variant="$2" allow="$3"
  echo "== run $run: $deploy_flows flows, rolling deploy: $4"
  local started=$SECONDS
  if [ "$allow" = 1 ]; then export ALLOW_DEPLOY_REFUSALS=1; else unset ALLOW_DEPLOY_REFUSALS; fi
  TARGET="127.0.0.1:$balancer" FLOWS="$deploy_flows" CONCURRENCY="$concurrency" "$bin/load_driver" >"$work/run$run.txt" 2>"$work/run$run.err" &
  local driver=$!
  sleep 0.3
  for port in "${ports[@]}"; do
    kill "${pid_of[$port]}"; wait "${pid_of[$port]}" 2>/dev/null || true
    start_instance "$port" "$variant"
    wait_for "$port"
    sleep 0.2
  done
  local running=0; kill -0 "$driver" 2>/dev/null && running=1
  local status=0; wait "$driver" || status=$?
  unset ALLOW_DEPLOY_REFUSALS
  cat "$work/run$run.txt"; head -5 "$work/run$run.err"
  echo "run $run took $((SECONDS - started)) s"
  [ "$status" -eq 0 ] || { echo "load test: run $run failed"; exit 1; }
  [ "$running" -eq 1 ] || { echo "load test: run $run ended before the deploy finished; raise FLOWS"; exit 1; }
}
count() { # run-number field
  grep -o "$2=[0-9]*" "$work/run$1.txt" | cut -d= -f2
}

rolling_run 2 2 0 "messages and code after the last ask edited (nothing may be refused)"
[ "$(count 2 refused_by_deploy)" -eq 0 ] || { echo "load test: run 2 refused flows"; exit 1; }

rolling_run 3 3 1 "a kept value's type changed at the nights question"
[ "$(count 3 refused_at_city)" -eq 0 ] || { echo "load test: run 3 refused flows waiting at the unchanged city question"; exit 1; }
[ "$(count 3 refused_at_nights)" -gt 0 ] || { echo "load test: run 3 refused no flow at the changed question; raise FLOWS"; exit 1; }

rolling_run 4 4 1 "version bumped"
[ "$(count 4 refused_at_city)" -gt 0 ] && [ "$(count 4 refused_at_nights)" -gt 0 ] || { echo "load test: run 4 did not refuse flows at both questions"; exit 1; }
echo "load test: passed"
