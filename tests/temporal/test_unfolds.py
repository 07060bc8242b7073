"""Which calls the workflow answers itself (pure bookkeeping) and how the JSON of an
unfold becomes the same unfold in the workflow, without running the facade."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.engine.facades import FacadeRecall
from statetools.mcp import Listing, MCPServer
from statetools.messages import ToolCall
from statetools.temporal.unfolds import (
    ActivityTool,
    UnfoldBook,
    describe,
    unfolds_in_workflow,
)


def read(name: str) -> str:
    """Read a note."""
    return name


def write(name: str, text: str) -> str:
    """Write a note."""
    return text


NOTES = st.UnfoldingTool.of("notes", "Open the notes tools.", [read, write])
FILES = st.UnfoldingTool.by_category(
    "files", "Open file tools.", {"read": [read], "write": [write]}
)


def _built(arguments: dict[str, Any]) -> list[Any]:
    return [st.Tool.create(f"open_{arguments['kind']}", "Open it.", lambda: "opened")]


PICKED = st.UnfoldingTool.selectable(
    "picked",
    "Open tools of a kind.",
    [read],
    st.InputSchema.of(st.Parameter.string("kind", "Kind")),
    _built,
)
FOUND = st.UnfoldingTool.searchable("found", "Search tools.", [read, write])


def _in_workflow(facade: Any, arguments: dict[str, Any], *, graph: Any = None) -> bool:
    graph = graph if graph is not None else st.disclosure_graph(facade)
    return unfolds_in_workflow(facade, ToolCall("c1", facade.name, arguments), graph)


def test_plain_facades_listing_their_inner_tools_unfold_in_the_workflow() -> None:
    assert _in_workflow(NOTES, {})
    assert _in_workflow(FILES, {"category": "read"})
    recall = FacadeRecall.around(NOTES, tools=NOTES.inner)
    assert _in_workflow(recall, {}, graph=st.disclosure_graph(NOTES))


def test_facades_running_code_of_their_own_unfold_in_an_activity() -> None:
    assert not _in_workflow(NOTES, {"write": {"name": "a", "text": "b"}})  # a direct call
    assert not _in_workflow(NOTES, {"junk": 1})  # the activity says what is wrong
    assert not _in_workflow(PICKED, {"kind": "door"})  # a selector
    assert not _in_workflow(FOUND, {"query": "note"})  # a search index
    listing = Listing("git", ({"name": "git_status", "description": "Status"},))
    mcp_facade = MCPServer.from_listing(listing).facade()
    assert not _in_workflow(mcp_facade, {})  # a subclass: its calls may reach a server
    sections = st.Sections(st.Section("a", "A", "Body.", tools=[read]))
    reader = sections.facade
    assert not _in_workflow(reader, {"key": "a"}, graph=st.disclosure_graph(sections))
    other = st.UnfoldingTool.of("notes", "Another facade named notes.", [read])
    assert not _in_workflow(other, {}, graph=st.disclosure_graph(NOTES))  # not the design's


def test_tools_a_selector_built_come_back_by_definition_and_stay_one_object() -> None:
    graph = st.disclosure_graph(PICKED)
    unfolded = PICKED.call({"kind": "door"}).value
    described = describe(unfolded, graph, recall=False)
    assert described["tools"] == [
        {
            "name": "open_door",
            "description": "Open it.",
            "input_schema": {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": False,
            },
            "metadata": {
                "return_direct": False,
                "category": None,
                "timeout": None,
                "on_loop_thread": False,
            },
        }
    ]
    book = UnfoldBook(graph, [])
    first = book.rebuild(described)
    again = book.rebuild(described)
    (tool,) = first.tools
    assert isinstance(tool, ActivityTool)
    assert again.tools[0] is tool
    assert tool.definition == unfolded.tools[0].definition
    assert (first.facade, dict(first.arguments), first.listed) == ("picked", {"kind": "door"}, True)
    assert tool.call().text == "Tool 'open_door' runs in a tool activity, not in the workflow."


def test_a_continued_run_replays_recorded_selections_without_running_the_facade() -> None:
    graph = st.disclosure_graph(PICKED, NOTES)
    direct = NOTES.call({"write": {"name": "n", "text": "hi"}}).value
    saved = [
        describe(PICKED.call({"kind": "door"}).value, graph, recall=False),
        describe(direct, graph, recall=False),
    ]
    book = UnfoldBook(graph, saved)
    replayed = book.replay(PICKED, {"kind": "door"})
    assert not isinstance(replayed, str)
    assert replayed.names == ["open_door"]
    notes = book.replay(NOTES, {})
    assert not isinstance(notes, str)
    assert notes.direct is None  # replaying opens the tools; it calls nothing
    assert notes.tools == NOTES.inner  # the design's own tools, by place
    assert book.replay(PICKED, {"kind": "window"}) == "the unfold of 'picked' was not recorded"
    recalled = {**saved[0], "recall": True, "arguments": {}}
    assert UnfoldBook(graph, [recalled]).saved() == []  # a recall selects nothing


def test_a_direct_call_through_a_facade_keeps_its_result() -> None:
    graph = st.disclosure_graph(NOTES)
    unfolded = NOTES.call({"write": {"name": "n", "text": "hi"}}).value
    rebuilt = UnfoldBook(graph, []).rebuild(describe(unfolded, graph, recall=False))
    assert rebuilt.direct is not None
    assert (rebuilt.direct.name, dict(rebuilt.direct.arguments)) == (
        "write",
        {"name": "n", "text": "hi"},
    )
    assert rebuilt.direct.result == st.ToolResult.text("hi")
    assert rebuilt.listed is False
