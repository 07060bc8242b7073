"""The same ``tools=[...]`` given to every run is compiled once, and a list changed in
place between runs is compiled again (never a stale graph)."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.engine.graph_cache import compiled
from statetools.engine.scheduler import Scheduler


def _tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"Tool {name}", lambda: "ok")


def _visible(items: list[Any] | tuple[Any, ...]) -> list[str]:
    return [tool.name for tool in Scheduler.for_items(items).visible()]


def test_the_same_list_gets_the_same_graph_and_so_does_a_new_list_of_the_same_items() -> None:
    items = [_tool("a"), st.UnfoldingTool.of("shelf", "Shelf", [_tool("b")])]
    graph = compiled(items)
    assert compiled(items) is graph
    assert compiled(list(items)) is graph
    assert compiled(tuple(items)) is graph
    assert Scheduler.for_items(items).graph is graph
    assert _visible(items) == ["a", "shelf"]


def test_a_list_changed_in_place_is_compiled_again() -> None:
    a, b, c = _tool("a"), _tool("b"), _tool("c")
    items: list[Any] = [a, b]
    first = compiled(items)
    assert _visible(items) == ["a", "b"]

    items.append(c)
    assert compiled(items) is not first
    assert _visible(items) == ["a", "b", "c"]

    items[1] = _tool("d")
    assert _visible(items) == ["a", "d", "c"]

    items[1] = b  # back to what it held: a graph of a, b, c
    assert _visible(items) == ["a", "b", "c"]

    del items[:]
    assert _visible(items) == []


def test_a_list_inside_the_list_changed_in_place_is_compiled_again() -> None:
    inner: list[Any] = [_tool("b")]
    items: list[Any] = [_tool("a"), inner]
    assert _visible(items) == ["a", "b"]
    assert compiled(items) is compiled(items)

    inner.append(_tool("c"))
    assert _visible(items) == ["a", "b", "c"]


def test_a_tool_replaced_by_an_equal_tool_keeps_the_graph() -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    items: list[Any] = [st.Tool.from_function(ping)]
    graph = compiled(items)
    items[0] = st.Tool.from_function(ping)  # a new object, equal field by field
    assert compiled(items) is graph


def test_items_that_can_change_are_compiled_for_every_run() -> None:
    class Desk:
        @st.llm_tool("Look up an order")
        def lookup(self) -> str:
            return "found"

    items = [Desk().lookup]  # a method reads its object, which may change
    assert compiled(items) is not compiled(items)
    assert _visible(items) == ["lookup"]
