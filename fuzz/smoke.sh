#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and runs each for a bounded time (default 60 s):
# token_open (attacker-controlled requestState, both modes) and round (a whole round with
# arbitrary inputResponses and state). Any crash fails the run and leaves the input in
# fuzz/artifacts/. cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain
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
  cargo fuzz run -O "$target" -- -max_total_time="$seconds" -print_final_stats=1 2>&1 \
    | grep -E 'stat::number_of_executed_units|Done [0-9]+ runs|ERROR|panicked|SUMMARY' || true
  if ls "artifacts/$target"/crash-* >/dev/null 2>&1; then
    echo "fuzz $target: crash found, see fuzz/artifacts/$target"
    exit 1
  fi
done
echo "fuzz: no crash"
