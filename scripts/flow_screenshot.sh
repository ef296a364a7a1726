#!/usr/bin/env bash
# Renders the flight_booking example's rustdoc page in headless Chromium (Debian's package) and
# saves docs/flow-rustdoc.png: a check that the flow diagram really draws on the docs page.
# Needs `chromium` (apt-get install chromium) and network access to the npm registry. The page
# imports Mermaid from its CDN; offline, the same mermaid@11 files from npm answer that import.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cargo doc --no-deps --all-features --example flight_booking
work=$(mktemp -d)
cp scripts/flow_screenshot.mjs "$work/"
(cd "$work" && npm init -y >/dev/null && npm install --silent playwright-core@1 mermaid@11)
page=$root/${CARGO_TARGET_DIR:-target}/doc/flight_booking/fn.book_flight.html
(cd "$work" && node flow_screenshot.mjs "$page" "$root/docs/flow-rustdoc.png")
