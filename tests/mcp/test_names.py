"""MCP tool names that collide once made provider-safe get distinct, stable names, and a
facade naming a tool the server lacks leaves it out; ``check`` reports both (issue 30:
either made the whole facade fail)."""

from __future__ import annotations

import mcp.types as types

import statetools as st
from statetools.mcp import Listing, MCPServer
from statetools.models import ScriptedModel
from tests.mcp.upstream import Notes

LONG_A = "x" * 70 + "_alpha_tool_1"
LONG_B = "x" * 70 + "_beta_tool_22"
NAMES = ["a.b", "a_b", LONG_A, LONG_B]


def listing() -> Listing:
    return Listing("s", tuple({"name": name, "description": f"Tool {name}"} for name in NAMES))


def test_colliding_names_are_distinct_stable_and_reported() -> None:
    facade = MCPServer.from_listing(listing()).facade()
    names = [tool.name for tool in facade.inner]
    assert names == ["a_b_2e7336", "a_b", "x" * 57 + "_2d7bde", "x" * 57 + "_927bcb"]
    reversed_listing = Listing("s", tuple(reversed(listing().tools)))
    again = MCPServer.from_listing(reversed_listing).facade()
    assert sorted(tool.name for tool in again.inner) == sorted(names)  # order does not matter
    findings = [f for f in st.check([facade]).findings if f.code == "ST019"]
    assert [(f.severity, f.path, f.message) for f in findings] == [
        (
            "warning",
            "facade:s/tool:a_b_2e7336",
            "MCP tool 'a.b' is called 'a_b_2e7336' here: its tool name 'a_b' is also the "
            "name of another of the server's tools.",
        ),
        (
            "warning",
            f"facade:s/tool:{'x' * 57}_2d7bde",
            f"MCP tool '{LONG_A}' is called '{'x' * 57}_2d7bde' here: its tool name "
            f"'{'x' * 64}' is also the name of another of the server's tools.",
        ),
        (
            "warning",
            f"facade:s/tool:{'x' * 57}_927bcb",
            f"MCP tool '{LONG_B}' is called '{'x' * 57}_927bcb' here: its tool name "
            f"'{'x' * 64}' is also the name of another of the server's tools.",
        ),
    ]


def test_a_run_calls_each_colliding_tool_by_its_own_name() -> None:
    notes = Notes()
    notes.tools = [
        types.Tool(name=name, description=f"Tool {name}", input_schema={"type": "object"})
        for name in NAMES
    ]
    server = MCPServer.in_process(notes.server, name="s")
    model = ScriptedModel([("s", {}), ("a_b_2e7336", {}), ("a_b", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[server.facade()])
    texts = [m.content for m in result.messages if m.role == "tool"]
    assert texts[1:] == ["a.b ok", "a_b ok"]


def test_a_facade_naming_a_tool_the_server_lacks_leaves_it_out_and_check_says_so() -> None:
    time = MCPServer.from_listing(Listing("time", ({"name": "now", "description": "Now"},)))
    facade = time.facade(tools=["now", "zones"])
    assert [tool.name for tool in facade.inner] == ["now"]
    by = time.facade(by={"read": ["now", "zones"], "write": ["set_clock"]}, name="clock")
    assert by.categories == (("read", ("now",)), ("write", ()))
    findings = [f for f in st.check([facade, by]).findings if f.code == "ST020"]
    assert [(f.severity, f.path, f.message) for f in findings] == [
        (
            "warning",
            "facade:clock",
            "Facade 'clock' names 'zones', 'set_clock', which MCP server 'time' does not "
            "have: the facade leaves them out. Its tools are: now.",
        ),
        (
            "warning",
            "facade:time",
            "Facade 'time' names 'zones', which MCP server 'time' does not have: the "
            "facade leaves it out. Its tools are: now.",
        ),
    ]


def test_a_live_facade_naming_a_missing_tool_still_unfolds() -> None:
    notes = Notes()
    server = MCPServer.in_process(notes.server, name="notes")
    model = ScriptedModel([("notes", {}), ("read_note", {"key": "a"}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[server.facade(tools=["read_note", "nope"])])
    texts = [m.content for m in result.messages if m.role == "tool"]
    assert texts == ["Tools now available: read_note.", "Note a: buy milk"]
