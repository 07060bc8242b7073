"""The run's tool_search tool (a model's ``tool_search`` mode), driven by hand: namespaces
hold only what may be loaded, searches load facades, locks hold."""

from __future__ import annotations

import statetools as st
from statetools.engine import Conversation
from statetools.messages import AssistantMessage, ToolCall
from statetools.models.base import ModelCapabilities, ModelResponse

SEARCHING = ModelCapabilities(declares_all_tools=True, searches_tools=True)


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: f"{name} done")


CREATE = tool("create_issue", "Open a new issue in the tracker.")
CLOSE = tool("close_issue", "Close an issue that is fixed.")
MERGE = tool("merge_pull", "Merge a pull request.")
REVERT = tool("revert_pull", "Revert a merged pull request.")


def conversation(items: list[object]) -> Conversation:
    return Conversation(items, "Work on the tracker.", capabilities=SEARCHING, run_id="r1")


def step(conv: Conversation, *calls: ToolCall) -> list[str]:
    """Send one response of ``calls``, run what may run; the texts the model is told."""
    conv.next_request()
    start = len(conv.messages)
    message = AssistantMessage("", calls)
    for call in conv.take(ModelResponse(message, stop_reason="tool_use")):
        conv.answer(call, call.tool.call(call.arguments, conv.context))
    return [m.content for m in conv.messages[start + 1 :]]


def namespaces(conv: Conversation) -> list[tuple[str, list[str]]]:
    request = conv.next_request()
    conv._asked = None  # only looked at
    assert request.search is not None
    return [(n.name, n.names) for n in request.search.namespaces]


def test_a_tool_locked_by_a_condition_is_in_no_namespace_until_it_unlocks() -> None:
    work = st.PlaybookTool("work", "Work").with_tool(CREATE).with_tool(CLOSE).unlocked_by(CREATE)
    issues = st.Facade.searchable("issues", "Issue tools", [work])
    conv = conversation([issues])
    assert namespaces(conv) == [("issues", ["create_issue"])]

    texts = step(conv, ToolCall("s1", "tool_search", {"query": "open an issue"}))
    assert texts == [
        'Tools matching "open an issue", best first:\n'
        "- create_issue (issues): Open a new issue in the tracker.\n"
        "Tools now available: create_issue."
    ]
    assert step(conv, ToolCall("c1", "create_issue")) == ["create_issue done"]
    assert namespaces(conv) == [("issues", ["create_issue", "close_issue"])]


def test_an_exclusive_facade_takes_the_other_namespaces_away_once_loaded() -> None:
    issues = st.Facade.of("issues", "Issue tools", [CREATE, CLOSE], exclusive=True)
    pulls = st.Facade.of("pulls", "Pull request tools", [MERGE, REVERT])
    conv = conversation([issues, pulls])
    assert namespaces(conv) == [
        ("issues", ["create_issue", "close_issue"]),
        ("pulls", ["merge_pull", "revert_pull"]),
    ]

    step(conv, ToolCall("s1", "tool_search", {"names": ["close_issue"]}))

    assert namespaces(conv) == [("issues", ["create_issue", "close_issue"])]
    assert step(conv, ToolCall("c1", "merge_pull")) == [
        "Tool 'merge_pull' is not available: only issues's tools are in use now."
    ]


def test_a_search_facade_loads_only_its_matches_ranked_by_its_own_ranker() -> None:
    pulls = st.Facade.searchable("pulls", "Pull request tools", [MERGE, REVERT], max_results=1)
    conv = conversation([pulls, st.Facade.of("issues", "Issue tools", [CREATE, CLOSE])])

    texts = step(conv, ToolCall("s1", "tool_search", {"query": "revert a merged pull request"}))

    assert texts[0].splitlines()[-1] == "Tools now available: revert_pull."
    request = conv.next_request()
    assert "revert_pull" in request.tool_names
    assert "merge_pull" not in request.tool_names
    assert [(n.name, n.names) for n in request.search.namespaces] == [
        ("pulls", ["merge_pull", "revert_pull"]),
        ("issues", ["create_issue", "close_issue"]),
    ]


def test_names_that_cannot_be_loaded_and_calls_of_tools_not_loaded_get_guidance() -> None:
    locked = st.PlaybookTool("work", "Work").with_tool(CREATE).with_tool(CLOSE).unlocked_by(CREATE)
    conv = conversation([st.Facade.searchable("issues", "Issue tools", [locked])])

    assert step(conv, ToolCall("c1", "create_issue")) == [
        "Tool 'create_issue' is not loaded. Search for it with tool_search first."
    ]
    assert step(conv, ToolCall("s1", "tool_search", {"names": ["close_issue", "nope"]})) == [
        "Not loadable now: close_issue, nope."
    ]
    assert step(conv, ToolCall("s2", "tool_search", {})) == [
        "Tool 'tool_search' needs a query (words describing the tools you need)."
    ]
    assert step(conv, ToolCall("s3", "tool_search", {"query": "zebra"})) == [
        'Tools matching "zebra", best first:\nNo loadable tool matches "zebra". Try other words.'
    ]


def test_outside_a_run_the_search_tool_has_nothing_to_search() -> None:
    from statetools.engine.tool_search import TOOL_SEARCH_TOOL

    result = TOOL_SEARCH_TOOL.call({"query": "issue"})

    assert result.is_error
    assert result.text == "tool_search searches the namespaces of a run; there is none here."


def test_a_compiled_design_gets_the_search_tool_too_and_keeps_it_on_resume() -> None:
    graph = st.disclosure_graph(st.Facade.of("issues", "Issue tools", [CREATE, CLOSE]))
    conv = Conversation([graph], "Work.", capabilities=SEARCHING, run_id="r1")

    step(conv, ToolCall("s1", "tool_search", {"query": "close a fixed issue"}))
    resumed = Conversation(
        [graph], conv.messages, state=conv.scheduler.snapshot(), capabilities=SEARCHING
    )

    assert resumed.next_request().tool_names == ["tool_search", "create_issue", "close_issue"]
