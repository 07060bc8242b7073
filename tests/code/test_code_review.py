"""check, explore and render read a code-mode item: its tools are reachable as the design
says, and token counts are those of what the model is shown (the script tool listing
the tools callable now)."""

from __future__ import annotations

import statetools as st
from statetools.engine.scheduler import Scheduler
from statetools.messages import ToolCall
from statetools.review.explore import flat_tools
from statetools.review.tokens import tools_tokens
from statetools.tools.calling import ToolResult


def search(query: str) -> str:
    """Search the notes."""
    return "found"


def summarize() -> str:
    """Summarize what was found."""
    return "summary"


def ping() -> str:
    """Ping the host."""
    return "pong"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def design() -> list[object]:
    notes = (
        st.PlaybookTool("notes", "Research the notes")
        .with_tools(search)
        .with_tool(st.Tool.from_function(summarize))
        .unlocked_by(search)
    )
    maths = st.Facade.of("maths", "Arithmetic tools", [st.Tool.from_function(add)])
    return [ping, st.CodeMode(notes, maths)]


def test_explore_reaches_the_tools_as_the_design_says_and_counts_what_the_model_is_shown() -> None:
    graph = st.disclosure_graph(*design())
    exploration = st.explore(graph)

    assert exploration.min_turns == {
        "ping": 0,
        "run_code": 0,
        "search": 0,
        "maths": 0,
        "summarize": 1,
        "add": 1,
    }
    assert exploration.paths["summarize"] == ("search",)
    assert [s.tools for s in exploration.visible_sets] == [
        ("ping", "run_code", "search", "maths"),
        ("ping", "run_code", "search", "summarize", "maths"),
        ("ping", "run_code", "search", "add"),
        ("ping", "run_code", "search", "summarize", "add"),
    ]
    scheduler = Scheduler(graph)
    first = scheduler.visible()
    assert [t.name for t in first] == ["ping", "run_code"]
    assert exploration.visible_sets[0].tokens == tools_tokens(first)
    scheduler.record(ToolCall("c1", "search", {"query": "x"}), ToolResult.text("found"))
    assert exploration.visible_sets[1].tokens == tools_tokens(scheduler.visible())
    assert exploration.visible_sets[1].tokens > exploration.visible_sets[0].tokens

    flat = flat_tools(graph)
    assert [t.name for t in flat] == ["ping", "search", "summarize", "add"]
    assert exploration.flat_tokens == tools_tokens(flat)


def test_check_finds_nothing_wrong_with_a_code_mode_design() -> None:
    assert st.check(st.disclosure_graph(*design())).findings == ()


def test_the_graph_and_the_picture_show_what_the_script_tool_calls() -> None:
    graph = st.disclosure_graph(*design())
    edges = sorted(
        (s, t) for s, t, kind in graph.to_networkx().edges(data="kind") if s == "tool:run_code"
    )
    assert edges == [("tool:run_code", "facade:maths"), ("tool:run_code", "playbook:notes")]
    assert graph.code_modes == {"run_code": frozenset({"search", "summarize", "maths", "add"})}

    dot = st.render(graph, format="dot").source
    arrows = [line.strip() for line in dot.splitlines() if line.strip().startswith("tool_run_code")]
    assert arrows[1:] == [
        'tool_run_code -> facade_maths [label="calls in a script" color="#6b7280" '
        'fontcolor="#6b7280" fontsize=10 style=dashed]',
        'tool_run_code -> tool_search [label="calls in a script" color="#6b7280" '
        'fontcolor="#6b7280" fontsize=10 lhead=cluster_playbook_notes style=dashed]',
    ]
