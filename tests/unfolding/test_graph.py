"""Facades, chaining and discovery in the DisclosureGraph: nodes and edges."""

from __future__ import annotations

from typing import Any

import statetools as st
from tests.unfolding.test_chaining import Repo, open_repo
from tests.unfolding.test_discovery import search_customers


def tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"The {name} tool.", lambda: name)


def edges(graph: st.DisclosureGraph, kind: str) -> list[tuple[str, str, dict[str, Any]]]:
    g = graph.to_networkx()
    found = []
    for source, target, data in g.edges(data=True):
        if data["kind"] == kind:
            extra = {k: v for k, v in data.items() if k not in ("kind",)}
            found.append((source, target, extra))
    return found


def test_facades_are_nodes_that_contain_their_tools() -> None:
    files = st.UnfoldingTool.by_category(
        "files", "Open files.", {"read": [tool("read")], None: [tool("stat")]}, exclusive=True
    )
    outer = st.UnfoldingTool.of("outer", "Open outer.", [files, tool("help")], usage_notes="n")
    graph = st.disclosure_graph(outer)
    g = graph.to_networkx()

    assert sorted(n for n, data in g.nodes(data=True) if data["kind"] == "facade") == [
        "facade:files",
        "facade:outer",
    ]
    assert g.nodes["facade:files"] == {
        "kind": "facade",
        "label": "files",
        "description": "Open files.",
        "usage_notes": None,
        "exclusive": True,
        "category_parameter": "category",
        "categories": ("read",),
        "selectable": False,
        "searchable": False,
        "keeps_shown": False,
    }
    assert g.nodes["facade:outer"]["usage_notes"] == "n"
    assert edges(graph, "contains") == [
        ("facade:outer", "facade:files", {}),
        ("facade:outer", "tool:help", {}),
        ("facade:files", "tool:read", {"categories": ("read",)}),
        ("facade:files", "tool:stat", {"categories": ("read",)}),
    ]
    assert "tool:files" not in g
    assert "tool:outer" not in g
    assert [graph.entries[n].facade for n in ("outer", "files", "help", "read")] == [
        None,
        "outer",
        "outer",
        "files",
    ]
    assert graph.node_of("files") == "facade:files"
    assert graph.node_of("read") == "tool:read"
    assert graph.facade_scope("outer") == {"files", "help", "read", "stat"}


def test_a_condition_naming_a_facade_points_at_the_facade_node() -> None:
    box = st.UnfoldingTool.of("box", "Open the box.", [tool("inside")])
    playbook = st.PlaybookTool("p", "P").with_tool(tool("after")).unlocked_by("box")
    graph = st.disclosure_graph(playbook, box)  # the condition comes first
    g = graph.to_networkx()
    assert "tool:box" not in g
    assert ("gate:after", "facade:box", {"count": 1}) in edges(graph, "requires")


def test_chained_tools_chain_from_the_tools_that_return_their_type() -> None:
    graph = st.disclosure_graph(open_repo, st.Chaining(Repo))
    g = graph.to_networkx()
    assert g.nodes["tool:star"]["chained"] == "Repo"
    assert sorted((s, t) for s, t, _ in edges(graph, "chains_from")) == [
        ("tool:rename", "tool:open_repo"),
        ("tool:star", "tool:open_repo"),
    ]
    assert graph.producers(st.Chaining(Repo).key) == ["open_repo"]


def test_discovered_tools_appear_as_templates() -> None:
    graph = st.disclosure_graph(search_customers)
    g = graph.to_networkx()
    templates = sorted(n for n, data in g.nodes(data=True) if data.get("template"))
    assert templates == [
        "tool:customer_<id>_profile",
        "tool:customer_<id>_recent_orders",
        "tool:order_<number>_cancel",
        "tool:order_<number>_status",
    ]
    assert g.nodes["tool:order_<number>_cancel"]["provider"] == "Order"
    assert sorted((s, t) for s, t, _ in edges(graph, "chains_from")) == [
        ("tool:customer_<id>_profile", "tool:search_customers"),
        ("tool:customer_<id>_recent_orders", "tool:search_customers"),
        ("tool:order_<number>_cancel", "tool:customer_<id>_recent_orders"),
        ("tool:order_<number>_status", "tool:customer_<id>_recent_orders"),
    ]
    assert graph.tool_names() == ["search_customers"]  # templates are not registered tools
