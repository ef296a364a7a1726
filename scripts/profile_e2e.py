"""Sorts the samples of scripts/profile_e2e.sh into owners and prints server CPU per round.

Usage: profile_e2e.py OUT FREQUENCY SECONDS SERVER...

Each sample goes to the first owner (in the order of OWNERS) with a frame in its call chain;
a frame matches when its function path starts with one of the owner's prefixes (generic
arguments are ignored, so `Service<rmcp::..>` inside mrtr's code is not counted as rmcp's).
Microseconds per round = samples / FREQUENCY / (flows/s x seconds sampled x 3 rounds a flow).
"""

import json
import sys
from collections import Counter

OWNERS = [
    ("mrtr: the round (engine, state, the tool's step)", ["mrtr_runtime::server::round::"]),
    ("mrtr: reply into rmcp's types", ["<rmcp::model::mrtr::CallToolResponse as mrtr_runtime"]),
    ("the hand-written handler", ["e2e_rmcp::Book::"]),
    ("mrtr: direct path's pick (parse)", ["mrtr_runtime::rmcp::direct::pick::"]),
    ("mrtr: Server::handle (JSON in, JSON out)", ["mrtr_runtime::server::dispatch::"]),
    ("rmcp: request parse", [
        "rmcp::transport::common::server_side_http::expect_json",
        "rmcp::model::_::<impl serde_core::de::Deserialize for",
    ]),
    ("rmcp: response serialize", ["rmcp::model::_::<impl serde_core::ser::Serialize for rmcp::model::JsonRpcMessage"]),
    ("rmcp: per-request service (session, task, channels)", ["rmcp::", "<rmcp::"]),
    ("mrtr: front (direct path, layers)", ["mrtr_runtime::", "<mrtr_runtime::", "e2e_mrtr::"]),
    ("hyper, axum, kernel I/O", ["hyper::", "<hyper", "axum::", "<axum", "hyper_util::", "<hyper_util"]),
]
REST = "tokio, allocator, other"


def path(frame):
    """The function path of a frame, generic arguments cut off."""
    depth, out = 0, []
    for ch in frame:
        if ch == "<" and out and out[-1] not in "<( ":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
            continue
        if not depth:
            out.append(ch)
    return "".join(out)


def owner(frames):
    for name, prefixes in OWNERS:
        for frame in frames:
            if frame.startswith(tuple(prefixes)) or path(frame).startswith(tuple(prefixes)):
                return name
    return REST


def main():
    out, frequency, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    servers = sys.argv[4:]
    table = {}
    for server in servers:
        result = json.loads(open(f"{out}/{server}.result").read())
        stacks = [s for s in open(f"{out}/{server}.stacks").read().split("\n\n") if s.strip()]
        counts = Counter()
        for stack in stacks:
            frames = [line.strip().split(" ", 1)[1] for line in stack.strip().split("\n") if " " in line.strip()]
            counts[owner(frames)] += 1
        # The sampled window lies inside the measured one, so the measured rate holds for it.
        rounds = result["flows_per_s"] * seconds * 3
        table[server] = {name: n / frequency / rounds * 1e6 for name, n in counts.items()}
        table[server]["total"] = len(stacks) / frequency / rounds * 1e6
    names = [name for name, _ in OWNERS] + [REST, "total"]
    print("| server CPU per round, µs | " + " | ".join(servers) + " |")
    print("|---|" + "---|" * len(servers))
    for name in names:
        cells = [f"{table[s].get(name, 0.0):.1f}" for s in servers]
        if any(cell != "0.0" for cell in cells):
            label = f"**{name}**" if name == "total" else name
            print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
