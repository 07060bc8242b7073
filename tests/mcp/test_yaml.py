"""mcp_servers: in design files, review from a saved listing, and the mcp commands."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.client.stdio import StdioServerParameters

import statetools as st
from statetools.cli import main
from tests.mcp.test_gateway import STATETOOLS, names, text
from tests.mcp.upstream import TIME_SERVER

NOTES = {
    "server": "notes",
    "tools": [
        {
            "name": "read_note",
            "description": "Read a note",
            "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}},
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "write_note",
            "description": "Write a note",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            "annotations": {"readOnlyHint": False},
        },
    ],
}

DESIGN = """
mcp_servers:
  notes:
    command: /nonexistent/notes-server
    listing: notes.json
definitions:
  - kind: playbook
    name: journal
    description: Keep a journal
    tools:
      - {mcp: notes, name: reading, tools: [read_note]}
      - tool: write_note
        unlocked_by: reading
"""


@pytest.fixture
def design(tmp_path: Path) -> Path:
    (tmp_path / "notes.json").write_text(json.dumps(NOTES))
    path = tmp_path / "design.yaml"
    path.write_text(DESIGN)
    return path


def test_a_design_reads_mcp_servers_from_a_saved_listing(design: Path) -> None:
    loaded = st.load_design(design)
    [journal] = loaded.definitions
    facade = st.load_design(
        {
            "mcp_servers": {"notes": {"command": "x", "listing": "notes.json"}},
            "definitions": [{"kind": "facade", "mcp": "notes", "by": "annotations"}],
        },
        base_dir=design.parent,
    ).definitions[0]
    assert isinstance(facade, st.mcp.MCPFacade)
    assert (facade.name, facade.description) == ("notes", "Open the tools of the notes MCP server")
    assert facade.categories == (("read", ("read_note",)), ("write", ("write_note",)))
    reading = journal.tools[0]
    assert isinstance(reading, st.mcp.MCPFacade)
    assert [t.name for t in reading.inner] == ["read_note"]
    assert isinstance(journal.tools[1], st.mcp.MCPTool)
    assert journal.tools[1].server is loaded.mcp_servers["notes"]


def test_review_commands_work_from_the_saved_listing(
    design: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(design)]) == 0
    assert main(["tokens", str(design)]) == 0
    assert main(["explore", str(design)]) == 0
    assert main(["render", str(design), "-o", str(tmp_path / "d.dot")]) == 0
    out = capsys.readouterr().out
    assert "No problems found." in out
    dot = (tmp_path / "d.dot").read_text()
    assert "read_note" in dot
    assert "write_note" in dot


def test_calling_a_tool_known_only_from_a_listing_is_a_clear_error_result(design: Path) -> None:
    loaded = st.load_design(design)
    model = st.models.ScriptedModel([("reading", {"read_note": {"key": "a"}}), "ok"])
    result = st.ToolLoop(model).run("hi", tools=loaded.tools)
    [message] = [m for m in result.messages if m.role == "tool"]
    assert (message.content, message.is_error) == (
        "cannot connect to MCP server 'notes' (/nonexistent/notes-server): FileNotFoundError: "
        "[Errno 2] No such file or directory: '/nonexistent/notes-server'.",
        True,
    )


@pytest.mark.parametrize(
    ("servers", "facade", "expected"),
    [
        (
            {"notes": {"comand": "x", "listing": "notes.json"}},
            {"kind": "facade", "mcp": "notes"},
            "$.mcp_servers.notes: unknown key 'comand' Hint: did you mean 'command'?",
        ),
        (
            {"notes": {"command": "x", "url": "http://h/mcp", "listing": "notes.json"}},
            {"kind": "facade", "mcp": "notes"},
            "$.mcp_servers.notes: give exactly one of 'command' and 'url'",
        ),
        (
            {"notes": {"command": "x", "listing": "notes.json"}},
            {"kind": "facade", "mcp": "note"},
            "$.definitions[0].mcp: no MCP server 'note' Hint: servers under mcp_servers: notes",
        ),
        (
            {"notes": {"command": "x", "listing": "notes.json"}},
            {"kind": "facade", "mcp": "notes", "tools": ["read_note", "erase"]},
            "$.definitions[0].tools[1]: unknown tool 'erase'",
        ),
        (
            {"notes": {"command": "x", "listing": "missing.json"}},
            {"kind": "facade", "mcp": "notes"},
            "$.mcp_servers.notes: cannot read saved listing",
        ),
        (
            {"notes": {"command": "x", "listing": "notes.json"}},
            {"kind": "facade", "mcp": "notes", "by": "tags"},
            "$.definitions[0].by: unknown by 'tags' Hint: use 'by: annotations'",
        ),
    ],
)
def test_mistakes_in_mcp_servers_are_spec_errors_with_paths(
    tmp_path: Path, servers: dict[str, Any], facade: dict[str, Any], expected: str
) -> None:
    (tmp_path / "notes.json").write_text(json.dumps(NOTES))
    with pytest.raises(st.SpecError) as caught:
        st.load_design({"mcp_servers": servers, "definitions": [facade]}, base_dir=tmp_path)
    assert expected in str(caught.value)


def test_mcp_list_saves_a_listing_that_a_design_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "time.json"
    assert main(["mcp", "list", "time", "--command", TIME_SERVER, "--save", str(saved)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("get_current_time  [read]  Get current time in a specific timezone")
    assert out[-1] == f"saved 2 tools to {saved}"
    listing = json.loads(saved.read_text())
    assert listing["server"] == "time"
    assert [tool["name"] for tool in listing["tools"]] == ["get_current_time", "convert_time"]
    design = tmp_path / "d.yaml"
    design.write_text(
        f"mcp_servers:\n  time: {{command: {TIME_SERVER}, listing: time.json}}\n"
        "definitions:\n  - {kind: facade, mcp: time}\n"
    )
    assert main(["mcp", "list", "time", "--design", str(design)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("convert_time  [read]")
    assert main(["mcp", "list", "clock", "--design", str(design)]) == 2
    assert capsys.readouterr().err == (
        f"statetools mcp: error: {design} has no MCP server 'clock' Hint: its mcp_servers: time\n"
    )


def test_statetools_serve_is_a_gateway_to_an_upstream_server(tmp_path: Path) -> None:
    design = tmp_path / "gateway.yaml"
    design.write_text(
        f"mcp_servers:\n  time: {{command: {TIME_SERVER}}}\n"
        "definitions:\n  - {kind: facade, mcp: time, usage_notes: Times are ISO 8601.}\n"
    )
    checkout = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # the code under test
    params = StdioServerParameters(command=STATETOOLS, args=["serve", str(design)], env=checkout)

    async def main_() -> list[Any]:  # a 2025-era client: tools/list follows the session
        async with mcp.Client(params, mode="legacy") as client:
            seen: list[Any] = [await names(client)]
            seen.append(text(await client.call_tool("convert_time", {})))
            seen.append(text(await client.call_tool("time", {})))
            seen.append(await names(client))
            seen.append(
                text(
                    await client.call_tool(
                        "convert_time",
                        {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Nowhere"},
                    )
                )
            )
            return seen

    assert asyncio.run(main_()) == [
        ["time"],
        ("Tool 'convert_time' is locked. Call first: time.", True),
        ("Tools now available: get_current_time, convert_time.\n\nTimes are ISO 8601.", False),
        ["get_current_time", "convert_time"],
        (
            "Error executing tool convert_time: Invalid timezone: "
            "'No time zone found with key Nowhere'",
            True,
        ),
    ]


def test_a_search_facade_from_yaml(design: Path) -> None:
    loaded = st.load_design(
        {
            "mcp_servers": {"notes": {"command": "x", "listing": "notes.json"}},
            "definitions": [{"kind": "facade", "mcp": "notes", "search": {"max_results": 1}}],
        },
        base_dir=design.parent,
    )
    [facade] = loaded.definitions
    assert facade.is_searchable
    model = st.models.ScriptedModel([("notes", {"query": "write a note"}), "ok"])
    result = st.ToolLoop(model).run("hi", tools=loaded.tools)
    assert result.messages[2].content == (
        'Tools matching "write a note", best first:\n'
        "- write_note: Write a note\n"
        "Tools now available: write_note."
    )


def test_a_saved_listing_keeps_the_servers_key_order_and_its_token_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: --save sorted keys, so tokens counted from a saved listing differed."""
    from statetools.review.tokens import tool_tokens

    saved = tmp_path / "time.json"
    assert main(["mcp", "list", "time", "--command", TIME_SERVER, "--save", str(saved)]) == 0
    capsys.readouterr()
    live = asyncio.run(st.mcp.MCPServer.stdio(TIME_SERVER, name="time").list_tools())
    kept = st.mcp.MCPServer.from_listing(st.mcp.Listing.read(saved)).cached_tools()
    assert [json.dumps(t.input_schema) for t in kept] == [json.dumps(t.input_schema) for t in live]
    assert list(kept[1].input_schema["properties"]) == [
        "source_timezone",
        "time",
        "target_timezone",
    ]
    assert [tool_tokens(t) for t in kept] == [tool_tokens(t) for t in live]


def test_serve_over_http_on_a_port_in_use_says_so_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: it printed "serving at ..." and then uvicorn's own error, exit 3."""
    import socket
    import subprocess

    design = tmp_path / "d.yaml"
    design.write_text("definitions:\n  - {kind: facade, name: f, description: F, tools: []}\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [STATETOOLS, "serve", str(design), "--transport", "http", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"statetools serve: error: port {port} is in use Hint: choose another with --port N, "
        "or stop what listens there\n"
    )
