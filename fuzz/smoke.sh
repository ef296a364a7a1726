#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and runs each for a bounded time (default 60 s):
# token_open (attacker-controlled requestState, both modes) and round (a whole round with
# arbitrary inputResponses and state). Any crash, timeout, out-of-memory or leak fails the run
# and leaves the input in fuzz/artifacts/. cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain
# accept them.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-60}"
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked --quiet cargo-fuzz
fi
for target in token_open round; do
  cargo fuzz build -O "$target" >"build-$target.log" 2>&1 || { cat "build-$target.log"; exit 1; }
  echo "== fuzz $target for ${seconds}s"
  log="run-$target.log"
  # cargo-fuzz's exit status is the verdict: libFuzzer exits non-zero on a crash, a timeout
  # (-timeout), running out of memory (-rss_limit_mb) or a leak. Only the summary is shown.
  status=0
  cargo fuzz run -O "$target" -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E 'stat::number_of_executed_units|Done [0-9]+ runs|ERROR|panicked|SUMMARY' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log"
    echo "fuzz $target: failed (exit $status: crash, timeout, out of memory or leak), see fuzz/artifacts/$target"
    exit 1
  fi
  if ls "artifacts/$target"/{crash,timeout,oom,leak}-* >/dev/null 2>&1; then
    echo "fuzz $target: a failing input was saved, see fuzz/artifacts/$target"
    exit 1
  fi
done
echo "fuzz: no crash, timeout, out-of-memory or leak"
