"""A client of the MCP gateway reads what the loop's model reads about searches: the
search an unknown call should make, and that a repeated search opened nothing new."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp

import statetools as st

LS = st.Tool.create("ls", "List the files.", lambda: "a.txt")


def text(result: Any) -> tuple[str, bool]:
    return "\n".join(block.text for block in result.content), bool(result.is_error)


def test_unknown_calls_and_repeated_searches_read_as_in_the_loop() -> None:
    async def main() -> list[tuple[str, bool]]:
        server = st.mcp.disclosure_server([st.Facade.searchable("find_tools", "Find", [LS])])
        async with mcp.Client(server, mode="legacy") as client:
            return [
                text(await client.call_tool("create_file", {"name": "a"})),
                text(await client.call_tool("find_tools", {"query": "files"})),
                text(await client.call_tool("find_tools", {"query": "files"})),
            ]

    assert asyncio.run(main()) == [
        (
            "Tool 'create_file' does not exist. Available tools: find_tools. "
            'To find a tool that does this, call find_tools with {"query": "create file"}.',
            True,
        ),
        (
            'Tools matching "files", best first:\n- ls: List the files.\nTools now available: ls.',
            False,
        ),
        (
            'Tools matching "files", best first:\n- ls: List the files.\n'
            "Tools now available: ls.\n"
            "[nothing new: ls was already available. Call it, or search with other words.]",
            False,
        ),
    ]
