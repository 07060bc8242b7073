"""Tool timeouts in the MCP gateway, with the SDK's own client against the real server
(in memory, over streamable HTTP on 127.0.0.1, and ``statetools serve`` over stdio): a
tool's own ``metadata.timeout`` holds, ``tool_timeout`` applies to a tool without one
(and to each call of a code-mode script), a call past it is an ``isError`` result with
the loop's text and the session goes on."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.client.stdio import StdioServerParameters

import statetools as st
from statetools.cli import main as cli_main
from tests.local_asgi import asgi_served

STATETOOLS = str(Path(sys.executable).parent / "statetools")
CHECKOUT = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
"""The code under test, for servers started as subprocesses."""
SLOW = "Tool 'slow' timed out after 0.2 s."
LAZY = "Tool 'lazy' timed out after 0.3 s."


async def _asleep() -> str:
    await asyncio.sleep(5)
    return "late"


def tools() -> list[st.Tool]:
    """``slow`` (its own timeout, 0.2 s) and ``lazy`` (none) each take 5 s if left
    alone; ``ping`` answers at once."""
    return [
        st.Tool.create("slow", "Wait a long time.", _asleep, metadata={"timeout": 0.2}),
        st.Tool.create("lazy", "Wait a long time.", _asleep),
        st.Tool.create("ping", "Ping.", lambda: "pong"),
    ]


def text(result: Any) -> tuple[str, bool]:
    return "\n".join(block.text for block in result.content), bool(result.is_error)


def handle_of(result: Any) -> str:
    return str(result.meta["statetools/session"])


def started(handle: str) -> str:
    return f'[session started: pass session="{handle}" in every later call]'


async def legacy_calls(client: mcp.Client) -> list[tuple[str, bool]]:
    return [
        text(await client.call_tool("slow", {})),
        text(await client.call_tool("lazy", {})),
        text(await client.call_tool("ping", {})),
    ]


def test_a_2025_session_times_out_calls_and_goes_on() -> None:
    async def main() -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
        with_default = st.mcp.disclosure_server(tools(), tool_timeout=0.3)
        async with mcp.Client(with_default, mode="legacy") as client:
            timed = await legacy_calls(client)
        async with mcp.Client(st.mcp.disclosure_server(tools()), mode="legacy") as client:
            own_only = [
                text(await client.call_tool("slow", {})),
                text(await client.call_tool("ping", {})),
            ]
        return timed, own_only

    timed, own_only = asyncio.run(main())
    assert timed == [(SLOW, True), (LAZY, True), ("pong", False)]
    assert own_only == [(SLOW, True), ("pong", False)]


def test_a_2026_session_started_by_a_timed_out_call_goes_on() -> None:
    async def main() -> list[Any]:
        async with mcp.Client(st.mcp.disclosure_server(tools(), tool_timeout=0.3)) as client:
            first = await client.call_tool("slow", {})
            handle = handle_of(first)
            return [
                handle,
                text(first),
                text(await client.call_tool("lazy", {"session": handle})),
                text(await client.call_tool("call_tool", {"name": "ping", "session": handle})),
            ]

    handle, *answers = asyncio.run(main())
    assert answers == [
        (f"{SLOW}\n{started(handle)}", True),
        (LAZY, True),
        ("pong", False),
    ]


def test_a_tools_own_timeout_wins_over_the_servers() -> None:
    async def brief() -> str:
        await asyncio.sleep(0.1)
        return "in time"

    patient = st.Tool.create("patient", "Wait briefly.", brief, metadata={"timeout": 2})

    async def main() -> tuple[str, bool]:
        server = st.mcp.disclosure_server([patient], tool_timeout=0.02)
        async with mcp.Client(server, mode="legacy") as client:
            return text(await client.call_tool("patient", {}))

    assert asyncio.run(main()) == ("in time", False)


def test_a_synchronous_handler_past_its_timeout_runs_on_in_its_thread() -> None:
    release, ended = threading.Event(), threading.Event()

    def stuck() -> str:
        release.wait(5)
        ended.set()
        return "released"

    design = [st.Tool.create("stuck", "Wait for a release.", stuck), tools()[2]]

    async def main() -> tuple[list[tuple[str, bool]], bool]:
        async with mcp.Client(
            st.mcp.disclosure_server(design, tool_timeout=0.3), mode="legacy"
        ) as client:
            answers = [
                text(await client.call_tool("stuck", {})),
                text(await client.call_tool("ping", {})),
            ]
        still_running = not ended.is_set()
        release.set()
        return answers, still_running

    answers, still_running = asyncio.run(main())
    assert answers == [("Tool 'stuck' timed out after 0.3 s.", True), ("pong", False)]
    assert still_running is True


def test_each_call_of_a_code_mode_script_gets_the_servers_timeout() -> None:
    lazy, ping = tools()[1:]
    code = "try:\n    lazy()\nexcept RuntimeError as error:\n    print(error)\nprint(ping())"

    async def main() -> tuple[str, bool]:
        server = st.mcp.disclosure_server([st.CodeMode(lazy, ping)], tool_timeout=0.3)
        async with mcp.Client(server, mode="legacy") as client:
            return text(await client.call_tool("run_code", {"code": code}))

    assert asyncio.run(main()) == (f"{LAZY}\npong", False)


@pytest.fixture
def served() -> Iterator[str]:
    """The tools over streamable HTTP on 127.0.0.1, in this process, with a 0.3 s
    default timeout."""
    from statetools.mcp.gateway import http_app

    with asgi_served(http_app(st.mcp.disclosure_server(tools(), tool_timeout=0.3))) as base:
        yield f"{base}/mcp"


def test_over_http_a_timed_out_call_is_an_error_result_and_the_session_goes_on(
    served: str,
) -> None:
    async def main() -> list[Any]:
        async with mcp.Client(served) as client:
            first = await client.call_tool("slow", {})
            handle = handle_of(first)
            return [
                handle,
                text(first),
                text(await client.call_tool("lazy", {"session": handle})),
                text(await client.call_tool("ping", {"session": handle})),
            ]

    handle, *answers = asyncio.run(main())
    assert answers == [(f"{SLOW}\n{started(handle)}", True), (LAZY, True), ("pong", False)]


TOOLS_MODULE = '''
import asyncio


async def slow() -> str:
    """Wait a long time."""
    await asyncio.sleep(5)
    return "late"


async def lazy() -> str:
    """Wait a long time."""
    await asyncio.sleep(5)
    return "late"


def ping() -> str:
    """Ping."""
    return "pong"
'''

DESIGN = """
kind: playbook
name: waits
description: Wait, or not
tools:
  - tool: wait_tools:slow
    timeout: 0.2
  - wait_tools:lazy
  - wait_tools:ping
"""


def test_statetools_serve_passes_the_timeouts_to_the_server(tmp_path: Path) -> None:
    (tmp_path / "wait_tools.py").write_text(TOOLS_MODULE)
    design = tmp_path / "waits.yaml"
    design.write_text(DESIGN)
    params = StdioServerParameters(
        command=STATETOOLS,
        args=["serve", str(design), "--tool-timeout", "0.3"],
        env=CHECKOUT,
        cwd=str(tmp_path),
    )

    async def main() -> list[tuple[str, bool]]:
        async with mcp.Client(params, mode="legacy") as client:
            return await legacy_calls(client)

    assert asyncio.run(main()) == [(SLOW, True), (LAZY, True), ("pong", False)]


@pytest.mark.parametrize("value", ["-1", "0", "never"])
def test_statetools_serve_refuses_a_bad_tool_timeout(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "waits.yaml"
    design.write_text(DESIGN)
    with pytest.raises(SystemExit) as exited:
        cli_main(["serve", str(design), "--tool-timeout", value], io.StringIO())
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "statetools serve: error: argument --tool-timeout: "
        f"expected a number of seconds above 0, got {value!r}"
    )


@pytest.mark.parametrize(("value", "shown"), [(0, "0"), (-0.5, "-0.5"), ("1", "'1'")])
def test_disclosure_server_refuses_a_bad_tool_timeout(value: Any, shown: str) -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.mcp.disclosure_server(tools(), tool_timeout=value)
    assert str(caught.value) == (
        f"disclosure_server(tool_timeout=...): invalid timeout {shown} "
        "Hint: give the timeout in seconds, a number greater than 0 (or none)"
    )
