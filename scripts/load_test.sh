#!/usr/bin/env bash
# Three instances of examples/http_server.rs behind nginx (round robin, loopback only), many
# concurrent three-round flows whose rounds land on different instances.
#   Run 1: a signing-key rotation (add -> promote -> retire) in the middle of the run; zero
#          errors and zero mixed answers allowed.
#   Run 2: one instance restarted with an edited tool in the middle of the run; in-flight flows
#          must be refused with -32602 (and some must be), nothing else may fail.
# FLOWS and CONCURRENCY bound the runs (CI uses the defaults; raise FLOWS for the long form).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
flows="${FLOWS:-5000}"
concurrency="${CONCURRENCY:-16}"

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

start_instance() { # port variant
  PORT="$1" MRTR_KEY_FILE="$work/keys" FLOW_VARIANT="$2" "$bin/http_server" >>"$work/instance-$1.log" 2>&1 &
  pids+=("$!")
  echo "$!"
}
wait_for() { # port
  for _ in $(seq 1 100); do
    curl -s -o /dev/null -X POST -H 'Content-Type: application/json' --data '{}' "http://127.0.0.1:$1/mcp" && return 0
    sleep 0.1
  done
  echo "nothing answers on port $1"; cat "$work"/*.log; exit 1
}
for port in "${ports[@]}"; do start_instance "$port" 1 >/dev/null; done
for port in "${ports[@]}"; do wait_for "$port"; done

cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/tmp/body;
  proxy_temp_path $work/tmp/proxy;
  fastcgi_temp_path $work/tmp/fastcgi;
  uwsgi_temp_path $work/tmp/uwsgi;
  scgi_temp_path $work/tmp/scgi;
  upstream mrtr {
    server 127.0.0.1:${ports[0]} max_fails=0;
    server 127.0.0.1:${ports[1]} max_fails=0;
    server 127.0.0.1:${ports[2]} max_fails=0;
  }
  server {
    listen 127.0.0.1:$balancer;
    location /mcp {
      proxy_pass http://mrtr;
      proxy_set_header Host localhost;
      proxy_http_version 1.1;
      # An instance stopping mid-deploy can drop a request it already accepted: send the round
      # to another instance (a round may run again; that is what the idempotency key is for).
      proxy_next_upstream error timeout non_idempotent;
    }
  }
}
NGINX
nginx -p "$work" -c "$work/nginx.conf" &
wait_for "$balancer"

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

echo "== run 2: $flows flows, one instance redeployed with an edited tool in the middle"
ALLOW_DEPLOY_REFUSALS=1 TARGET="127.0.0.1:$balancer" FLOWS="$flows" CONCURRENCY="$concurrency" "$bin/load_driver" >"$work/run2.txt" 2>"$work/run2.err" &
driver=$!
sleep 0.5
kill "${pids[2]}"; wait "${pids[2]}" 2>/dev/null || true
start_instance "${ports[2]}" 2 >/dev/null
wait_for "${ports[2]}"
status=0; wait "$driver" || status=$?
cat "$work/run2.txt"; head -5 "$work/run2.err"
[ "$status" -eq 0 ] || { echo "load test: run 2 failed"; exit 1; }
grep -Eq "refused_by_deploy=[1-9]" "$work/run2.txt" || { echo "load test: the deploy refused no in-flight flow; raise FLOWS"; exit 1; }
echo "load test: passed"
