#!/usr/bin/env bash
# Drives examples/both_generations.rs with the official MCP Python SDK client (mcp 2.3.0 from
# PyPI, pinned with hashes in requirements.txt): its default mode (2026-07-28) and
# mode="legacy" (2025-11-25 over a session), over stdio and over streamable HTTP. Creates its
# virtualenv under the cargo target directory on first use.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
venv="$target_dir/python-venv"
python="$(command -v python3.11 || command -v python3)"

if [ ! -f "$venv/.installed" ] || [ "$here/requirements.txt" -nt "$venv/.installed" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$here/requirements.txt"
  touch "$venv/.installed"
fi
(cd "$root" && cargo build --quiet --example both_generations)
"$venv/bin/python" "$here/both_generations.py" "$target_dir/debug/examples/both_generations"
