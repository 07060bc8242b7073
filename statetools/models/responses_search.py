"""The Responses API's ``tool_search`` mode: facades as namespaces of deferred functions.

The ``tools`` array holds the ``tool_search`` tool (hosted, or ``execution: "client"``),
each namespace the run can search (a facade: its name, description and the functions
its unfolding would show, every one ``defer_loading``) and the visible tools outside
any namespace. Searching and loading never change it; only the design does (a lock
opens or closes).

A search is a call of the run's ``tool_search`` tool in the history (the answer's items
are read by :func:`~statetools.models.responses_answer.tool_search_call`): a hosted
search (``tool_search_call`` and ``tool_search_output`` with ``execution: "server"``)
comes in as ``{"names": [loaded tools], "searched": {the search's arguments}}``, a
client one as the model's own arguments, answered by the run. Each is written back as
the ``tool_search_call`` / ``tool_search_output`` pair, the loaded tools in their
namespaces, the same way in every request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from statetools.messages import AssistantMessage, Message, SystemMessage, ToolCall, UserMessage
from statetools.models._provider import plain_json
from statetools.models.base import ModelRequest, SearchSpace, ToolDefinition, ToolNamespace

__all__ = [
    "LOADED",
    "SearchExecution",
    "loaded_names",
    "search_input",
    "search_tool_entry",
    "search_tools",
]

SearchExecution = Literal["server", "client"]
LOADED = "Tools now available: "
"""How the line of a search's answer that names the loaded tools starts."""
QUERY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Words describing the tools you need"}
    },
    "required": ["query"],
    "additionalProperties": False,
}
"""The arguments of a client-executed search: the words to search for."""
CLIENT_DESCRIPTION = (
    "Search the namespaces for the tools you need; the best matches are loaded "
    "(a namespace's tools load together)."
)

Wire = dict[str, Any]


def loaded_names(text: str) -> list[str]:
    """The tools a search's answer says it loaded (its ``Tools now available:`` line).

    >>> loaded_names('Tools matching "ping":\\n- ping: Ping.\\nTools now available: ping, trace.')
    ['ping', 'trace']
    >>> loaded_names("No tool was loaded.")
    []
    """
    for line in text.splitlines():
        if line.startswith(LOADED):
            return [name for name in line[len(LOADED) :].rstrip(".").split(", ") if name]
    return []


def responses_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One tool definition as a Responses API ``function`` tool (as
    :func:`~statetools.models.openai_responses.to_responses_tools` sends them).

    >>> responses_tool(ToolDefinition("ping", "Ping.", {"type": "object"}))["strict"]
    False
    """
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": plain_json(tool.input_schema),
        "strict": False,
    }


def deferred_function(tool: ToolDefinition) -> Wire:
    """One tool as a deferred ``function`` of a namespace.

    >>> deferred_function(ToolDefinition("ping", "Ping.", {"type": "object"}))["defer_loading"]
    True
    """
    return {**responses_tool(tool), "defer_loading": True}


def namespace_entry(name: str, description: str, tools: Iterable[ToolDefinition]) -> Wire:
    """A ``namespace`` tool: its name, description and deferred functions.

    >>> namespace_entry("net", "Network tools", [])
    {'type': 'namespace', 'name': 'net', 'description': 'Network tools', 'tools': []}
    """
    return {
        "type": "namespace",
        "name": name,
        "description": description,
        "tools": [deferred_function(tool) for tool in tools],
    }


def search_tool_entry(execution: SearchExecution) -> Wire:
    """The ``tool_search`` tool: hosted, or executed by the run (``client``), which
    takes a query.

    >>> search_tool_entry("server")
    {'type': 'tool_search'}
    >>> sorted(search_tool_entry("client"))
    ['description', 'execution', 'parameters', 'type']
    """
    if execution == "server":
        return {"type": "tool_search"}
    return {
        "type": "tool_search",
        "execution": "client",
        "description": CLIENT_DESCRIPTION,
        "parameters": QUERY_SCHEMA,
    }


def shown_rank(request: ModelRequest) -> dict[str, int]:
    """When each tool was first shown in the run: those of the first request, then those
    each tool result showed, in order (without a catalogue: the request's own order).

    >>> from statetools.models.base import ToolCatalogue, ToolChange
    >>> a, b, c = (ToolDefinition(n, n, {"type": "object"}) for n in "abc")
    >>> catalogue = ToolCatalogue((a, b, c), ("a", "c"), {"call_1": ToolChange(("b",))})
    >>> shown_rank(ModelRequest((), (a, b, c), catalogue=catalogue))
    {'a': 0, 'c': 1, 'b': 2}
    """
    catalogue = request.catalogue
    if catalogue is None:
        return {tool.name: index for index, tool in enumerate(request.tools)}
    rank: dict[str, int] = {}
    for name in catalogue.initial:
        rank.setdefault(name, len(rank))
    for change in catalogue.changes.values():
        for name in change.added:
            rank.setdefault(name, len(rank))
    return rank


class SearchWire:
    """Wire forms of the ``tool_search`` mode, each built once: a deferred function per
    tool definition and a namespace entry per namespace (by identity), so a tools array
    built again costs its entries, not the tools inside the namespaces.

    >>> wire = SearchWire()
    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> wire.deferred(ping) is wire.deferred(ping)
    True
    """

    __slots__ = ("_functions", "_namespaces")

    def __init__(self) -> None:
        self._functions: dict[int, tuple[ToolDefinition, Wire]] = {}
        self._namespaces: dict[int, tuple[ToolNamespace, Wire]] = {}

    def deferred(self, tool: ToolDefinition) -> Wire:
        """``tool`` as a deferred function (:func:`deferred_function`), kept.

        >>> SearchWire().deferred(ToolDefinition("ping", "Ping.", {}))["defer_loading"]
        True
        """
        known = self._functions.get(id(tool))
        if known is not None and known[0] is tool:
            return known[1]
        form = deferred_function(tool)
        self._functions[id(tool)] = (tool, form)
        return form

    def namespace(self, namespace: ToolNamespace) -> Wire:
        """``namespace`` as a namespace entry, kept while it is the same object.

        >>> SearchWire().namespace(ToolNamespace("net", "Network tools"))["tools"]
        []
        """
        known = self._namespaces.get(id(namespace))
        if known is not None and known[0] is namespace:
            return known[1]
        entry = {
            "type": "namespace",
            "name": namespace.name,
            "description": namespace.description,
            "tools": [self.deferred(tool) for tool in namespace.tools],
        }
        self._namespaces[id(namespace)] = (namespace, entry)
        return entry


def search_tools(
    request: ModelRequest,
    space: SearchSpace,
    execution: SearchExecution,
    function: Callable[[ToolDefinition], Wire],
    wire: SearchWire | None = None,
) -> list[Wire]:
    """The ``tools`` array: the namespaces and the visible tools outside them, in the
    order they were first shown (:func:`shown_rank`; a namespace takes its facade's
    place), ``tool_search`` just before the first namespace (so a first namespace that
    comes later is appended with it). ``function`` writes a visible tool; ``wire``
    keeps the namespaces' forms between arrays.

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> net = ToolNamespace("net", "Network tools", (ping,))
    >>> space = SearchSpace((net,), {"ping": "net"}, {"net": "Network tools"})
    >>> facade = ToolDefinition("net", "Network tools", {"type": "object"})
    >>> request = ModelRequest((), (facade,), search=space)
    >>> [t["type"] for t in search_tools(request, space, "server", lambda d: {"name": d.name})]
    ['tool_search', 'namespace']
    """
    wire = wire if wire is not None else SearchWire()
    namespaces = {namespace.name: namespace for namespace in space.namespaces}
    entries: list[tuple[str, ToolDefinition | ToolNamespace]] = list(namespaces.items())
    entries.extend(
        (tool.name, tool)
        for tool in request.tools
        if tool.name != space.search_tool
        and tool.name not in space.descriptions
        and space.home.get(tool.name) not in namespaces
    )
    rank = shown_rank(request)
    last = len(rank)
    entries.sort(key=lambda entry: rank.get(entry[0], last))
    out: list[Wire] = []
    searching = False
    for _, item in entries:
        if isinstance(item, ToolNamespace):
            if not searching:
                out.append(search_tool_entry(execution))
                searching = True
            out.append(wire.namespace(item))
        else:
            out.append(function(item))
    return out


def _loaded_entries(
    names: Sequence[str], space: SearchSpace, definitions: Mapping[str, ToolDefinition]
) -> list[Wire]:
    """The loaded tools of a search output, in their namespaces (in the order loaded)."""
    groups: dict[str, list[ToolDefinition]] = {}
    alone: list[ToolDefinition] = []
    for name in dict.fromkeys(names):
        tool = definitions.get(name)
        if tool is None:
            continue
        home = space.home.get(name)
        if home is None:
            alone.append(tool)
        else:
            groups.setdefault(home, []).append(tool)
    entries = [
        namespace_entry(home, space.descriptions.get(home, ""), tools)
        for home, tools in groups.items()
    ]
    return entries + [deferred_function(tool) for tool in alone]


def _search_pair(
    execution: SearchExecution, call_id: str | None, arguments: Any, tools: list[Wire]
) -> tuple[Wire, Wire]:
    call = {
        "type": "tool_search_call",
        "execution": execution,
        "call_id": call_id,
        "status": "completed",
        "arguments": plain_json(arguments),
    }
    output = {
        "type": "tool_search_output",
        "execution": execution,
        "call_id": call_id,
        "status": "completed",
        "tools": tools,
    }
    return call, output


def search_input(
    messages: Sequence[Message], space: SearchSpace, definitions: Mapping[str, ToolDefinition]
) -> list[Wire]:
    """The history as input items, searches as ``tool_search_call`` /
    ``tool_search_output`` pairs and calls of namespaced tools with their namespace.

    >>> search = ToolCall("ts_1", "tool_search", {"names": ["ping"], "searched": {"q": "ping"}})
    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> space = SearchSpace((), {"ping": "net"}, {"net": "Network tools"})
    >>> items = search_input([AssistantMessage("", (search,))], space, {"ping": ping})
    >>> [(item["type"], item["execution"]) for item in items]
    [('tool_search_call', 'server'), ('tool_search_output', 'server')]
    >>> items[1]["tools"][0]["name"], items[1]["tools"][0]["tools"][0]["name"]
    ('net', 'ping')
    """
    items: list[Wire] = []
    hosted: set[str] = set()
    for message in messages:
        if isinstance(message, SystemMessage | UserMessage):
            items.append({"role": message.role, "content": message.content})
        elif isinstance(message, AssistantMessage):
            if message.content or not message.tool_calls:
                items.append({"role": "assistant", "content": message.content})
            for call in message.tool_calls:
                if call.name != space.search_tool:
                    items.append(_function_call(call, space))
                elif "searched" in call.arguments:  # a hosted search: both items came back
                    hosted.add(call.id)
                    names = [str(n) for n in call.arguments.get("names") or ()]
                    tools = _loaded_entries(names, space, definitions)
                    items.extend(_search_pair("server", None, call.arguments["searched"], tools))
                else:
                    items.append(_search_pair("client", call.id, call.arguments, [])[0])
        elif message.tool_call_id in hosted:
            continue
        elif message.name == space.search_tool:
            tools = _loaded_entries(loaded_names(message.content), space, definitions)
            items.append(_search_pair("client", message.tool_call_id, {}, tools)[1])
        else:
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": message.content,
                }
            )
    return items


def _function_call(call: ToolCall, space: SearchSpace) -> Wire:
    item: Wire = {"type": "function_call", "call_id": call.id, "name": call.name}
    home = space.home.get(call.name)
    if home is not None:
        item["namespace"] = home
    item["arguments"] = json.dumps(plain_json(call.arguments))
    return item


def definitions_of(request: ModelRequest) -> Mapping[str, ToolDefinition]:
    """Every tool definition the request knows, by name (the catalogue's, or the
    visible ones and the namespaces'), gathered on the first look-up only (a history
    without searches never needs them).

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> list(definitions_of(ModelRequest((), (ping,))))
    ['ping']
    """
    return _Definitions(request)


class _Definitions(Mapping[str, ToolDefinition]):
    """:func:`definitions_of`, gathered when first read."""

    def __init__(self, request: ModelRequest) -> None:
        self._request = request
        self._found: dict[str, ToolDefinition] | None = None

    def _all(self) -> dict[str, ToolDefinition]:
        if self._found is None:
            request = self._request
            found: dict[str, ToolDefinition] = {}
            if request.search is not None:
                for namespace in request.search.namespaces:
                    found.update((tool.name, tool) for tool in namespace.tools)
            found.update((tool.name, tool) for tool in request.tools)
            if request.catalogue is not None:
                found.update((tool.name, tool) for tool in request.catalogue.tools)
            self._found = found
        return self._found

    def __getitem__(self, name: str) -> ToolDefinition:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
