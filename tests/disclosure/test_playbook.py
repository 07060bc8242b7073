"""Playbooks in the loop: tools unlock after prerequisites, locked calls never run."""

from __future__ import annotations

from typing import Any

import pytest

import statetools as st
from statetools.engine.events import CallBlocked, ToolsUnlocked
from statetools.models import ScriptedModel

RAN: list[str] = []


@st.llm_tool("Search the web.")
def search(query: str) -> str:
    RAN.append("search")
    return f"5 results for {query}"


@st.llm_tool("Analyze the search results.")
def analyze() -> str:
    RAN.append("analyze")
    return "2 results are relevant"


@st.llm_tool("Summarize the analysis.")
def summarize() -> str:
    RAN.append("summarize")
    return "summary"


@st.llm_tool("Write the final report.")
def report() -> str:
    RAN.append("report")
    return "report written"


def research() -> st.PlaybookTool:
    return (
        st.PlaybookTool("research", "Research a topic")
        .with_tool(search)
        .with_tool(analyze)
        .unlocked_by(search)
        .with_tool(summarize)
        .unlocked_by(analyze)
        .with_tool(report)
        .unlocked_by_all(search, analyze, summarize)
    )


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


def test_research_playbook_in_loop_discloses_step_by_step() -> None:
    model = ScriptedModel(
        [
            ("analyze", {}),
            ("search", {"query": "tides"}),
            ("analyze", {}),
            ("summarize", {}),
            ("report", {}),
            "Done.",
        ]
    )
    result = st.ToolLoop(model).run("Research tides", tools=[research()])

    assert [r.tool_names for r in model.requests] == [
        ["search"],
        ["search"],
        ["search", "analyze"],
        ["search", "analyze", "summarize"],
        ["search", "analyze", "summarize", "report"],
        ["search", "analyze", "summarize", "report"],
    ]
    assert RAN == ["search", "analyze", "summarize", "report"]
    tool_texts = [(m.content, m.is_error) for m in result.messages if isinstance(m, st.ToolMessage)]
    assert tool_texts == [
        ("Tool 'analyze' is locked. Call first: search.", True),
        ("5 results for tides\n[now available: analyze]", False),
        ("2 results are relevant\n[now available: summarize]", False),
        ("summary\n[now available: report]", False),
        ("report written", False),
    ]
    assert result.trace.of_type(CallBlocked) == [
        CallBlocked(1, "call_1", "analyze", "Tool 'analyze' is locked. Call first: search.")
    ]
    assert [e.names for e in result.trace.of_type(ToolsUnlocked)] == [
        ("analyze",),
        ("summarize",),
        ("report",),
    ]


def test_blocked_messages_for_each_condition_kind() -> None:
    class Invoice:
        pass

    playbook = (
        st.PlaybookTool("p", "d")
        .with_tools(search, analyze)
        .with_tool(summarize)
        .unlocked_by_any(search, analyze)
        .with_tool(report)
        .unlocked_by_artifact(Invoice)
    )
    scheduler = st.Scheduler.for_items([playbook])
    assert scheduler.explain("summarize") == (
        "Tool 'summarize' is locked. Call first one of: search, analyze."
    )
    assert scheduler.explain("report") == (
        "Tool 'report' is locked. It unlocks when a tool returned a Invoice."
    )
    assert scheduler.explain("search") is None
    assert scheduler.explain("nothing") == "Tool 'nothing' is not part of this run."


def test_failed_calls_do_not_unlock() -> None:
    failing = st.Tool.create(
        "search", "Search", lambda query: (_ for _ in ()).throw(OSError("down"))
    )
    playbook = st.PlaybookTool("p", "d").with_tool(failing).with_tool(analyze).unlocked_by("search")
    model = ScriptedModel([("search", {"query": "x"}), "gave up"])
    st.ToolLoop(model).run("go", tools=[playbook])
    assert model.requests[1].tool_names == ["search"]


def test_declared_visibility_sends_locked_tools_with_what_unlocks_them() -> None:
    model = ScriptedModel([("analyze", {}), ("search", {"query": "q"}), "ok"])
    result = st.ToolLoop(model, visibility="declared").run("go", tools=[research()])
    first = {t.name: t.description for t in model.requests[0].tools}
    assert first == {
        "search": "Search the web.",
        "analyze": "Analyze the search results.\nTool 'analyze' is locked. Call first: search.",
        "summarize": "Summarize the analysis.\nTool 'summarize' is locked. Call first: analyze.",
        "report": "Write the final report.\nTool 'report' is locked. Call first: search, "
        "analyze, summarize.",
    }
    assert result.messages[2].content == "Tool 'analyze' is locked. Call first: search."
    assert RAN == ["search"]
    third = {t.name: t.description for t in model.requests[2].tools}
    assert third["analyze"] == "Analyze the search results."


def test_unlocked_by_without_a_tool_is_a_definition_error() -> None:
    with pytest.raises(st.DefinitionError, match="must follow with_tool"):
        st.PlaybookTool("p", "d").with_tools(search).unlocked_by(search)


def test_an_agentic_playbook_runs_in_the_loop_the_run_hands_down() -> None:
    """The agentic tool of a definition sits below the loop: it runs in the loop the
    run passes in its context, and outside a run it says so."""
    graph = st.disclosure_graph(research().with_model(ScriptedModel(["done"])))
    agentic = graph.entries["research"].tool
    assert type(agentic).__name__ == "AgenticTool"
    with pytest.raises(st.DefinitionError) as caught:
        agentic.call({"task": "t"})
    assert str(caught.value) == (
        "tool 'research': agentic tool 'research' has no loop to run its task in "
        "Hint: call it inside a ToolLoop run, or build it as statetools.SimpleAgenticTool"
    )
    inside = agentic.call({"task": "t"}, st.ToolCallContext(loop_factory=st.ToolLoop))
    assert inside.text == "done"
    assert isinstance(inside.value, st.LoopResult)


def test_agentic_playbook_runs_a_nested_loop() -> None:
    inner = ScriptedModel([("search", {"query": "q"}), ("analyze", {}), "inner answer"])
    outer = ScriptedModel([("research", {"task": "study q"}), "outer answer"])
    result = st.ToolLoop(outer).run("go", tools=[research().with_model(inner)])

    assert outer.requests[0].tool_names == ["research"]
    assert result.messages[2].content == "inner answer"
    assert [r.tool_names for r in inner.requests] == [
        ["search"],
        ["search", "analyze"],
        ["search", "analyze", "summarize"],
    ]
    assert inner.requests[0].messages[0] == st.UserMessage("study q")
    nested: Any = result.messages
    assert nested[-1].content == "outer answer"
