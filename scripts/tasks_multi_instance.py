#!/usr/bin/env python3
"""The client of scripts/tasks_multi_instance.sh: drives tasks (SEP-2663) of the conformance
server's `durable_job` fixture across three instances that share a Redis task store.

  scenario  MRTR round 1 on instance A, the hand-off on B, tasks/update on C; the instance that
            runs the step is killed (SIGKILL) in the middle of it; tasks/get is polled through
            the load balancer until the task ends. It must complete once, its result naming the
            MRTR answer.
  load      N tasks through the load balancer, CONCURRENCY at a time: reports tasks/s, and
            fails unless every task completed (0 lost) and no job's step ran twice.

The fixture prints `job-started <job> on <port>` when its last step starts working and
`job-completed <job> on <port>` when it is done; the instances' logs are what this counts.
Standard library only.
"""

import argparse
import glob
import http.client
import itertools
import json
import os
import re
import signal
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

TASKS = "io.modelcontextprotocol/tasks"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "tasks-multi-instance", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS: {}}},
}
TERMINAL = {"completed", "failed", "cancelled"}
TOOL = "durable_job"
request_ids = itertools.count(1)


class Failure(Exception):
    """Something the protocol or the run did that it must not."""


def rpc(address, method, params):
    """One JSON-RPC request to `address` (host:port); the result, or Failure on an error."""
    name = params.get("name") or params.get("taskId")
    body = json.dumps({
        "jsonrpc": "2.0",
        "id": next(request_ids),
        "method": method,
        "params": {**params, "_meta": META},
    })
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if name:
        headers["Mcp-Name"] = name
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("POST", "/mcp", body, headers)
        response = connection.getresponse()
        text = response.read().decode()
    finally:
        connection.close()
    # A JSON answer, or the last `data:` line of an event stream.
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    try:
        reply = json.loads(data[-1] if data else text)
    except ValueError:
        raise Failure(f"{method} on {address}: HTTP {response.status}, not JSON: {text[:300]!r}")
    if "error" in reply:
        raise Failure(f"{method} on {address}: error {reply['error']}")
    return reply["result"]


def accept(content):
    return {"action": "accept", "content": content}


def start_task(round1_at, handoff_at, job, name, work_ms):
    """MRTR round 1 at one address, the answer (and hand-off) at another: the task's id."""
    arguments = {"job": job, "work_ms": work_ms}
    first = rpc(round1_at, "tools/call", {"name": TOOL, "arguments": arguments})
    if first.get("resultType") != "input_required" or not first.get("inputRequests"):
        raise Failure(f"round 1 must ask by MRTR, got {first}")
    if "taskId" in first:
        raise Failure(f"round 1 must not carry a taskId, got {first}")
    key = next(iter(first["inputRequests"]))
    retry = {"name": TOOL, "arguments": arguments, "inputResponses": {key: accept({"name": name})}}
    if "requestState" in first:
        retry["requestState"] = first["requestState"]
    created = rpc(handoff_at, "tools/call", retry)
    if created.get("resultType") != "task" or not created.get("taskId"):
        raise Failure(f"round 2 must hand off (CreateTaskResult), got {created}")
    if "requestState" in created:
        raise Failure(f"CreateTaskResult must not carry requestState, got {created}")
    return created["taskId"]


def poll(address, task_id, until, timeout_s, interval_s):
    """tasks/get at `address` until the status is in `until` (or terminal)."""
    deadline = time.monotonic() + timeout_s
    while True:
        task = rpc(address, "tasks/get", {"taskId": task_id})
        if task.get("status") in until or task.get("status") in TERMINAL:
            return task
        if time.monotonic() > deadline:
            raise Failure(f"task {task_id} still {task.get('status')} after {timeout_s} s")
        time.sleep(interval_s)


def answer_go_ahead(address, task_id, task):
    """tasks/update with an accepted go-ahead for every pending question."""
    if task.get("status") != "input_required" or not task.get("inputRequests"):
        raise Failure(f"the task must ask for its go-ahead, got {task}")
    answers = {key: accept({"ok": True}) for key in task["inputRequests"]}
    ack = rpc(address, "tasks/update", {"taskId": task_id, "inputResponses": answers})
    if ack.get("resultType") != "complete":
        raise Failure(f"tasks/update must be acked with resultType complete, got {ack}")


def result_text(task):
    content = (task.get("result") or {}).get("content") or [{}]
    return content[0].get("text", "")


def job_lines(log_dir):
    """Every job-started / job-completed line of every instance's log: {(kind, job): [port]}."""
    lines = {}
    pattern = re.compile(r"job-(started|completed) (\S+) on (\d+)")
    for path in glob.glob(os.path.join(log_dir, "instance-*.log")):
        with open(path, errors="replace") as log:
            for match in pattern.finditer(log.read()):
                kind, job, port = match.groups()
                lines.setdefault((kind, job), []).append(port)
    return lines


def scenario(args):
    a, b, c = args.instances
    pid_of = dict(pair.split("=") for pair in args.pids.split(","))
    job, name = f"kill-{uuid.uuid4().hex[:12]}", "Alice"
    print(f"round 1 on {a}, the hand-off on {b}, tasks/update on {c} (job {job})")
    task_id = start_task(a, b, job, name, args.work_ms)
    waiting = poll(c, task_id, {"input_required"}, 30, 0.05)
    answer_go_ahead(c, task_id, waiting)

    # Kill whichever instance took the step, once it is inside it.
    deadline = time.monotonic() + 30
    while ("started", job) not in job_lines(args.logs):
        if time.monotonic() > deadline:
            raise Failure("no instance started the step within 30 s")
        time.sleep(0.02)
    lines = job_lines(args.logs)
    if ("completed", job) in lines:
        raise Failure(f"the step finished before it could be killed; raise WORK_MS (now {args.work_ms})")
    runner = lines[("started", job)][0]
    os.kill(int(pid_of[runner]), signal.SIGKILL)
    killed_at = time.monotonic()
    print(f"the step started on 127.0.0.1:{runner}: killed it (SIGKILL)")
    with open(os.path.join(args.logs, "killed"), "w") as out:
        out.write(runner)

    task = poll(args.balancer, task_id, TERMINAL, args.timeout, 0.2)
    took = time.monotonic() - killed_at
    lines = job_lines(args.logs)
    completed_on = lines.get(("completed", job), [])
    started_on = lines.get(("started", job), [])
    print(f"status {task.get('status')} {took:.1f} s after the kill; step started on "
          f"{started_on}, completed on {completed_on}; result {result_text(task)!r}")
    if task.get("status") != "completed":
        raise Failure(f"the task must complete, got {task}")
    if name not in result_text(task):
        raise Failure(f"the result must name the MRTR answer {name!r}, got {result_text(task)!r}")
    if len(completed_on) != 1 or completed_on[0] == runner:
        raise Failure(f"the step must complete exactly once, on a surviving instance: {completed_on}")
    # The lease expires at most one lease after the kill; the step then works again.
    bound = (args.lease_ms + args.work_ms) / 1000 + 10
    if took > bound:
        raise Failure(f"the takeover took {took:.1f} s, more than the lease plus the work plus 10 s "
                      f"({bound:.1f} s): is MRTR_TASK_LEASE_MS reaching the instances?")
    print("scenario: passed")


def one_load_task(args, index):
    """One task through the balancer; (job, name, final task) or (job, name, Failure)."""
    job, name = f"load-{index}-{uuid.uuid4().hex[:8]}", f"user-{index}"
    try:
        task_id = start_task(args.balancer, args.balancer, job, name, 0)
        waiting = poll(args.balancer, task_id, {"input_required"}, args.timeout, 0.05)
        answer_go_ahead(args.balancer, task_id, waiting)
        return job, name, poll(args.balancer, task_id, TERMINAL, args.timeout, 0.05)
    except Failure as failure:
        return job, name, failure


def load(args):
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        outcomes = list(pool.map(lambda index: one_load_task(args, index), range(args.tasks)))
    seconds = time.monotonic() - started
    lines = job_lines(args.logs)
    completed, lost, twice = 0, [], []
    for job, name, task in outcomes:
        if isinstance(task, dict) and task.get("status") == "completed" and name in result_text(task):
            completed += 1
        else:
            lost.append((job, task))
        runs = max(len(lines.get(("started", job), [])), len(lines.get(("completed", job), [])))
        if runs > 1:
            twice.append((job, lines.get(("started", job)), lines.get(("completed", job))))
    print(f"tasks={args.tasks} completed={completed} lost={len(lost)} run_twice={len(twice)} "
          f"seconds={seconds:.2f} tasks_per_s={args.tasks / seconds:.1f}")
    for job, task in lost[:5]:
        print(f"  lost {job}: {task}")
    for job, started_on, completed_on in twice[:5]:
        print(f"  ran twice {job}: started on {started_on}, completed on {completed_on}")
    if lost or twice:
        raise Failure(f"{len(lost)} lost, {len(twice)} run twice")
    print("load: passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["scenario", "load"])
    parser.add_argument("--instances", nargs=3, metavar="HOST:PORT", required=True)
    parser.add_argument("--balancer", metavar="HOST:PORT", required=True)
    parser.add_argument("--logs", required=True, help="the directory of the instance-<port>.log files")
    parser.add_argument("--lease-ms", type=int, default=30000,
                        help="the instances' step lease (scenario: bounds the takeover time)")
    parser.add_argument("--pids", default="", help="port=pid,... (scenario: whom to kill)")
    parser.add_argument("--work-ms", type=int, default=3000, help="scenario: how long the step works")
    parser.add_argument("--timeout", type=float, default=120, help="seconds a task may take to end")
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    try:
        scenario(args) if args.mode == "scenario" else load(args)
    except Failure as failure:
        print(f"{args.mode}: FAILED: {failure}")
        sys.exit(1)


if __name__ == "__main__":
    main()
