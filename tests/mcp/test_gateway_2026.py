"""The gateway for 2026-07-28 clients: one stable tools/list, enforcement at call time,
state behind server-minted handles (the SDK's own client, in memory, over streamable
HTTP on 127.0.0.1 and over stdio)."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.client.stdio import StdioServerParameters

import statetools as st
from statetools.errors import StatetoolsError
from statetools.mcp.gateway_sessions import _Handles
from statetools.mcp.stateless import UNKNOWN_SESSION, _Stable
from tests.local_asgi import asgi_served

STATETOOLS = str(Path(sys.executable).parent / "statetools")
CHECKOUT = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
"""The code under test, for servers started as subprocesses."""
LOCKED = "Tool 'summarize' is locked. Call first: search."
SUMMARIZE_LINE = (
    '{"name":"summarize","description":"Summarize what was found.",'
    '"inputSchema":{"type":"object","properties":{},"required":[],"additionalProperties":false}}'
)


def recording_design(ran: list[str]) -> st.PlaybookTool:
    def search(q: str) -> str:
        """Search the notes."""
        ran.append("search")
        return f"2 notes about {q}"

    def summarize() -> str:
        """Summarize what was found."""
        ran.append("summarize")
        return "Tides follow the moon."

    return (
        st.PlaybookTool("notes", "Research the notes")
        .with_tools(search)
        .with_tool(st.Tool.from_function(summarize))
        .unlocked_by(search)
    )


def text(result: Any) -> tuple[str, bool]:
    return "\n".join(block.text for block in result.content), bool(result.is_error)


async def listing(client: mcp.Client) -> list[dict[str, Any]]:
    result = await client.list_tools(cache_mode="bypass")
    return [tool.model_dump(by_alias=True, exclude_none=True) for tool in result.tools]


def started(handle: str) -> str:
    return f'[session started: pass session="{handle}" in every later call]'


async def two_clients_flow(ann: mcp.Client, bob: mcp.Client) -> dict[str, Any]:
    """Ann unlocks summarize; Bob tries to use it, with no handle and with guessed ones."""
    seen: dict[str, Any] = {"first": await listing(ann)}
    seen["locked"] = text(await ann.call_tool("summarize", {}))
    opened = await ann.call_tool("search", {"q": "tides"})
    handle = opened.meta["statetools/session"]
    seen["handle"] = handle
    seen["opened"] = text(opened)
    seen["opened_meta"] = opened.meta["statetools/opened"]
    seen["after"] = await listing(ann)
    seen["bob_list"] = await listing(bob)
    seen["ann_summary"] = text(
        await ann.call_tool("call_tool", {"name": "summarize", "session": handle})
    )
    seen["ann_direct"] = text(await ann.call_tool("summarize", {"session": handle}))
    seen["bob_no_handle"] = text(await bob.call_tool("call_tool", {"name": "summarize"}))
    guesses = ["1", "0", "ann", "session", handle[:-1], handle + "x", handle.upper()]
    seen["bob_guesses"] = [
        text(await bob.call_tool("call_tool", {"name": "summarize", "session": guess}))
        for guess in guesses
        if guess != handle
    ]
    seen["bob_int"] = text(await bob.call_tool("call_tool", {"name": "summarize", "session": 7}))
    seen["ann_still"] = text(
        await ann.call_tool("describe_tool", {"name": "summarize", "session": handle})
    )
    return seen


def check_flow(seen: dict[str, Any], ran: list[str] | None) -> None:
    handle = seen["handle"]
    assert isinstance(handle, str)
    assert len(handle) == 22
    first = seen["first"]
    assert [tool["name"] for tool in first] == ["search", "describe_tool", "call_tool"]
    assert first[0]["inputSchema"]["properties"]["session"]["type"] == "string"
    assert first[0]["inputSchema"]["required"] == ["q"]
    assert seen["after"] == first  # unlocking changed nothing in tools/list
    assert seen["bob_list"] == first  # nor is another client's list different
    assert seen["locked"] == (LOCKED, True)
    assert seen["opened"] == (
        "2 notes about tides\n[now available: summarize]\n[call these with call_tool:]\n"
        f"{SUMMARIZE_LINE}\n{started(handle)}",
        False,
    )
    assert seen["opened_meta"] == [json.loads(SUMMARIZE_LINE)]
    assert seen["ann_summary"] == ("Tides follow the moon.", False)
    assert seen["ann_direct"] == ("Tides follow the moon.", False)
    assert seen["bob_no_handle"] == (LOCKED, True)
    assert seen["bob_guesses"] == [(UNKNOWN_SESSION, True)] * 7
    assert seen["bob_int"] == (UNKNOWN_SESSION, True)
    assert seen["ann_still"] == (SUMMARIZE_LINE, False)
    if ran is not None:  # the locked calls never ran
        assert ran == ["search", "summarize", "summarize"]


def test_in_memory_clients_see_one_listing_and_keep_their_own_sessions() -> None:
    ran: list[str] = []
    server = st.mcp.disclosure_server([recording_design(ran)])

    async def main() -> dict[str, Any]:
        # one lifespan serves both, as an HTTP server does
        async with mcp.Client(server) as ann:
            return await two_clients_flow(ann, ann)

    check_flow(asyncio.run(main()), ran)


def test_the_listing_is_cacheable_public_and_the_same_for_every_lifespan() -> None:
    server = st.mcp.disclosure_server([recording_design([])])

    async def main() -> list[Any]:
        async with mcp.Client(server) as one, mcp.Client(server) as two:
            first, second = await one.list_tools(), await two.list_tools()
            return [first.ttl_ms, first.cache_scope, first.tools == second.tools]

    assert asyncio.run(main()) == [3_600_000, "public", True]
    # the SDK's Mcp-Param header check finds a schema without walking the listing
    schema = server.get_tool_input_schema("search")
    assert list(schema["properties"]) == ["q", "session"]
    assert server.get_tool_input_schema("summarize") is None  # not listed: not checked


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served() -> Iterator[tuple[str, list[str]]]:
    """The recording design over streamable HTTP on 127.0.0.1, in this process."""
    from statetools.mcp.gateway import http_app

    ran: list[str] = []
    with asgi_served(http_app(st.mcp.disclosure_server([recording_design(ran)]))) as base:
        yield f"{base}/mcp", ran


def test_two_http_clients_one_listing_own_sessions_and_no_hijack(
    served: tuple[str, list[str]],
) -> None:
    url, ran = served

    async def main() -> dict[str, Any]:
        async with mcp.Client(url) as ann, mcp.Client(url) as bob:
            assert ann.protocol_version == "2026-07-28"
            seen = await two_clients_flow(ann, bob)
            # Bob's own session opens for Bob, and Ann's handle still means Ann's
            bob_opened = await bob.call_tool("search", {"q": "moon"})
            seen["bob_handle"] = bob_opened.meta["statetools/session"]
            return seen

    seen = asyncio.run(main())
    check_flow(seen, None)
    assert seen["bob_handle"] != seen["handle"]
    assert ran == ["search", "summarize", "summarize", "search"]


def test_a_header_naming_a_session_gives_no_access(served: tuple[str, list[str]]) -> None:
    """The old hole: a 2026-era client sent ``Statetools-Session`` with any value and
    got the session of that name. Headers name nothing now."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    url, ran = served

    @asynccontextmanager
    async def with_header(value: str) -> AsyncIterator[mcp.Client]:
        headers = {st.mcp.SESSION_HEADER: value, "Mcp-Session-Id": value}
        async with (
            create_mcp_http_client(headers=headers) as http,
            mcp.Client(streamable_http_client(url, http_client=http)) as client,
        ):
            yield client

    async def main() -> list[Any]:
        async with with_header("ann") as ann, with_header("ann") as mallory:
            await ann.call_tool("search", {"q": "tides"})
            return [text(await mallory.call_tool("summarize", {}))]

    assert asyncio.run(main()) == [(LOCKED, True)]
    assert ran == ["search"]


TOOLS_MODULE = '''
from pathlib import Path

LOG = Path(__file__).with_name("ran.log")


def search(q: str) -> str:
    """Search the notes."""
    with LOG.open("a") as log:
        log.write("search\\n")
    return f"2 notes about {q}"


def summarize() -> str:
    """Summarize what was found."""
    with LOG.open("a") as log:
        log.write("summarize\\n")
    return "Tides follow the moon."
'''

DESIGN = """
kind: playbook
name: notes
description: Research the notes
tools:
  - notes_tools:search
  - tool: notes_tools:summarize
    unlocked_by: search
"""


def test_statetools_serve_over_stdio_two_processes(tmp_path: Path) -> None:
    (tmp_path / "notes_tools.py").write_text(TOOLS_MODULE)
    design = tmp_path / "notes.yaml"
    design.write_text(DESIGN)
    params = StdioServerParameters(command=STATETOOLS, args=["serve", str(design)], env=CHECKOUT)

    async def main() -> dict[str, Any]:
        async with mcp.Client(params) as ann, mcp.Client(params) as bob:
            return await two_clients_flow(ann, bob)

    check_flow(asyncio.run(main()), None)
    assert (tmp_path / "ran.log").read_text().split() == ["search", "summarize", "summarize"]


# ---- the handle table, in process ---------------------------------------------------


def stable(ran: list[str], **options: Any) -> _Stable:
    from statetools.mcp.gateway import _Gateway

    return _Gateway([recording_design(ran)], None, **options).stable


def test_ten_thousand_guessed_handles_find_nothing_and_leave_the_session_alone() -> None:
    ran: list[str] = []
    gateway = stable(ran)

    async def main() -> list[Any]:
        opened = await gateway.call("search", {"q": "tides"})
        handle = opened.meta["statetools/session"]
        other = (await gateway.call("search", {"q": "moon"})).meta["statetools/session"]
        guesses: list[object] = [secrets.token_urlsafe(16) for _ in range(5_000)]
        guesses += [str(n) for n in range(2_000)] + list(range(1_000))
        guesses += [f"{name}{n}" for n in range(250) for name in ("ann", "bob", "s", "user-")]
        guesses += [handle[:i] + c + handle[i + 1 :] for i in range(22) for c in "AbZ_-"]
        guesses += [other[:-1] + c for c in "abcdefghij"] * 100
        guesses = [g for g in guesses if g not in (handle, other)]
        assert len(guesses) >= 10_000
        ran.clear()
        wins = 0
        for guess in guesses[:10_000]:
            answer = await gateway.call("call_tool", {"name": "summarize", "session": guess})
            wins += not answer.is_error
            assert answer.content[0].text == UNKNOWN_SESSION
        kept = await gateway.call("call_tool", {"name": "summarize", "session": handle})
        return [wins, ran, kept.content[0].text, len(gateway.handles)]

    assert asyncio.run(main()) == [0, ["summarize"], "Tides follow the moon.", 2]


def test_handles_expire_on_the_injected_clock_but_not_during_a_call() -> None:
    now = [0.0]
    table: _Handles[str] = _Handles(limit=2, ttl=60.0, clock=lambda: now[0])
    first = table.open(lambda: "first")
    assert first is not None
    handle = first[0]
    now[0] = 59.0
    assert table.find(handle) == "first"
    with table.using(handle):
        now[0] = 500.0  # a long call: the session stays
        table.sweep()
        assert table.find(handle) == "first"
    now[0] = 559.0
    assert table.find(handle) == "first"  # idle time counts from the end of the call
    now[0] = 560.0
    assert table.find(handle) is None
    assert len(table) == 0


def test_a_full_table_refuses_new_sessions_and_evicts_none() -> None:
    now = [0.0]
    ran: list[str] = []
    gateway = stable(ran, max_sessions=2, session_ttl=600.0, clock=lambda: now[0])

    async def main() -> list[Any]:
        one = (await gateway.call("search", {"q": "a"})).meta["statetools/session"]
        two = (await gateway.call("search", {"q": "b"})).meta["statetools/session"]
        full = await gateway.call("search", {"q": "c"})
        still = await gateway.call("call_tool", {"name": "summarize", "session": one})
        now[0] = 600.0  # both idle for the whole ttl: a new session may take a place
        three = await gateway.call("search", {"q": "d"})
        gone = await gateway.call("call_tool", {"name": "summarize", "session": two})
        return [text(full), text(still), three.is_error, text(gone), ran]

    assert asyncio.run(main()) == [
        (
            "No session could be started: the server has 2 open sessions, its limit. "
            "Try again later (a session closes after 10 minutes without calls).",
            True,
        ),
        ("Tides follow the moon.", False),
        False,
        (UNKNOWN_SESSION, True),
        ["search", "search", "summarize", "search"],
    ]


def test_meta_tools_explain_bad_arguments_and_unknown_tools() -> None:
    gateway = stable([])

    async def main() -> list[Any]:
        handle = (await gateway.call("search", {"q": "a"})).meta["statetools/session"]
        return [
            text(await gateway.call("call_tool", {"session": handle})),
            text(await gateway.call("describe_tool", {})),
            text(await gateway.call("call_tool", {"name": "search", "arguments": [1]})),
            text(await gateway.call("call_tool", {"name": "serch", "session": handle})),
            text(await gateway.call("describe_tool", {"name": "search"})),
            text(await gateway.call("describe_tool", {"name": "summarize"})),
            text(await gateway.call("call_tool", {"name": "call_tool", "session": handle})),
        ]

    assert asyncio.run(main()) == [
        ('call_tool needs "name": the name of the tool to call.', True),
        ('describe_tool needs "name": the name of a tool.', True),
        ("call_tool's \"arguments\" must be an object: the tool's arguments.", True),
        (
            "Tool 'serch' does not exist. Did you mean 'search'? "
            "Available tools: search, summarize.",
            True,
        ),
        (
            '{"name":"search","description":"Search the notes.","inputSchema":{"type":"object",'
            '"properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}}',
            False,
        ),
        (LOCKED, True),
        (
            "Tool 'call_tool' does not exist. Available tools: search, summarize.",
            True,
        ),
    ]


def test_names_that_clash_with_the_gateway_are_refused_when_built() -> None:
    def call_tool() -> str:
        """Call."""
        return "x"

    def lookup(session: str) -> str:
        """Look up."""
        return session

    with pytest.raises(StatetoolsError) as clash:
        st.mcp.disclosure_server([st.Tool.from_function(call_tool)])
    assert str(clash.value) == (
        "disclosure_server.call_tool: the design has a tool named 'call_tool', the name of "
        "a gateway meta tool Hint: rename that tool: 2026-07-28 clients call opened tools "
        "through it"
    )
    with pytest.raises(StatetoolsError, match="pass session_argument="):
        st.mcp.disclosure_server([st.Tool.from_function(lookup)])
    server = st.mcp.disclosure_server([st.Tool.from_function(lookup)], session_argument="handle")

    async def main() -> list[str]:
        async with mcp.Client(server) as client:
            listed = (await client.list_tools()).tools[0].input_schema["properties"]
            return list(listed)

    assert asyncio.run(main()) == ["session", "handle"]


def test_a_2026_client_sending_a_2025_clients_session_id_gets_no_access(
    served: tuple[str, list[str]],
) -> None:
    """A 2025-era session lives in the connection the SDK made for its Mcp-Session-Id;
    the same id sent by a 2026-07-28 client (whose requests carry no session) names
    nothing."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    url, ran = served
    ids: list[str] = []

    async def grab(response: Any) -> None:
        if "mcp-session-id" in response.headers:
            ids.append(response.headers["mcp-session-id"])

    async def main() -> list[Any]:
        async with create_mcp_http_client() as http:
            http.event_hooks["response"].append(grab)
            legacy = streamable_http_client(url, http_client=http)
            async with mcp.Client(legacy, mode="legacy") as ann:
                await ann.call_tool("search", {"q": "tides"})
                seen: list[Any] = [[t["name"] for t in await listing(ann)]]
                stolen = {"Mcp-Session-Id": ids[-1]}
                async with (
                    create_mcp_http_client(headers=stolen) as other,
                    mcp.Client(streamable_http_client(url, http_client=other)) as mallory,
                ):
                    seen.append(text(await mallory.call_tool("summarize", {})))
                    seen.append([t["name"] for t in await listing(mallory)])
                seen.append(text(await ann.call_tool("summarize", {})))
                return seen

    assert asyncio.run(main()) == [
        ["search", "summarize"],
        (LOCKED, True),
        ["search", "describe_tool", "call_tool"],
        ("Tides follow the moon.", False),
    ]
    assert len(ids[-1]) == 32  # the SDK's uuid4 hex
    assert ran == ["search", "summarize"]
