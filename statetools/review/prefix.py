"""Prefix breaks per path: where a design's changes re-bill the provider's prompt cache.

A provider caches a request's prefix (tools first). A tools array that changes before
its end ends the cached prefix there. Along every path the abstract search finds, this
module counts those breaks in the default disclosure mode (tools that stay visible keep
their positions, new ones are appended, as the scheduler sends them) and, for
comparison, with the visible tools in registration order.
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
                found[successor] = PathBreaks(
                    (*here.path, step),
                    (*here.arrays, array),
                    here.breaks + breaks_prefix(here.arrays[-1], array),
                    here.registration_breaks + breaks_prefix(registration[state], visible),
                )
                registration[successor] = visible
                queue.append(successor)
    return list(found.values())
