"""The MCP client on the 2026-07-28 revision: server/discover (the SDK's), stateless
HTTP servers, list changes by subscriptions/listen, and saved listings listed again
once the server's ttlMs has passed (by an injected clock)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.server import Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

import statetools as st
from tests.local_asgi import asgi_served


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Counted:
    """A low-level server whose tools/list says ttlMs=60000 and counts its listings."""

    def __init__(self) -> None:
        self.listings = 0
        self.names = ["a", "b"]
        self.bus = InMemorySubscriptionBus()
        self.server: Server[Any] = Server(
            "counted",
            on_list_tools=self._list,
            on_call_tool=self._call,
            on_subscriptions_listen=ListenHandler(self.bus),
        )

    async def _list(self, ctx: Any, params: Any) -> types.ListToolsResult:
        self.listings += 1
        tools = [
            types.Tool(name=name, description=name.upper(), input_schema={"type": "object"})
            for name in self.names
        ]
        return types.ListToolsResult(tools=tools, ttl_ms=60_000, cache_scope="public")

    async def _call(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


def test_a_listing_keeps_the_servers_ttl_and_when_it_was_listed(tmp_path: Path) -> None:
    upstream = Counted()
    server = st.mcp.MCPServer.in_process(upstream.server, name="counted", clock=Clock(1000.25))
    asyncio.run(server.list_tools())
    assert server.listing is not None
    assert (server.listing.ttl_ms, server.listing.listed_at) == (60_000, 1000.25)
    saved = json.loads(server.listing.to_json())
    assert list(saved) == ["server", "ttlMs", "listedAt", "tools"]
    assert (saved["ttlMs"], saved["listedAt"]) == (60_000, "1970-01-01T00:16:40.250Z")
    path = tmp_path / "counted.json"
    path.write_text(server.listing.to_json())
    again = st.mcp.Listing.read(path)
    assert (again.ttl_ms, again.listed_at, again.names) == (60_000, 1000.25, ["a", "b"])


def test_a_saved_listing_is_used_until_its_ttl_has_passed_then_listed_again() -> None:
    upstream = Counted()
    saved = st.mcp.Listing.from_json(
        '{"server": "counted", "ttlMs": 60000, "listedAt": "1970-01-01T00:16:40.000Z",'
        ' "tools": [{"name": "a", "description": "A"}]}'
    )
    clock = Clock(1059.5)
    server = st.mcp.MCPServer.in_process(upstream.server, name="counted", clock=clock)
    server.with_listing(saved)

    async def names() -> list[str]:
        return [tool.name for tool in await server.current_tools()]

    async def main() -> list[Any]:
        seen: list[Any] = [await names(), upstream.listings, server._link is None]
        clock.now = 1060.0  # 60 s after it was listed: stale
        upstream.names = ["a", "b", "c"]
        seen += [await names(), upstream.listings]
        clock.now = 1119.0  # the new listing is fresh (listed at 1060, in memory)
        seen += [await names(), upstream.listings]
        await server.aclose()
        return seen

    assert asyncio.run(main()) == [
        ["a"],
        0,
        True,  # not even connected while the saved listing is fresh
        ["a", "b", "c"],
        1,
        ["a", "b", "c"],
        1,
    ]
    assert server.listing is not None
    assert server.listing.listed_at == 1060.0


def test_a_saved_listing_without_ttl_is_listed_again_at_once() -> None:
    upstream = Counted()
    server = st.mcp.MCPServer.in_process(upstream.server, name="counted", clock=Clock(0.0))
    server.with_listing(st.mcp.Listing.from_json('{"server": "counted", "tools": []}'))
    assert [t.name for t in asyncio.run(server.current_tools())] == ["a", "b"]
    assert upstream.listings == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"server": "s", "ttlMs": "soon", "listedAt": "1970-01-01T00:00:00Z", "tools": []}',
            "l.json: ttlMs: ttlMs must be a whole number of milliseconds, got 'soon' "
            "Hint: re-save it with: statetools mcp list NAME --save FILE",
        ),
        (
            '{"server": "s", "ttlMs": 1000, "listedAt": "yesterday", "tools": []}',
            "l.json: listedAt: listedAt must be a UTC time like 2026-07-28T12:00:00.000Z, "
            "got 'yesterday' Hint: re-save it with: statetools mcp list NAME --save FILE",
        ),
    ],
)
def test_a_bad_ttl_in_a_saved_listing_is_a_spec_error(text: str, message: str) -> None:
    with pytest.raises(st.SpecError) as caught:
        st.mcp.Listing.from_json(text, where="l.json")
    assert str(caught.value) == message


@pytest.fixture
def stateless_url() -> Iterator[tuple[str, Counted]]:
    """Counted over streamable HTTP, stateless (no Mcp-Session-Id), on 127.0.0.1."""
    upstream = Counted()
    app = upstream.server.streamable_http_app(stateless_http=True, host="127.0.0.1")
    with asgi_served(app) as base:
        yield f"{base}/mcp", upstream


def test_a_stateless_2026_server_over_http_is_discovered_listed_called_and_followed(
    stateless_url: tuple[str, Counted],
) -> None:
    url, upstream = stateless_url
    server = st.mcp.MCPServer.http(url, name="counted")

    async def main() -> list[Any]:
        async with server:
            assert server._link is not None
            client = server._link.client
            seen: list[Any] = [client.protocol_version, client.session.discover_result is not None]
            seen.append([tool.name for tool in await server.list_tools()])
            seen.append((await server.call("b", {})).text)
            upstream.names = ["a", "b", "c"]
            await upstream.bus.publish(ToolsListChanged())
            deadline = time.monotonic() + 30
            while not server.stale and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            seen.append(server.stale)
            seen.append([tool.name for tool in await server.current_tools()])
            return seen

    assert asyncio.run(main()) == ["2026-07-28", True, ["a", "b"], "b", True, ["a", "b", "c"]]
