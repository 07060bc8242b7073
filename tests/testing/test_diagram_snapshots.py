"""Snapshot tests of the diagrams: each design's DOT text is a committed ``.dot`` file
under ``__snapshots__/test_diagram_snapshots/`` (render them with ``dot -Tsvg``)."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

import statetools as st
from playbooks import support_desk
from statetools.testing import run_scripted
from statetools.testing.snapshots import DotSnapshotExtension, TraceSnapshotExtension
from tests.disclosure.test_machine import order_machine
from tests.disclosure.test_playbook import research
from tests.testing.test_engine_snapshots import research_example


def test_research_playbook(dot_snapshot: SnapshotAssertion) -> None:
    assert st.render(st.disclosure_graph(research()), format="dot").text == dot_snapshot


def test_order_machine(dot_snapshot: SnapshotAssertion) -> None:
    assert st.render(order_machine(), format="dot") == dot_snapshot


def test_support_desk(dot_snapshot: SnapshotAssertion) -> None:
    assert st.render(support_desk.support_desk(), format="dot") == dot_snapshot


def test_research_example(dot_snapshot: SnapshotAssertion) -> None:
    assert st.render(research_example(), format="dot") == dot_snapshot


def test_order_machine_with_the_path_of_a_run(
    dot_snapshot: SnapshotAssertion, trace_snapshot: SnapshotAssertion
) -> None:
    steps = [
        ("ship", {"carrier": "ups"}),
        [("add_item", {"sku": "lamp"}), ("confirm", {})],
        ("ship", {"carrier": "ups"}),
        "Shipped.",
    ]
    result = run_scripted(order_machine(), steps)
    assert result == trace_snapshot
    assert st.render(order_machine(), format="dot", trace=result.trace) == dot_snapshot


def test_dot_text_is_stored_with_unix_line_ends_and_a_final_newline() -> None:
    extension = DotSnapshotExtension()
    assert extension.serialize("digraph g {\r\n  a -> b\r\n}") == "digraph g {\n  a -> b\n}\n"
    diagram = st.render(order_machine(), format="mermaid")  # its source is DOT
    assert extension.serialize(diagram) == st.render(order_machine(), format="dot").text


def test_dot_snapshot_takes_text_or_a_diagram_only() -> None:
    with pytest.raises(TypeError) as caught:
        DotSnapshotExtension().serialize(order_machine())
    assert str(caught.value) == (
        "dot_snapshot compares DOT text, not StateMachineTool; pass st.render(graph, format='dot')"
    )


def test_trace_snapshot_also_takes_formatted_text() -> None:
    extension = TraceSnapshotExtension()
    assert extension.serialize("turn 1 | visible: a") == "turn 1 | visible: a\n"
    result = run_scripted(order_machine(), ["Nothing to do."])
    assert (
        extension.serialize(result)
        == extension.serialize(result.trace)
        == (
            "turn 1 | visible: add_item, confirm, status\n"
            '  answer: "Nothing to do."\n'
            "finished: answer after 1 iteration\n"
        )
    )


def test_three_level_sections(dot_snapshot: SnapshotAssertion) -> None:
    from tests.sections.design import support_sections

    assert st.render([support_sections()], format="dot") == dot_snapshot
