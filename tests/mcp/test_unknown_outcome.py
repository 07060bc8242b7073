"""A call in flight when an MCP server's connection drops is never sent again unless
the tool is idempotent (issue 30: the server restarted and the same ``tools/call`` ran
twice). A real server process, killed mid-call, counts its side effects in a file."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

import statetools as st
from statetools.models import ScriptedModel
from tests.mcp.upstream import kill_children

SCRIPT = Path(__file__).with_name("side_effects_server.py")


def kill_when(flag: Path, lines: int = 0, times: int = 1) -> threading.Thread:
    """Kill the server each time ``flag`` exists (with more than ``lines`` lines and
    one more line than at the last kill), at most ``times`` times."""

    def watch() -> None:
        seen, killed, deadline = lines, 0, time.monotonic() + 30
        while killed < times and time.monotonic() < deadline:
            count = len(flag.read_text().splitlines()) if flag.exists() else -1
            if count > seen:
                time.sleep(0.2)  # the tool is now waiting before it answers
                killed += kill_children(SCRIPT.name)
                seen = count
            time.sleep(0.02)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def tool_texts(result: st.LoopResult) -> list[tuple[str, str, bool]]:
    return [(m.name, m.content, m.is_error) for m in result.messages if m.role == "tool"]


def server(log: Path, **options: object) -> st.mcp.MCPServer:
    return st.mcp.MCPServer.stdio(sys.executable, [str(SCRIPT), str(log)], name="fx", **options)


def test_a_call_cut_off_mid_way_is_answered_as_unknown_and_runs_once(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    watcher = kill_when(log, times=2)
    model = ScriptedModel(
        [
            ("fx", {}),
            ("append", {"text": "one"}),
            ("append_quickly", {"text": "two"}),
            "done",
        ]
    )
    result = st.ToolLoop(model).run("Log it", tools=[server(log).facade()])
    watcher.join(timeout=1)

    assert log.read_text().splitlines() == ["one", "two"]  # one side effect per call
    assert tool_texts(result)[1:] == [
        (
            "append",
            "MCP server 'fx' stopped (Connection closed) during the call of 'append': "
            "whether it took effect is unknown, so it was not sent again. Check its effect "
            "before calling it again. The server starts again at the next call.",
            True,
        ),
        ("append_quickly", "appended two", False),
    ]


def test_a_second_drop_after_the_restart_ends_the_servers_tools(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    watcher = kill_when(log, times=2)
    model = ScriptedModel(
        [("fx", {}), ("append", {"text": "one"}), ("append", {"text": "two"}), ("count", {}), "ok"]
    )
    result = st.ToolLoop(model).run("Log it", tools=[server(log).facade()])
    watcher.join(timeout=1)

    assert log.read_text().splitlines() == ["one", "two"]
    assert tool_texts(result)[2:] == [
        (
            "append",
            "MCP server 'fx' stopped (Connection closed) during the call of 'append': "
            "whether it took effect is unknown, so it was not sent again. Check its effect "
            "before calling it again. The server was already restarted once; its tools "
            "cannot be used in this run.",
            True,
        ),
        (
            "count",
            "MCP server 'fx' stopped (Connection closed) and was already restarted once; "
            "its tools cannot be used in this run.",
            True,
        ),
    ]


def test_a_read_only_call_cut_off_mid_way_is_sent_again(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("kept\n")
    log.with_suffix(".slow").write_text("")
    watcher = kill_when(log.with_suffix(".counting"))
    model = ScriptedModel([("fx", {}), ("count", {}), "done"])
    result = st.ToolLoop(model).run("Count", tools=[server(log).facade()])
    watcher.join(timeout=1)

    assert tool_texts(result)[1] == ("count", "1 lines", False)


def test_idempotent_must_name_tools() -> None:
    with pytest.raises(st.mcp.MCPServerError) as caught:
        server(Path("x"), idempotent="append")
    assert str(caught.value) == (
        "mcp server 'fx': idempotent must be a list of tool names or 'all', got 'append' "
        "Hint: e.g. idempotent=['put_note'] (the names the server gives its tools)"
    )
