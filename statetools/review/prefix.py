"""Prefix breaks per path: where a design's changes re-bill the provider's prompt cache.

A provider caches a request's prefix (tools first). A tools array that changes before
its end ends the cached prefix there. Along every path the abstract search finds, this
module counts those breaks in the default disclosure mode (tools that stay visible keep
their positions, new ones are appended, as the scheduler sends them) and, for
comparison, with the visible tools in registration order and in OpenAI's
``tool_search`` mode (each plain or search facade the run can reach a namespace of the
tools it may load; searching changes nothing, the design's locks do).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

import attrs

from statetools.review.explore import DEFAULT_MAX_STATES
from statetools.review.model import DesignView, as_graph
from statetools.review.space import AbstractState, Space


@attrs.frozen
class PathBreaks:
    """The tools arrays along one path, and the prefix breaks they cause.

    ``path`` are the calls from the start; ``arrays`` the tools sent before each call
    and after the last, in the default mode's order; ``breaks`` counts the requests
    whose array differs from the one before before its end; ``registration_breaks``
    the same with every array in registration order.

    >>> [p.breaks for p in prefix_breaks(design)]  # doctest: +SKIP
    [0, 0, 1]
    """

    path: tuple[str, ...]
    arrays: tuple[tuple[str, ...], ...]
    breaks: int
    registration_breaks: int
    search_breaks: int = 0
    """The same in OpenAI's ``tool_search`` mode (see :func:`search_array`)."""


def stable_next(before: Sequence[str], visible: Sequence[str]) -> tuple[str, ...]:
    """The next array in the default mode: what stays keeps its place, the rest of
    ``visible`` (in its order) is appended.

    >>> stable_next(["a", "b", "c"], ["a", "c", "d"])
    ('a', 'c', 'd')
    """
    now = set(visible)
    kept = [name for name in before if name in now]
    shown = set(kept)
    return (*kept, *(name for name in visible if name not in shown))


def search_array(space: Space, state: AbstractState, visible: Sequence[str]) -> tuple[str, ...]:
    """The ``tools`` array of ``tool_search`` mode in ``state``, one entry per tool
    (its name) or namespace (``facade[tools it may load]``), in registration order
    (the caller keeps positions); ``tool_search`` before the first namespace.

    >>> search_array(space, space.start(), ("issues", "ping"))  # doctest: +SKIP
    ('tool_search', 'issues[create_issue,close_issue]', 'ping')
    """
    graph = space.design.graph
    free = next(iter(space.assignments(state)))
    shown = set(visible)
    homes: dict[str, str] = {}
    namespaces: dict[str, tuple[str, ...]] = {}
    reachable = set(space.callable_tools(state, free))
    for name, facade in graph.facades.items():
        entry = graph.entries.get(name)
        plain = facade.category_parameter is None and facade.selector is None
        if entry is None or entry.facade is not None or not (plain or facade.search):
            continue
        members = [t.name for t in (facade.search_index.tools if facade.search else facade.inner)]
        for member in members:
            homes.setdefault(member, name)
        if name in reachable:
            loadable = space.loadable(state, free, members)
            if loadable:
                namespaces[name] = loadable
    out: list[str] = []
    for name in graph.entries:
        if name in namespaces:
            if not any("[" in e for e in out):
                out.append("tool_search")
            out.append(f"{name}[{','.join(namespaces[name])}]")
        elif name in shown and name not in graph.facades and homes.get(name) not in namespaces:
            out.append(name)
    return tuple(out)


def _anchor(entry: str) -> str:
    return entry.partition("[")[0]


def search_next(before: Sequence[str], now: Sequence[str]) -> tuple[str, ...]:
    """The next ``tool_search`` array: entries that stay (by tool or namespace) keep
    their places, in their new form; new ones are appended.

    >>> search_next(["tool_search", "a[x]", "p"], ["tool_search", "a[x,y]", "p", "q"])
    ('tool_search', 'a[x,y]', 'p', 'q')
    """
    current = {_anchor(entry): entry for entry in now}
    kept = [current[_anchor(entry)] for entry in before if _anchor(entry) in current]
    known = {_anchor(entry) for entry in kept}
    return (*kept, *(entry for entry in now if _anchor(entry) not in known))


def breaks_prefix(before: Sequence[str], after: Sequence[str]) -> bool:
    """True if ``after`` differs from ``before`` before the end of ``before``.

    >>> breaks_prefix(["a", "b"], ["a", "b", "c"]), breaks_prefix(["a", "b"], ["b"])
    (False, True)
    """
    return list(after[: len(before)]) != list(before)


def prefix_breaks(graph: Any, *, max_states: int = DEFAULT_MAX_STATES) -> list[PathBreaks]:
    """Prefix breaks along the shortest path to every disclosure state (breadth first,
    at most ``max_states`` states). Conditions analysis cannot decide (``When``,
    artifacts, the blackboard) are taken as in their first combination.

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    >>> [(p.path, p.breaks) for p in prefix_breaks(research.unlocked_by(search))]
    [((), 0), (('search',), 0)]
    """
    space = Space(DesignView(as_graph(graph)))
    start = space.start()

    def shown(state: AbstractState) -> tuple[str, ...]:
        return space.visible(state, next(iter(space.assignments(state))))

    first = shown(start)
    found: dict[AbstractState, PathBreaks] = {start: PathBreaks((), (first,), 0, 0)}
    registration: dict[AbstractState, tuple[str, ...]] = {start: first}
    searching: dict[AbstractState, tuple[str, ...]] = {start: search_array(space, start, first)}
    queue: deque[AbstractState] = deque([start])
    while queue and len(found) < max_states:
        state = queue.popleft()
        here = found[state]
        for tool in here.arrays[-1]:
            for successor, step in space.after(state, tool):
                if successor in found or len(found) >= max_states:
                    continue
                visible = shown(successor)
                array = stable_next(here.arrays[-1], visible)
                before = searching[state]
                after = search_next(before, search_array(space, successor, visible))
                found[successor] = PathBreaks(
                    (*here.path, step),
                    (*here.arrays, array),
                    here.breaks + breaks_prefix(here.arrays[-1], array),
                    here.registration_breaks + breaks_prefix(registration[state], visible),
                    here.search_breaks + breaks_prefix(before, after),
                )
                registration[successor] = visible
                searching[successor] = after
                queue.append(successor)
    return list(found.values())
