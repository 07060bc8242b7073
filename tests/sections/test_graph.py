"""Sections compile into the disclosure graph: section nodes and expands edges."""

from __future__ import annotations

import pytest

import statetools as st
from statetools.engine.graph_index import EDGE_KINDS, NODE_KINDS
from statetools.engine.prompt_sections import Outline, OutlineSection
from tests.sections.design import support_sections, tool


def _edges(graph: st.DisclosureGraph, kind: str) -> list[tuple[str, str]]:
    return [(a, b) for a, b, k in graph.to_networkx().edges(data="kind") if k == kind]


def test_section_nodes_carry_the_tree() -> None:
    graph = st.disclosure_graph(support_sections())
    nx_graph = graph.to_networkx()
    sections = {n: d for n, d in nx_graph.nodes(data=True) if d["kind"] == "section"}
    assert list(sections) == [
        "section:read_section/tone",
        "section:read_section/billing",
        "section:read_section/billing.invoices",
        "section:read_section/billing.invoices.disputes",
        "section:read_section/shipping",
    ]
    assert sections["section:read_section/billing.invoices"] == {
        "kind": "section",
        "label": "Invoices",
        "facade": "read_section",
        "path": "billing.invoices",
        "visibility": "summary",
        "summary": "When invoices go out and how to resend them.",
        "gated": True,
        "opens": ("resend_invoice", "open_chargeback"),
    }
    assert sections["section:read_section/tone"]["gated"] is False
    assert "section" in NODE_KINDS
    assert "expands" in EDGE_KINDS


def test_expands_edges_lead_from_the_read_tool_down_the_tree_to_the_tools() -> None:
    graph = st.disclosure_graph(support_sections())
    assert _edges(graph, "expands") == [
        ("facade:read_section", "section:read_section/tone"),
        ("facade:read_section", "section:read_section/billing"),
        ("facade:read_section", "section:read_section/shipping"),
        ("section:read_section/billing", "tool:refund_order"),
        ("section:read_section/billing", "section:read_section/billing.invoices"),
        ("section:read_section/billing.invoices", "tool:resend_invoice"),
        ("section:read_section/billing.invoices", "section:read_section/billing.invoices.disputes"),
        ("section:read_section/billing.invoices.disputes", "tool:open_chargeback"),
        ("section:read_section/shipping", "tool:track_parcel"),
    ]
    assert graph.outlines["read_section"].duplicates == ()


def test_tools_of_a_full_section_are_contained_not_expanded() -> None:
    lookup = tool("lookup", "Look an order up")
    sections = st.Sections(
        st.Section("tone", "Tone", "Be brief.", visibility="full", tools=[lookup])
    )
    graph = st.disclosure_graph(sections)
    assert ("section:read_section/tone", "tool:lookup") in _edges(graph, "contains")
    assert graph.to_networkx().nodes["tool:lookup"] == {"kind": "tool", "label": "lookup"}
    assert graph.tool_names() == ["read_section", "lookup"]


def test_python_construction_refuses_duplicate_keys_and_strict_false_keeps_them() -> None:
    first = st.Section("billing", "Billing", "One.", summary="First.")
    second = st.Section("billing", "Billing again", "Two.", summary="Second.")
    with pytest.raises(st.DefinitionError, match="more than one section has the key billing"):
        st.Sections(first, second)
    sections = st.Sections(first, second, second, strict=False)
    assert sections.keys() == ["billing"]
    graph = st.disclosure_graph(sections)
    assert graph.outlines["read_section"] == Outline(
        (OutlineSection("billing", "Billing", None, "summary", "First.", (), True, ()),),
        (("billing", 2), ("billing", 3)),
    )
    with pytest.raises(st.DefinitionError) as raised:
        st.ToolLoop(st.models.ScriptedModel(["Done."])).run("Hi", tools=[sections])
    assert str(raised.value) == (
        "read_section: more than one section has the key billing Hint: give every section "
        "its own key among its siblings (statetools check lists them)"
    )
