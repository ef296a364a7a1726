"""The official MCP Python SDK's client drives examples/both_generations.rs, in its default
mode (2026-07-28: input_required rounds) and in mode="legacy" (an initialize handshake on
2025-11-25: the server asks while the tool runs), over stdio and over streamable HTTP.

Usage: python both_generations.py SERVER_BINARY
Prints one line per case and ends with "N passed, M failed"; exits 1 on any failure.
"""

import asyncio
import os
import socket
import subprocess
import sys
import time
import traceback

from mcp import types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters


class Person:
    """Answers like a user would, and records what the server asked."""

    def __init__(self):
        self.messages = []
        self.url_ids = []
        self.numbers = iter([3, 7, 10])
        self.first_party = True
        self.progress = []
        self.party_fields = None

    async def elicit(self, context, params):
        fields = params.model_dump(by_alias=True, exclude_none=True)
        message = fields.get("message", "")
        self.messages.append(message)
        if fields.get("mode") == "url":
            self.url_ids.append(fields.get("elicitationId"))
            return types.ElicitResult(action="accept")
        if message.startswith("Who is coming?"):
            # As the client received them: a dict keeps the JSON's member order.
            schema = fields["requestedSchema"]
            self.party_fields = (list(schema["properties"]), schema.get("required"))
            # The first answer is outside the form's range: the server asks again.
            guests = 40 if self.first_party else 4
            self.first_party = False
            return types.ElicitResult(action="accept", content={"guests": guests, "seating": "terrace"})
        if message.startswith("Whose name"):
            return types.ElicitResult(action="accept", content={"name": "Ada"})
        if message.startswith("Pick an even number"):
            return types.ElicitResult(action="accept", content={"number": next(self.numbers)})
        if message.startswith("Which flight?"):
            options = fields["requestedSchema"]["properties"]["flight"]["oneOf"]
            flight = next(option["const"] for option in options if "11:45" in option["title"])
            return types.ElicitResult(action="accept", content={"flight": flight})
        if message.startswith("Delete"):
            return types.ElicitResult(action="decline")
        if message.startswith("Which list?"):
            return types.ElicitResult(action="accept", content={"list": "ideas"})
        if message.startswith("Where to?"):
            return types.ElicitResult(action="accept", content={"city": "Kyoto"})
        return types.ElicitResult(action="cancel")

    async def sample(self, context, params):
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="quiet disk"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def roots(self, context):
        return types.ListRootsResult(roots=[types.Root(uri="file:///work")])

    async def on_progress(self, progress, total, message):
        self.progress.append((progress, message))


def text_of(result):
    return result.content[0].text


async def cases(client, person, mode):
    """(name, check) pairs; each check raises on failure."""
    legacy = mode == "legacy"

    async def version():
        expected = "2025-11-25" if legacy else "2026-07-28"
        assert client.session.protocol_version == expected, client.session.protocol_version

    async def batch_with_a_choice_and_a_range():
        result = await client.call_tool("book_table", {}, progress_callback=person.on_progress)
        assert not result.is_error, result
        assert text_of(result) == "Table for 4 on the terrace, under Ada.", text_of(result)
        again = [m for m in person.messages if m.startswith("Who is coming?")]
        assert len(again) == 2 and "not accepted" in again[1] and "guests" in again[1], again
        # The form's fields arrive in declaration order (seating, guests), not sorted.
        expected = (["seating", "guests"], ["seating", "guests"])
        assert person.party_fields == expected, person.party_fields
        if legacy:
            # Between the rounds of a session the server reports progress.
            assert person.progress, "no progress notification"

    async def ask_until_valid():
        result = await client.call_tool("pick_even", {})
        assert text_of(result) == "10 is even (try 3).", text_of(result)

    async def runtime_choice():
        result = await client.call_tool("choose_flight", {"to": "Lisbon"})
        assert text_of(result) == "Booked LH88: Lisbon at 11:45, 98 EUR.", text_of(result)

    async def decline():
        result = await client.call_tool("delete_file", {"path": "notes.txt"})
        assert text_of(result) == "Kept notes.txt: the user declined.", text_of(result)

    async def sampling_and_roots():
        result = await client.call_tool("haiku_and_roots", {})
        assert text_of(result) == "quiet disk / 1 root(s)", text_of(result)

    async def url_elicitation():
        result = await client.call_tool("sign_in", {})
        assert text_of(result) == "Signed in.", text_of(result)
        if legacy:
            assert person.url_ids and len(person.url_ids[-1] or "") == 32, person.url_ids
        else:
            assert person.url_ids == [None], person.url_ids

    async def prompt():
        result = await client.get_prompt("plan_trip", {})
        assert result.messages[0].content.text == "Plan three days in Kyoto.", result

    async def resource():
        result = await client.read_resource("notes://ada")
        assert result.contents[0].text == "ada's ideas list is empty.", result

    async def completion():
        reference = types.ResourceTemplateReference(type="ref/resource", uri="notes://{owner}")
        result = await client.complete(reference, {"name": "owner", "value": "A"})
        assert result.completion.values == ["ada", "alan"], result

    return [
        ("negotiated version", version),
        ("batch form with a Choice and an integer range, one answer out of range", batch_with_a_choice_and_a_range),
        ("ask-until-valid loop", ask_until_valid),
        ("runtime elicit::choice", runtime_choice),
        ("decline", decline),
        ("sampling and roots", sampling_and_roots),
        ("URL elicitation", url_elicitation),
        ("prompt that asks", prompt),
        ("resource read that asks", resource),
        ("completion of a template variable", completion),
    ]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port, process):
    for _ in range(200):
        if process.poll() is not None:
            raise RuntimeError("the HTTP server exited")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError("the HTTP server did not start")


async def run(binary):
    passed = failed = 0
    port = free_port()
    http = subprocess.Popen([binary], env={**os.environ, "PORT": str(port)}, stderr=subprocess.DEVNULL)
    try:
        wait_for(port, http)
        transports = {
            "stdio": lambda: StdioServerParameters(command=binary, args=["stdio"]),
            "http": lambda: f"http://127.0.0.1:{port}/mcp",
        }
        for transport, server in transports.items():
            for mode in ["auto", "legacy"]:
                person = Person()
                try:
                    async with Client(
                        server(),
                        mode=mode,
                        elicitation_callback=person.elicit,
                        sampling_callback=person.sample,
                        list_roots_callback=person.roots,
                    ) as client:
                        for name, check in await cases(client, person, mode):
                            label = f"{transport:5} {mode:6} {name}"
                            try:
                                await asyncio.wait_for(check(), timeout=60)
                                passed += 1
                                print(f"ok   {label}")
                            except Exception:
                                failed += 1
                                print(f"FAIL {label}")
                                traceback.print_exc()
                except Exception:
                    failed += 1
                    print(f"FAIL {transport} {mode}: could not connect")
                    traceback.print_exc()
    finally:
        http.terminate()
        http.wait(timeout=10)
    print(f"{passed} passed, {failed} failed")
    return failed == 0


if __name__ == "__main__":
    sys.exit(0 if asyncio.run(run(sys.argv[1])) else 1)
