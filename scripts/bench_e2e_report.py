"""Summarizes scripts/bench_e2e.sh's results.jsonl as the Markdown table of PERFORMANCE.md.

Throughput is the median over repetitions; each ratio is the median of the per-repetition
ratios to the baseline (`rmcp`) of the same repetition, with the range in brackets.
"""
import json
import statistics
import sys
from collections import defaultdict

BASELINE = "rmcp"
NAMES = {
    "rmcp": "hand-written rmcp + `RequestStateCodec` (HMAC)",
    "mrtr": "mrtr, AEAD (default)",
    "mrtr-hmac": "mrtr, HMAC",
    "mrtr-hmac-deflate": "mrtr, HMAC, deflating payloads over 256 B",
    "mrtr-mounted": "mrtr mounted in rmcp's own service (`McpServer` as the handler), AEAD",
}

runs = defaultdict(dict)  # (server, concurrency) -> rep -> record
probes = {}
order = []
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record["label"] not in order:
        order.append(record["label"])
    if "allocations" in record:
        probes[record["label"]] = record
    else:
        runs[(record["label"], record["concurrency"])][record["rep"]] = record

levels = sorted({c for (_, c) in runs})


def throughput(server, c):
    reps = runs.get((server, c), {})
    if not reps:
        return "–"
    median = statistics.median(r["flows_per_s"] for r in reps.values())
    text = f"{median:,.0f}"
    base = runs.get((BASELINE, c), {})
    ratios = [reps[rep]["flows_per_s"] / base[rep]["flows_per_s"] for rep in reps if rep in base]
    if server != BASELINE and ratios:
        text += f" (**{statistics.median(ratios):.2f}x**, {min(ratios):.2f}–{max(ratios):.2f})"
    return text


def sizes(server, field):
    for c in levels:
        for record in runs.get((server, c), {}).values():
            return " / ".join(str(n) for n in record[field])
    return "–"


header = ["", *[f"flows/s, c = {c}" for c in levels], "`requestState` after round 1 / 2",
          "response body, round 1 / 2 / 3"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for server in order:
    row = [NAMES.get(server, server), *[throughput(server, c) for c in levels],
           sizes(server, "token_bytes") + " B", sizes(server, "body_bytes") + " B"]
    print("| " + " | ".join(row) + " |")

print()
def cpu_per_round(server):
    """Median over runs of the server's CPU time divided by the rounds it served."""
    cpu = [r["server_cpu_s"] / (3 * r["all_flows"]) * 1e6
           for c in levels for r in runs.get((server, c), {}).values() if r["all_flows"] > 0]
    return statistics.median(cpu) if cpu else None


header = ["", *[f"p50 / p99 per round, c = {c} (ms)" for c in levels],
          "server CPU per round under load (µs)", "allocations per round 1 / 2 / 3",
          "server CPU per round 1 / 2 / 3, one flow at a time (µs)"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for server in order:
    row = [NAMES.get(server, server)]
    for c in levels:
        reps = runs.get((server, c), {}).values()
        if not reps:
            row.append("–")
            continue
        p50 = [statistics.median(r["p50_us"][i] for r in reps) / 1000 for i in range(3)]
        p99 = [statistics.median(r["p99_us"][i] for r in reps) / 1000 for i in range(3)]
        row.append(" ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(p50, p99)))
    cpu = cpu_per_round(server)
    text = f"{cpu:.1f}" if cpu else "–"
    if cpu and server != BASELINE and cpu_per_round(BASELINE):
        text += f" ({cpu / cpu_per_round(BASELINE):.2f}x)"
    row.append(text)
    probe = probes.get(server)
    row.append(" / ".join(f"{n:.0f}" for n in probe["allocations"]) if probe else "–")
    row.append(" / ".join(f"{n:.1f}" for n in probe["cpu_us"]) if probe else "–")
    print("| " + " | ".join(row) + " |")

loads = [r["loadavg"] for reps in runs.values() for r in reps.values()]
if loads:
    print()
    print(f"1-minute load average before each run: {min(loads):.2f}–{max(loads):.2f} "
          f"(2 cores: the benchmark itself accounts for up to 2).")
