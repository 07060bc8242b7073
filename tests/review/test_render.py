"""render(): DOT, SVG, PNG and Mermaid of designs, with and without a trace."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import statetools as st
from statetools.engine.events import (
    CallBlocked,
    RunFinished,
    RunStarted,
    StateEntered,
    ToolCalled,
    ToolsHidden,
    ToolsUnlocked,
)
from statetools.review.render import Diagram, render, to_dot, to_mermaid
from statetools.review.scene import node_id
from statetools.tools.decorators import tool_provider
from tests.review.designs import order, research, tool

ROOT = Path(__file__).resolve().parents[2]

SMALL_DOT = """\
digraph statetools {
	bgcolor=white compound=true fontname="Helvetica,Arial,sans-serif" newrank=true nodesep=0.3 rankdir=LR ranksep=0.45
	node [color="#374151" fontcolor="#111827" fontname="Helvetica,Arial,sans-serif" fontsize=12]
	edge [arrowsize=0.7 color="#374151" fontname="Helvetica,Arial,sans-serif"]
	subgraph cluster_playbook_p {
		color="#93b4d8" fillcolor="#eef4fb" label=<<font color="#6b7280" point-size="10">playbook</font> <b>p</b>> labeljust=l margin=12 style="rounded,filled"
		tool_search [label=<search> color="#374151" fillcolor=white shape=box style="rounded,filled" tooltip="The search step."]
		tool_fetch [label=<fetch> color="#374151" fillcolor=white shape=box style="rounded,filled,dashed" tooltip="The fetch step."]
	}
	tool_search -> tool_fetch [label="after search" color="#6b7280" fontcolor="#6b7280" fontsize=10]
}
"""  # noqa: E501


def small() -> st.PlaybookTool:
    return (
        st.PlaybookTool("p", "P")
        .with_tool(tool("search"))
        .with_tool(tool("fetch"))
        .unlocked_by("search")
    )


def traced_run() -> st.Trace:
    """What a run over research() and order() records: search; report (blocked);
    analyze; confirm (DRAFT -> SENT); report."""

    def called(iteration: int, name: str) -> ToolCalled:
        return ToolCalled(iteration, f"call_{iteration}", name, {}, "text", 0.0)

    return st.Trace(
        (
            RunStarted("run", 0.0, ("search", "confirm", "help")),
            called(1, "search"),
            ToolsUnlocked(1, ("analyze",)),
            CallBlocked(2, "call_2", "report", "Tool 'report' is locked. Call first: analyze."),
            called(3, "analyze"),
            ToolsUnlocked(3, ("report",)),
            called(4, "confirm"),
            ToolsUnlocked(4, ("ship",)),
            ToolsHidden(4, ("confirm",)),
            StateEntered(4, "order", "SENT", "DRAFT", False),
            called(5, "report"),
            RunFinished(0.0, 6, "answer"),
        )
    )


def line_of(dot: str, start: str) -> str:
    return next(line.strip() for line in dot.splitlines() if line.strip().startswith(start))


def test_dot_text_of_a_small_playbook() -> None:
    assert to_dot(st.disclosure_graph(small())) == SMALL_DOT


def test_clusters_markers_conditions_and_locked_tools() -> None:
    dot = to_dot(st.disclosure_graph(research(), order()))
    assert "subgraph cluster_playbook_research {" in dot
    assert "subgraph cluster_machine_order {" in dot
    assert line_of(dot, "start_order ") == (
        'start_order [label="" color="#374151" shape=point width=0.18]'
    )
    assert "start_order -> state_order__DRAFT" in dot
    assert "peripheries=2" in line_of(dot, "state_order__DONE ")
    assert "peripheries" not in line_of(dot, "state_order__SENT ")
    assert 'style="rounded,filled,dashed"' in line_of(dot, "tool_report ")
    assert 'style="rounded,filled"' in line_of(dot, "tool_search ")
    assert line_of(dot, "tool_analyze -> tool_report").startswith(
        'tool_analyze -> tool_report [label="after analyze"'
    )
    assert line_of(dot, "state_order__DRAFT -> state_order__SENT").startswith(
        "state_order__DRAFT -> state_order__SENT [label=confirm"
    )
    assert '<td align="left" port="port_confirm">' in line_of(dot, "state_order__DRAFT ")
    assert "<i>in every state</i>" in line_of(dot, "global_order ")


def test_composite_conditions_get_gates_and_leaves() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tools(tool("a"), tool("b"))
        .with_tool(tool("c"))
        .unlocked(st.AnyOf(st.After("a"), st.AllOf(st.After("b"), st.InState("order", "SENT"))))
        .with_tool(tool("d"))
        .unlocked_when(lambda view: True, "it is Monday")
    )
    dot = to_dot(st.disclosure_graph(playbook, order()))
    assert 'gate_c__1 [label=or color="#6b7280"' in dot
    assert 'gate_c__2 [label=and color="#6b7280"' in dot
    assert "gate_c__1 -> tool_c" in dot
    assert 'tool_a -> gate_c__1 [label="after a"' in dot
    assert 'state_order__SENT -> gate_c__2 [label="in SENT"' in dot
    assert "style=dotted" in line_of(dot, "state_order__SENT -> gate_c__2")
    assert 'leaf_d__3 [label="when it is Monday"' in dot
    assert "leaf_d__3 -> tool_d" in dot


def test_machine_tools_are_referenced_by_their_state_row() -> None:
    playbook = st.PlaybookTool("p", "P").with_tool(tool("track")).unlocked_by("ship", "help")
    dot = to_dot(st.disclosure_graph(order(), playbook))
    assert 'state_order__SENT:port_ship -> tool_track [label="after ship"' in dot
    assert 'global_order:port_help -> tool_track [label="after help"' in dot


def test_unknown_references_are_drawn_in_red() -> None:
    playbook = st.PlaybookTool("p", "P").with_tool(tool("b")).unlocked_by("ghost")
    dot = to_dot(st.disclosure_graph(playbook))
    assert line_of(dot, "missing_ghost ") == (
        'missing_ghost [label="ghost\\n(not registered)" color="#dc2626" fontcolor="#dc2626" '
        "shape=box style=dashed]"
    )


def test_ids_are_escaped_so_a_colon_never_becomes_a_port() -> None:
    machine = st.StateMachineTool("ns:order", "Orders", order().states)
    machine = machine.in_state("DRAFT").with_tool(tool("confirm")).transitions_to("SENT")
    playbook = st.PlaybookTool("team:research", "R").with_tool(tool("look"))
    playbook = playbook.with_tool(tool("note")).unlocked(st.InState("ns:order", "SENT"))
    dot = to_dot(st.disclosure_graph(machine, playbook))
    ids = re.findall(r"^\s*(\S+) (?:->|\[)", dot, flags=re.MULTILINE)
    assert all(re.fullmatch(r"[A-Za-z0-9_]+(:port_[A-Za-z0-9_]+)?", i) for i in ids), ids
    state = node_id("state", "ns:order", "SENT")
    assert state == "state_ns_order__SENT_49095e"
    assert f"{state} -> tool_note" in dot
    assert "<b>ns:order</b>" in dot
    svg = render(st.disclosure_graph(machine, playbook), "svg").text
    assert "ns:order" in svg


def test_node_ids_are_stable_and_distinct() -> None:
    assert node_id("tool", "search") == "tool_search"
    assert node_id("state", "order", "DRAFT") == "state_order__DRAFT"
    assert node_id("tool", "a_b") != node_id("tool", "a.b")
    assert node_id("state", "a__b", "c") != node_id("state", "a", "b__c")


def test_trace_numbers_and_colours_the_path() -> None:
    graph = st.disclosure_graph(research(), order())
    dot = to_dot(graph, trace=traced_run())
    search = line_of(dot, "tool_search ")
    assert '<font color="#2563eb">1.1</font>' in search
    assert 'fillcolor="#dbeafe"' in search
    assert "penwidth=2" in search
    report = line_of(dot, "tool_report ")
    assert '<font color="#dc2626">2.1 (blocked)</font>, <font color="#2563eb">5.1</font>' in report
    transition = line_of(dot, "state_order__DRAFT -> state_order__SENT")
    assert transition == (
        'state_order__DRAFT -> state_order__SENT [label="4.1: confirm" color="#2563eb" '
        'fontcolor="#2563eb" fontsize=11 penwidth=2]'
    )
    current = line_of(dot, "state_order__SENT ")
    assert 'color="#d97706" fillcolor="#fef3c7"' in current
    assert "penwidth=2.5" in current
    assert 'fillcolor="#fef3c7"' not in line_of(dot, "state_order__DRAFT ")
    assert 'color="#2563eb"' in line_of(dot, "tool_search -> tool_analyze")
    assert 'color="#2563eb"' not in line_of(dot, "state_order__SENT -> state_order__DONE")


def test_trace_as_json_gives_the_same_picture() -> None:
    graph = st.disclosure_graph(research(), order())
    trace = traced_run()
    assert to_dot(graph, trace=trace.to_json()) == to_dot(graph, trace=trace)


def test_without_a_trace_the_initial_state_is_not_highlighted() -> None:
    dot = to_dot(st.disclosure_graph(order()))
    assert "#fef3c7" not in dot
    assert "#2563eb" not in dot


def test_mermaid() -> None:
    assert to_mermaid(st.disclosure_graph(small())) == textwrap.dedent(
        """\
        flowchart LR
          subgraph cluster_playbook_p["playbook p"]
            tool_search["search"]
            tool_fetch["fetch"]
          end
          tool_search -.->|"after search"| tool_fetch
          classDef locked stroke-dasharray: 5 5
          class tool_fetch locked
        """
    )


def test_mermaid_of_a_machine_with_a_trace() -> None:
    text = to_mermaid(st.disclosure_graph(research(), order()), trace=traced_run())
    assert '    start_order((" "))' in text
    assert '    state_order__DRAFT("<b>DRAFT</b><br/>confirm (4.1)")' in text
    assert '    state_order__DONE[["<b>DONE</b>"]]' in text
    assert '  state_order__DRAFT -->|"4.1: confirm"| state_order__SENT' in text
    assert '    tool_report["report<br/>2.1 (blocked), 5.1"]' in text
    assert "  class state_order__SENT current" in text
    assert text.endswith("  linkStyle 0,1,3,4,5 stroke:#2563eb,stroke-width:2px\n")


def test_mermaid_escapes_quotes_and_angle_brackets() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("a"))
        .unlocked_when(lambda view: True, 'the "big" <one>')
    )
    text = to_mermaid(st.disclosure_graph(playbook))
    assert '>"when the #quot;big#quot; #lt;one#gt;"]' in text


def test_svg_png_and_notebook_display() -> None:
    graph = st.disclosure_graph(research(), order())
    svg = render(graph, "svg")
    assert svg.text.lstrip().startswith("<?xml")
    assert "</svg>" in svg.text
    png = render(graph, "png")
    assert png.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert png.source == svg.source == to_dot(graph)
    assert "<svg" in png._repr_svg_()
    assert svg._repr_svg_() == svg.text
    with pytest.raises(st.StatetoolsError, match="a png diagram is binary"):
        _ = png.text


def test_save_and_bad_format(tmp_path: Path) -> None:
    graph = st.disclosure_graph(small())
    path = render(graph, "dot").save(tmp_path / "p.dot")
    assert path.read_text() == SMALL_DOT
    with pytest.raises(st.StatetoolsError, match="unknown diagram format 'jpeg'"):
        render(graph, "jpeg")  # type: ignore[arg-type]
    assert isinstance(render(graph, "mermaid"), Diagram)


def test_dot_is_byte_identical_across_processes() -> None:
    script = (
        "import statetools as st\n"
        "from statetools.review.render import to_dot\n"
        "from tests.review.designs import order, research\n"
        "print(to_dot(st.disclosure_graph(research(), order())), end='')\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1",)
    }
    assert outputs == {to_dot(st.disclosure_graph(research(), order()))}


class Repo:
    @st.llm_tool("Star the repository")
    def star(self) -> str:
        return "starred"


@tool_provider(prefix="customer")
class Customer:
    def __init__(self, id: str) -> None:
        self.id = id

    @st.llm_tool("The customer's recent orders")
    def recent_orders(self) -> list[str]:
        return []


@st.llm_tool("Find a repository")
def find_repo(name: str) -> Repo:
    return Repo()


@st.llm_tool("Find customers")
def find_customers(query: str) -> list[Customer]:
    return []


def test_chained_tools_and_discovered_templates() -> None:
    playbook = (
        st.PlaybookTool("gh", "GitHub")
        .with_tools(find_repo, find_customers)
        .with_tool_chaining_from(Repo)
    )
    dot = to_dot(st.disclosure_graph(playbook))
    assert 'tool_find_repo -> tool_star [label="returns Repo"' in dot
    assert 'style="rounded,filled,dashed"' in line_of(dot, "tool_star ")
    template = node_id("template", "customer_<id>_recent_orders")
    assert f'{template} [label="customer_<id>_recent_orders"' in dot
    assert f'tool_find_customers -> {template} [label="discovers (Customer)"' in dot
