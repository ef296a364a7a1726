#!/usr/bin/env python3
"""Probes the README's quick start served with `--http` and default settings, from outside,
the way an attacker on the network would: a foreign Origin, 5,000 unauthenticated
`initialize` requests, a half-sent request head, and SIGTERM while a session stream is open.
Prints what it measured and exits non-zero if a default does not hold.

Usage: probe_defaults.py PATH_TO_QUICK_START_BINARY   (it serves at 127.0.0.1:3000)
"""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

HOST, PORT = "127.0.0.1", 3000
INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "probe", "version": "1"}},
})
LISTING = json.dumps({
    "jsonrpc": "2.0", "id": 2, "method": "tools/list",
    "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                         "io.modelcontextprotocol/clientCapabilities": {}}},
})
HEADERS = {"Host": "localhost", "Content-Type": "application/json",
           "Accept": "application/json, text/event-stream"}

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def post(connection, body, extra=None):
    connection.request("POST", "/mcp", body=body, headers={**HEADERS, **(extra or {})})
    response = connection.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def start(binary):
    server = subprocess.Popen([binary, "--http"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection((HOST, PORT), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    sys.exit("the quick start did not start serving at 127.0.0.1:3000")


def main():
    server = start(sys.argv[1])
    try:
        # A 2025-era session with its event stream open, kept open through the whole probe
        # and SIGTERM at the end.
        connection = http.client.HTTPConnection(HOST, PORT, timeout=10)
        status, headers, _ = post(connection, INITIALIZE, {"MCP-Protocol-Version": "2025-11-25"})
        session = {k.lower(): v for k, v in headers.items()}.get("mcp-session-id")
        check(status == 200 and session is not None, f"initialize opens a session ({status})")
        stream = socket.create_connection((HOST, PORT))
        stream.sendall((f"GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
                        f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n")
                       .encode())
        stream.settimeout(10)
        check(stream.recv(4096).startswith(b"HTTP/1.1 200"), "its event stream is open")

        modern = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
        for origin in ["https://evil.example", "null"]:
            # A refused request's body is left unread, so the server closes that connection.
            refused = http.client.HTTPConnection(HOST, PORT, timeout=10)
            status, _, _ = post(refused, LISTING, {**modern, "Origin": origin})
            refused.close()
            check(status == 403, f"Origin: {origin} gets {status} (403 expected)")
        status, _, _ = post(connection, LISTING, modern)
        check(status == 200, f"no Origin gets {status} (200 expected)")

        before = rss_kib(server.pid)
        started = time.monotonic()
        statuses = {}
        for _ in range(5000):
            status, _, _ = post(connection, INITIALIZE, {"MCP-Protocol-Version": "2025-11-25"})
            statuses[status] = statuses.get(status, 0) + 1
        elapsed = time.monotonic() - started
        after = rss_kib(server.pid)
        print(f"      5,000 initialize in {elapsed:.1f} s: {statuses}; "
              f"RSS {before} KiB -> {after} KiB", flush=True)
        check(statuses.get(503, 0) > 0, "sessions past the cap are refused with 503")
        check(after - before < 100 * 1024, f"RSS grew by {(after - before) // 1024} MiB (< 100 MiB expected)")
        status, _, _ = post(connection, LISTING, modern)
        check(status == 200, f"the server still answers after them ({status})")
        connection.close()

        half = socket.create_connection((HOST, PORT))
        half.sendall(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        half.settimeout(30)
        started = time.monotonic()
        try:
            while half.recv(4096):
                pass
            closed_after = time.monotonic() - started
        except socket.timeout:
            closed_after = None
        check(closed_after is not None,
              f"a half-sent head is cut off after {closed_after:.1f} s" if closed_after is not None
              else "a half-sent head is still open after 30 s")
        half.close()
    except Exception:
        server.kill()
        raise

    started = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=15)
        check(True, f"exited {time.monotonic() - started:.1f} s after SIGTERM with a stream open")
    except subprocess.TimeoutExpired:
        server.kill()
        check(False, "still running 15 s after SIGTERM")
    if failures:
        sys.exit(f"{len(failures)} default(s) did not hold")


if __name__ == "__main__":
    main()
