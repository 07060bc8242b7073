"""Searches that load the design's facade tools, for models that search deferred tools.

One concept: the design's plain and search facades say what a search may load, and a
load opens tools exactly as a call of the facade would (conditions, states and
exclusive facades still lock the others; a call of a locked tool gets its guidance, and
one a search could load but has not is told to search first, :func:`not_loaded`). Who
answers the search differs:

- **The run** (``ModelCapabilities.searches_tools``: OpenAI's ``tool_search`` mode,
  Anthropic's ``search="client"``). Every plain or search facade the model can see is
  declared as a *namespace*: its name and description, and the tools its unfolding
  would show, deferred. The model's search comes in as a call of the run's own
  ``tool_search`` tool (:class:`ToolSearch`): with ``query`` (a search the run answers:
  BM25 over the namespaces' tools, each search facade's tools ranked by its own ranker)
  or with ``names`` (the tools the provider's hosted search already loaded). Loading a
  tool of a plain facade unfolds the facade (all of its tools open, as when it is
  called); loading a tool of a search facade opens that tool. :class:`SearchRoom` holds
  the namespaces and the searches of one run.
- **The provider** (``ModelCapabilities.search_tool``: Anthropic's server-side search).
  The provider searches deferred definitions of the search facades' tools and the model
  calls what it found directly: :func:`searchable_now` lists, per search facade, the
  tools its search may open now, :func:`open_found` opens what the provider found as a
  call of the facade with ``names`` would (recorded, replayed on resume, under the
  locks), and :func:`unsearched` words the refusal of a tool not found yet.

>>> net = Facade.of("net", "Network tools", [Tool.create("ping", "Ping a host", lambda: "ok")])
>>> conv = Conversation([net], "Ping it", capabilities=ModelCapabilities(searches_tools=True),
...                     run_id="r1")  # doctest: +SKIP
>>> [n.name for n in conv.next_request().search.namespaces]  # doctest: +SKIP
['net']
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence

import attrs

from statetools.definitions.search import select_names
from statetools.definitions.search_index import SearchIndex
from statetools.definitions.unfold_call import Loaded, Unfolded, select
from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.run_facts import NOTHING_CHANGED, Changes
from statetools.engine.scheduler import Scheduler
from statetools.messages import ToolCall
from statetools.models.base import SearchSpace, ToolNamespace
from statetools.models.responses_search import LOADED
from statetools.tools.calling import Arguments, Context, ToolResult, parse_arguments
from statetools.tools.descriptions import first_sentence
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import BaseTool

__all__ = [
    "SEARCH_ROOM_KEY",
    "TOOL_SEARCH",
    "Loaded",
    "SearchRoom",
    "ToolSearch",
    "not_loaded",
    "open_found",
    "search_facades",
    "searchable_now",
    "unsearched",
]

TOOL_SEARCH = "tool_search"
"""The name of the run's search tool."""
SEARCH_ROOM_KEY = "statetools.search_room"
"""Where the run's :class:`SearchRoom` sits in the tools' context."""
MAX_RESULTS = 5
"""Tools found per query, at most."""


def not_loaded(name: str, search: str) -> str:
    """What a call of ``name`` is told while a search could load it but has not: to
    search with ``search``, the search tool the model has.

    >>> not_loaded("create_issue", "tool_search")
    "Tool 'create_issue' is not loaded. Search for it with tool_search first."
    """
    return f"Tool '{name}' is not loaded. Search for it with {search} first."


# ---- the provider searches ------------------------------------------------------------


def search_facades(scheduler: Scheduler) -> tuple[str, ...]:
    """The names of the design's search facades, in registration order.

    >>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
    >>> finder = Facade.searchable("find_tools", "Find tools", [ping])
    >>> search_facades(Scheduler.for_items([finder]))
    ('find_tools',)
    """
    return tuple(name for name, f in scheduler.graph.facades.items() if f.search is not None)


def searchable_now(scheduler: Scheduler) -> dict[str, tuple[str, ...]]:
    """Every search facade with the tools below it that its search may open now, in
    the facade's order: none while the facade itself is locked; a tool that a
    condition, a state or an exclusive facade keeps locked is left out.

    >>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
    >>> trace = Tool.create("trace", "Trace a route", lambda: "ok")
    >>> later = PlaybookTool("later", "Later").with_tool(trace).unlocked_by(ping)
    >>> finder = Facade.searchable("find_tools", "Find tools", [ping, later])
    >>> searchable_now(Scheduler.for_items([finder]))
    {'find_tools': ('ping',)}
    """
    found: dict[str, tuple[str, ...]] = {}
    for name in search_facades(scheduler):
        if scheduler.explain(name) is not None:
            found[name] = ()
            continue
        index = scheduler.graph.facades[name].search_index
        found[name] = tuple(
            tool.name
            for tool in index.tools
            if tool.name in scheduler.graph.entries
            and scheduler.search_lock(name, tool.name) is None
        )
    return found


def open_found(scheduler: Scheduler, names: Iterable[str], call_id: str) -> Changes:
    """Open ``names`` (found by the provider's search) through the search facades that
    hold them, as a call of each facade with ``names`` would; what no unlocked search
    facade holds stays as it is (a call of it gets the usual guidance). ``call_id``
    identifies the search in the scheduler's records.

    >>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
    >>> scheduler = Scheduler.for_items([Facade.searchable("find_tools", "Find tools", [ping])])
    >>> open_found(scheduler, ["ping"], "srvtoolu_1").unlocked
    ('ping',)
    """
    by_facade: dict[str, list[str]] = {}
    facades = [n for n in search_facades(scheduler) if scheduler.explain(n) is None]
    for name in dict.fromkeys(names):
        for facade in facades:
            if scheduler.graph.facades[facade].search_index.tool(name) is not None:
                by_facade.setdefault(facade, []).append(name)
                break
    unlocked: list[str] = []
    hidden: list[str] = []
    for facade, found in by_facade.items():
        opened = scheduler.graph.facades[facade].select({"names": found})
        if not isinstance(opened, Unfolded):
            continue
        call = ToolCall(call_id, facade, {"names": found})
        changes = scheduler.record(call, ToolResult.artifact(opened, text=""))
        unlocked.extend(changes.unlocked)
        hidden.extend(changes.hidden)
    if not (unlocked or hidden):
        return NOTHING_CHANGED
    return Changes(tuple(unlocked), tuple(hidden))


def unsearched(scheduler: Scheduler, search: str, name: str, text: str) -> str:
    """What a call of ``name`` that may not run (``text``) is told when the provider's
    own search tool ``search`` stands in for the search facades: a tool that search may
    load now is to be searched for with it, one it may not load yet gets what keeps
    it locked (the facade the usual guidance names is not on the wire); any other
    refusal stays ``text``.

    >>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
    >>> scheduler = Scheduler.for_items([Facade.searchable("find_tools", "Find tools", [ping])])
    >>> unsearched(scheduler, "tool_search_tool_bm25", "ping", "Tool 'ping' is locked.")
    "Tool 'ping' is not loaded. Search for it with tool_search_tool_bm25 first."
    """
    for facade in search_facades(scheduler):
        if scheduler.graph.facades[facade].search_index.tool(name) is None:
            continue
        if scheduler.explain(facade) is not None:
            return text
        lock = scheduler.search_lock(facade, name)
        return not_loaded(name, search) if lock is None else lock
    return text


# ---- the run searches -------------------------------------------------------------------


def _searchable(facade: UnfoldingTool) -> bool:
    """A facade a namespace stands for: a plain or a search facade (by-category and
    selectable facades take arguments, so the model calls them as tools)."""
    return facade.search is not None or (
        facade.category_parameter is None and facade.selector is None
    )


def _members(facade: UnfoldingTool) -> tuple[BaseTool, ...]:
    return facade.search_index.tools if facade.search is not None else facade.inner


class SearchRoom:
    """The namespaces of one run, and its searches: bound to the run's scheduler.

    The namespaces are worked out again only when a recorded call, a turn start or a
    removal could change what may show (a request after calls nothing depends on costs
    nothing, and a namespace that did not change stays the same object); the ranking of
    the plain facades' tools is indexed once per set of loadable tools.
    """

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        graph = scheduler.graph
        self.facades: dict[str, UnfoldingTool] = {
            name: facade
            for name, facade in graph.facades.items()
            if _searchable(facade) and name in graph.entries and graph.entries[name].facade is None
        }
        home: dict[str, str] = {}
        for name, facade in self.facades.items():
            for tool in _members(facade):
                home.setdefault(tool.name, name)
        self.home = home
        self.descriptions = {name: f.description for name, f in self.facades.items()}
        self._lock = threading.Lock()
        self._last: tuple[int, SearchSpace] | None = None
        self._index: tuple[frozenset[str], SearchIndex] | None = None

    def loadable(self, name: str) -> tuple[BaseTool, ...]:
        """The tools of facade ``name`` that its unfolding would show now."""
        scheduler = self.scheduler
        members = _members(self.facades[name])
        opened = {tool.name for tool in members}
        return tuple(tool for tool in members if scheduler.would_show(tool.name, opened))

    def space(self) -> SearchSpace:
        """The namespaces to declare now (facades the model can reach, in the design's
        order, with their loadable tools; empty ones left out)."""
        scheduler = self.scheduler
        recorded = scheduler.recorded
        last = self._last
        if last is not None and last[0] == recorded:
            return last[1]
        namespaces = []
        for name, facade in self.facades.items():
            if not scheduler.would_show(name, unfolded=True):
                continue
            tools = self.loadable(name)
            if tools:
                namespaces.append(
                    ToolNamespace(name, facade.description, tuple(t.definition for t in tools))
                )
        if last is not None and tuple(namespaces) == last[1].namespaces:
            space = last[1]  # the same namespaces: the same object, for the adapters
        else:
            kept = {n.name: n for n in last[1].namespaces} if last is not None else {}
            namespaces = [
                kept[n.name] if n.name in kept and kept[n.name] == n else n for n in namespaces
            ]
            space = SearchSpace(tuple(namespaces), self.home, self.descriptions, TOOL_SEARCH)
        self._last = (recorded, space)
        return space

    def _plain_index(self, tools: Sequence[tuple[BaseTool, str]]) -> SearchIndex:
        names = frozenset(tool.name for tool, _ in tools)
        with self._lock:
            if self._index is None or self._index[0] != names:
                index = SearchIndex(
                    [tool for tool, _ in tools], "bm25", paths={t.name: (h,) for t, h in tools}
                )
                self._index = (names, index)
            return self._index[1]

    def refusal(self, name: str, text: str) -> str:
        """What the model is told of a call of ``name`` that may not run (``text``): a
        tool a search could load now is told to be searched for first.

        >>> room.refusal("create_issue", "Tool 'create_issue' is locked.")  # doctest: +SKIP
        "Tool 'create_issue' is not loaded. Search for it with tool_search first."
        """
        home = self.home.get(name)
        if home is None or not self.scheduler.would_show(home, unfolded=True):
            return text
        if any(tool.name == name for tool in self.loadable(home)):
            return not_loaded(name, TOOL_SEARCH)
        return text

    def rank(self, query: str, k: int = MAX_RESULTS) -> list[BaseTool]:
        """The ``k`` loadable tools that best match ``query``: the plain facades' tools
        ranked by BM25, each search facade's by its own ranker (at most its own
        ``max_results``), taken in turn."""
        space = self.space()
        loadable = {t.name for n in space.namespaces for t in n.tools}
        plain: list[tuple[BaseTool, str]] = []
        lists: list[list[BaseTool]] = []
        for namespace in space.namespaces:
            facade = self.facades[namespace.name]
            if facade.search is not None:
                ranked = facade.search_index.rank(query, facade.search.max_results)
                lists.append([tool for tool, _ in ranked if tool.name in loadable])
            else:
                plain.extend((t, namespace.name) for t in facade.inner if t.name in loadable)
        if plain:
            lists.insert(0, [tool for tool, _ in self._plain_index(plain).rank(query)])
        found: list[BaseTool] = []
        for position in range(max((len(lst) for lst in lists), default=0)):
            for ranked_list in lists:
                if position < len(ranked_list) and ranked_list[position] not in found:
                    found.append(ranked_list[position])
        return found[:k]

    def load(self, tools: Sequence[BaseTool]) -> Loaded:
        """What loading ``tools`` unfolds: each plain facade whole, each search facade's
        tools one by one."""
        by_facade: dict[str, list[BaseTool]] = {}
        for tool in tools:
            by_facade.setdefault(self.home[tool.name], []).append(tool)
        unfolds: list[Unfolded] = []
        for name, found in by_facade.items():
            facade = self.facades[name]
            if facade.search is not None:
                chosen = select_names(facade, {"names": [t.name for t in found]})
            else:
                chosen = select(facade, {})
            if isinstance(chosen, Unfolded):
                opened = {t.name for t in self.loadable(name)}
                kept = tuple(t for t in chosen.tools if t.name in opened)
                unfolds.append(attrs.evolve(chosen, tools=kept))
        return Loaded(tuple(unfolds))


def _line(tool: BaseTool, home: str) -> str:
    return f"- {tool.name} ({home}): {first_sentence(tool.description)}"


def _answer(room: SearchRoom, header: str, found: Sequence[BaseTool], misses: str) -> ToolResult:
    if not found:
        return ToolResult.text(f"{header}\n{misses}" if header else misses)
    loaded = room.load(found)
    opened = [name for unfolded in loaded.unfolds for name in unfolded.names]
    lines = [header, *(_line(t, room.home[t.name]) for t in found)] if header else []
    lines.append(f"{LOADED}{', '.join(opened)}." if opened else "No tool was loaded.")
    return ToolResult(content="\n".join(lines), value=loaded)


@attrs.frozen(kw_only=True)
class ToolSearch(BaseTool):
    """The run's search tool (see the module's docstring): ``query`` searches the
    namespaces, ``names`` loads tools by name. Outside a run it has nothing to search.

    >>> print(TOOL_SEARCH_TOOL.call({"query": "ping"}).text)
    tool_search searches the namespaces of a run; there is none here.
    """

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Search, or load by name, and say what was loaded."""
        room = context.get(SEARCH_ROOM_KEY) if isinstance(context, Mapping) else None
        if not isinstance(room, SearchRoom):
            return ToolResult.error(
                f"{self.name} searches the namespaces of a run; there is none here."
            )
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        names = parsed.get("names")
        if isinstance(names, list) and names:
            loadable = {t.name: t for n in room.space().namespaces for t in room.loadable(n.name)}
            found = [loadable[n] for n in dict.fromkeys(map(str, names)) if n in loadable]
            missing = [str(n) for n in names if str(n) not in loadable]
            header = "Tools loaded by name:" if found else ""
            text = f"Not loadable now: {', '.join(missing)}." if missing else ""
            result = _answer(room, header, found, text or "No tool was loaded.")
            if found and missing:
                return attrs.evolve(result, content=f"{result.content}\n{text}")
            return result
        query = str(parsed.get("query") or "").strip()
        if not query:
            return ToolResult.error(
                f"Tool '{self.name}' needs a query (words describing the tools you need)."
            )
        found = room.rank(query)
        return _answer(
            room,
            f'Tools matching "{query}", best first:',
            found,
            f'No loadable tool matches "{query}". Try other words.',
        )


TOOL_SEARCH_TOOL = ToolSearch(
    name=TOOL_SEARCH,
    description="Search the namespaces for the tools you need and load them.",
    input_schema=InputSchema.of(
        Parameter.string("query", "Words describing the tools you need", required=False),
        Parameter.array("names", "Exact names of tools to load", str, required=False),
    ),
)
"""The one search tool every run in a ``tool_search`` mode registers (one object, so
runs of the same tools share their compiled design)."""
