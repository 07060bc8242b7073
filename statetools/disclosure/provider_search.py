"""A provider's own tool search in place of the design's search facades.

With a provider-native tool search (Anthropic's ``tool_search`` disclosure), the
provider searches deferred tool definitions and the model calls what it found
directly. The design's search facades (``Facade.searchable``) say which tools may be
found: :func:`searchable_now` lists, per search facade, the tools below it that a
search may open now (conditions, states and exclusive facades still lock the others),
and :func:`open_found` opens what the provider found exactly as a call of the facade
with ``names`` would, so the unfold is recorded, replayed on resume, and locks hold.
"""

from __future__ import annotations

from collections.abc import Iterable

from statetools.definitions.unfolding import Unfolded
from statetools.disclosure.outcomes import NOTHING_CHANGED, Changes
from statetools.disclosure.scheduler import Scheduler
from statetools.disclosure.tool_search import not_loaded
from statetools.messages import ToolCall
from statetools.tools.result import ToolResult

__all__ = ["open_found", "search_facades", "searchable_now", "unsearched"]


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
