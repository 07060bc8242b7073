"""Facade calls across the activity boundary.

A facade's call may run code of its own (a selector, a search index, an MCP server's
listing, an inner tool called directly), so it runs in the tool activity like any
other call. What it opened comes back as JSON (:func:`describe`); the workflow rebuilds
the same :class:`~statetools.definitions.unfolding.Unfolded` from it
(:class:`UnfoldBook`) and hands it to its scheduler, which never runs the facade.
Only a plain facade listing its fixed inner tools is pure bookkeeping: it runs in the
workflow (:func:`unfolds_in_workflow`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from statetools.definitions.unfolding import DirectCall, Unfolded, UnfoldingTool
from statetools.engine.facades import FacadeRecall
from statetools.engine.graph import DisclosureGraph
from statetools.messages import ToolCall
from statetools.tools.calling import Arguments, Context, ToolResult
from statetools.tools.tool import BaseTool, ToolMetadata


@attrs.frozen(kw_only=True)
class ActivityTool(BaseTool):
    """A tool a facade's activity built (a selector's own tool), as the workflow knows
    it: its definition and metadata. Its calls run in the tool activity, which builds
    the real tool again; the workflow never runs it.

    >>> tool = ActivityTool(name="ping", description="Ping the host.")
    >>> tool.call().text
    "Tool 'ping' runs in a tool activity, not in the workflow."
    """

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Refuse: the workflow has only the tool's definition.

        >>> import asyncio
        >>> asyncio.run(ActivityTool(name="ping", description="Ping.").acall({})).is_error
        True
        """
        return ToolResult.error(f"Tool '{self.name}' runs in a tool activity, not in the workflow.")


def _plain(tool: BaseTool) -> UnfoldingTool | None:
    facade = tool.delegate if isinstance(tool, FacadeRecall) else tool
    if type(facade) is not UnfoldingTool or facade.selector is not None:
        return None
    return facade if facade.search is None else None


def unfolds_in_workflow(tool: BaseTool, call: ToolCall, graph: DisclosureGraph) -> bool:
    """Whether calling ``tool`` is pure scheduler bookkeeping: a plain facade of the
    design (no selector, no search, not a subclass with calls of its own) opening its
    fixed inner tools, with no argument naming an inner tool to call directly.

    >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
    >>> graph = disclosure_graph(facade)
    >>> unfolds_in_workflow(facade, ToolCall("c1", "t", {}), graph)
    True
    >>> unfolds_in_workflow(facade, ToolCall("c2", "t", {"a": {}}), graph)
    False
    """
    facade = _plain(tool)
    if facade is None or graph.facades.get(call.name) is not facade:
        return False
    properties = facade.input_schema.get("properties") or {}
    return all(key in properties for key in call.arguments)


def _candidates(graph: DisclosureGraph, name: str) -> list[BaseTool]:
    entry = graph.entries.get(name)
    return [p.tool for p in graph.places_of(name)] + ([entry.tool] if entry is not None else [])


def _tool_json(tool: BaseTool, graph: DisclosureGraph) -> dict[str, Any]:
    for index, known in enumerate(_candidates(graph, tool.name)):
        if known is tool:
            return {"name": tool.name, "place": index}
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": dict(tool.input_schema),
        "metadata": attrs.asdict(tool.metadata),
    }


def json_value(result: ToolResult) -> tuple[bool, Any]:
    """``(True, value)`` when the result carries a JSON-able value, else ``(False, None)``.

    >>> json_value(ToolResult.artifact({"n": 1}, text="one")), json_value(ToolResult.text("x"))
    ((True, {'n': 1}), (False, None))
    """
    if not result.has_value:
        return False, None
    try:
        json.dumps(result.value)
    except (TypeError, ValueError):
        return False, None
    return True, result.value


def describe(unfolded: Unfolded, graph: DisclosureGraph, *, recall: bool) -> dict[str, Any]:
    """What ``unfolded`` opened, as JSON (tools of the design by their place, tools a
    selector built by their definition); ``recall`` when an unfolded facade was
    called again (its tools are listed, nothing is selected).

    >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
    >>> describe(facade.call().value, disclosure_graph(facade), recall=False)["tools"]
    [{'name': 'a', 'place': 0}]
    """
    direct = None
    if unfolded.direct is not None:
        result = unfolded.direct.result
        has_value, value = json_value(result)
        direct = {
            "name": unfolded.direct.name,
            "arguments": dict(unfolded.direct.arguments),
            "content": result.content,
            "is_error": result.is_error,
            "has_value": has_value,
            "value": value,
        }
    return {
        "facade": unfolded.facade,
        "arguments": dict(unfolded.arguments),
        "listed": unfolded.listed,
        "tools": [_tool_json(tool, graph) for tool in unfolded.tools],
        "direct": direct,
        "recall": recall,
    }


def _key(facade: str, arguments: Mapping[str, Any]) -> str:
    return f"{facade}\n{json.dumps(dict(arguments), sort_keys=True)}"


class UnfoldBook:
    """The workflow's side: rebuilds unfolds from their JSON, and remembers each
    selection so that a run continued as new replays it without running the facade.

    >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
    >>> graph = disclosure_graph(facade)
    >>> book = UnfoldBook(graph, [])
    >>> book.rebuild(describe(facade.call().value, graph, recall=False)).names
    ['a']
    """

    def __init__(self, graph: DisclosureGraph, saved: Iterable[dict[str, Any]]) -> None:
        self.graph = graph
        self._built: dict[str, ActivityTool] = {}
        self._selections: dict[str, dict[str, Any]] = {}
        for description in saved:
            self._remember(description)

    def _remember(self, description: dict[str, Any]) -> None:
        if not description["recall"]:
            key = _key(description["facade"], description["arguments"])
            self._selections.setdefault(key, description)

    def _tool(self, data: dict[str, Any]) -> BaseTool:
        if "place" in data:
            known: BaseTool = _candidates(self.graph, data["name"])[data["place"]]
            return known
        key = json.dumps(data, sort_keys=True)
        tool = self._built.get(key)
        if tool is None:
            tool = ActivityTool(
                name=data["name"],
                description=data["description"],
                input_schema=data["input_schema"],
                metadata=ToolMetadata(**data["metadata"]),
            )
            self._built[key] = tool
        return tool

    def rebuild(self, description: dict[str, Any]) -> Unfolded:
        """The unfold ``description`` gives (see :func:`describe`), remembered.

        >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
        >>> graph = disclosure_graph(facade)
        >>> book = UnfoldBook(graph, [])
        >>> unfolded = book.rebuild(describe(facade.call().value, graph, recall=False))
        >>> unfolded.facade, unfolded.names
        ('t', ['a'])
        """
        self._remember(description)
        direct = description["direct"]
        return Unfolded(
            description["facade"],
            tuple(self._tool(tool) for tool in description["tools"]),
            description["arguments"],
            description["listed"],
            None
            if direct is None
            else DirectCall(
                direct["name"],
                direct["arguments"],
                ToolResult(
                    direct["content"],
                    direct["value"],
                    is_error=direct["is_error"],
                    has_value=direct["has_value"],
                ),
            ),
        )

    def replay(self, facade: UnfoldingTool, arguments: dict[str, Any]) -> Unfolded | str:
        """What a saved unfold opened (the scheduler's ``replay``): the remembered
        selection; a plain facade selects again (that runs no code of the design).

        >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
        >>> graph = disclosure_graph(facade)
        >>> book = UnfoldBook(graph, [])
        >>> book.replay(facade, {}).names
        ['a']
        """
        found = self._selections.get(_key(facade.name, arguments))
        if found is not None:
            return attrs.evolve(self.rebuild(found), direct=None)
        if _plain(facade) is not None:
            return facade.select(arguments)
        return f"the unfold of '{facade.name}' was not recorded"

    def saved(self) -> list[dict[str, Any]]:
        """The selections to carry into a run continued as new.

        >>> facade = UnfoldingTool.of("t", "Open t", [Tool.create("a", "A", lambda: "ok")])
        >>> graph = disclosure_graph(facade)
        >>> book = UnfoldBook(graph, [])
        >>> _ = book.rebuild(describe(facade.call().value, graph, recall=False))
        >>> [(saved["facade"], saved["tools"]) for saved in book.saved()]
        [('t', [{'name': 'a', 'place': 0}])]
        """
        return list(self._selections.values())
