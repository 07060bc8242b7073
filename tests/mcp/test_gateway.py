"""A design served over MCP to 2025-era clients (``mode="legacy"``: one session per
connection, ``tools/list_changed``): the SDK's own client in memory, over stdio and over
HTTP. 2026-07-28 clients: test_gateway_2026.py."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

import statetools as st
from tests.mcp.upstream import TIME_SERVER

STATETOOLS = str(Path(sys.executable).parent / "statetools")
CHECKOUT = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
"""The code under test, for servers started as subprocesses."""
LOCKED = "Tool 'summarize' is locked. Call first: search."

TOOLS_MODULE = '''
def search(q: str) -> str:
    """Search the notes."""
    return f"2 notes about {q}"


def summarize() -> str:
    """Summarize what was found."""
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


def search(q: str) -> str:
    """Search the notes."""
    return f"2 notes about {q}"


def summarize() -> str:
    """Summarize what was found."""
    return "Tides follow the moon."


def notes_design() -> st.PlaybookTool:
    return (
        st.PlaybookTool("notes", "Research the notes")
        .with_tools(search)
        .with_tool(st.Tool.from_function(summarize))
        .unlocked_by(search)
    )


async def names(client: mcp.Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools]


def text(result: Any) -> tuple[str, bool]:
    return "\n".join(block.text for block in result.content), bool(result.is_error)


class Changes:
    """The ``tools/list_changed`` notifications a 2025-era client received."""

    def __init__(self) -> None:
        self.seen = 0

    async def __call__(self, message: Any) -> None:
        if type(getattr(message, "root", message)).__name__ == "ToolListChangedNotification":
            self.seen += 1

    async def wait(self) -> str:
        # the notification may cross a process; a loaded 2-core CI machine may take seconds
        deadline = time.monotonic() + 30
        while not self.seen and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return "ToolListChangedNotification" if self.seen else "none"


async def unlock_flow(client: mcp.Client, changes: Changes) -> list[Any]:
    """The first listing, a refused call, an unlocking call with its change notice, the
    larger listing, and the call that is allowed now."""
    seen: list[Any] = [await names(client)]
    seen.append(text(await client.call_tool("summarize", {})))
    seen.append(text(await client.call_tool("search", {"q": "tides"})))
    seen.append(await changes.wait())
    seen.append(await names(client))
    seen.append(text(await client.call_tool("summarize", {})))
    return seen


EXPECTED_FLOW = [
    ["search"],
    (LOCKED, True),
    ("2 notes about tides\n[now available: summarize]", False),
    "ToolListChangedNotification",
    ["search", "summarize"],
    ("Tides follow the moon.", False),
]


def test_in_memory_listing_lock_unlock_and_list_changed() -> None:
    changes = Changes()
    server = st.mcp.disclosure_server(notes_design())

    async def main() -> list[Any]:
        async with mcp.Client(server, mode="legacy", message_handler=changes) as client:
            return await unlock_flow(client, changes)

    assert asyncio.run(main()) == EXPECTED_FLOW


def test_two_in_memory_clients_do_not_share_state() -> None:
    server = st.mcp.disclosure_server([notes_design()])

    async def main() -> tuple[list[str], list[str], tuple[str, bool]]:
        async with (
            mcp.Client(server, mode="legacy") as first,
            mcp.Client(server, mode="legacy") as second,
        ):
            await first.call_tool("search", {"q": "tides"})
            return (
                await names(first),
                await names(second),
                text(await second.call_tool("summarize", {})),
            )

    assert asyncio.run(main()) == (["search", "summarize"], ["search"], (LOCKED, True))


def test_unknown_tools_are_error_results_not_protocol_errors() -> None:
    async def main() -> tuple[str, bool]:
        async with mcp.Client(st.mcp.disclosure_server([notes_design()])) as client:
            return text(await client.call_tool("serch", {"q": "x"}))

    assert asyncio.run(main()) == (
        "Tool 'serch' does not exist. Did you mean 'search'? Available tools: search.",
        True,
    )


def test_the_gateway_proxies_a_real_upstream_server() -> None:
    upstream = st.mcp.MCPServer.stdio(TIME_SERVER, name="time")
    gateway = st.mcp.disclosure_server([upstream.facade()])

    async def main() -> list[Any]:
        async with mcp.Client(gateway, mode="legacy") as client:
            seen: list[Any] = [await names(client)]
            seen.append(text(await client.call_tool("get_current_time", {"timezone": "UTC"})))
            seen.append(text(await client.call_tool("time", {})))
            seen.append(await names(client))
            seen.append(await client.call_tool("get_current_time", {"timezone": "UTC"}))
            return seen

    before, locked, opened, after, now = asyncio.run(main())
    assert before == ["time"]
    assert locked == (
        "Tool 'get_current_time' does not exist. Available tools: time.",
        True,
    )
    assert opened == (
        "Tools now available: get_current_time, convert_time.",
        False,
    )
    assert after == ["get_current_time", "convert_time"]
    assert now.is_error is False
    assert now.structured_content["timezone"] == "UTC"
    assert json.loads(now.content[0].text) == now.structured_content


@pytest.fixture
def design_file(tmp_path: Path) -> Path:
    (tmp_path / "notes_tools.py").write_text(TOOLS_MODULE)
    path = tmp_path / "notes.yaml"
    path.write_text(DESIGN)
    return path


def test_statetools_serve_over_stdio(design_file: Path) -> None:
    params = StdioServerParameters(
        command=STATETOOLS, args=["serve", str(design_file)], env=CHECKOUT
    )
    changes = Changes()

    async def main() -> list[Any]:
        async with mcp.Client(params, mode="legacy", message_handler=changes) as client:
            return await unlock_flow(client, changes)

    assert asyncio.run(main()) == EXPECTED_FLOW


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_url(design_file: Path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [STATETOOLS, "serve", str(design_file), "--transport", "http", "--port", str(port)],
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(timeout=10)


@asynccontextmanager
async def http_client(url: str, **options: Any) -> AsyncIterator[mcp.Client]:
    async with (
        create_mcp_http_client() as http,
        mcp.Client(streamable_http_client(url, http_client=http), **options) as client,
    ):
        yield client


def test_2025_era_http_clients_are_kept_apart_by_their_mcp_session(http_url: str) -> None:
    changes: list[str] = []

    async def handler(message: Any) -> None:
        changes.append(type(getattr(message, "root", message)).__name__)

    async def main() -> list[Any]:
        async with (
            http_client(http_url, mode="legacy", message_handler=handler) as first,
            http_client(http_url, mode="legacy") as second,
        ):
            called = text(await first.call_tool("search", {"q": "tides"}))
            return [called, await names(first), await names(second)]

    assert asyncio.run(main()) == [
        ("2 notes about tides\n[now available: summarize]", False),
        ["search", "summarize"],
        ["search"],
    ]
    assert "ToolListChangedNotification" in changes


def test_an_http_mcp_server_as_a_facade_drives_a_2026_session(http_url: str) -> None:
    """statetools' own client (2026-07-28) through the gateway: the facade opens the
    stable listing; the opened tool is called through call_tool with the handle."""
    remote = st.mcp.MCPServer.http(http_url, name="remote")

    def call_summarize(request: Any) -> tuple[str, dict[str, Any]]:
        said = request.messages[-1].content
        handle = said.rsplit('session="', 1)[1].split('"', 1)[0]
        return ("call_tool", {"name": "summarize", "session": handle})

    model = st.models.ScriptedModel(
        [("remote", {}), ("search", {"q": "tides"}), call_summarize, "Done."]
    )
    result = asyncio.run(st.ToolLoop(model).arun("hi", tools=[remote.facade()]))
    answers = [(m.name, m.content, m.is_error) for m in result.messages if m.role == "tool"]
    handle = answers[1][1].rsplit('session="', 1)[1].split('"', 1)[0]
    assert answers == [
        ("remote", "Tools now available: search, describe_tool, call_tool.", False),
        (
            "search",
            "2 notes about tides\n[now available: summarize]\n[call these with call_tool:]\n"
            '{"name":"summarize","description":"Summarize what was found.","inputSchema":'
            '{"type":"object","properties":{},"required":[],"additionalProperties":false}}\n'
            f'[session started: pass session="{handle}" in every later call]',
            False,
        ),
        ("call_tool", "Tides follow the moon.", False),
    ]
    assert remote._link is None
