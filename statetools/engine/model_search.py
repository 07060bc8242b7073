"""The run's side of a model that searches tools itself (``ModelCapabilities.searches_tools``).

Such a model is given the run's search tool and a :class:`SearchRoom` (the namespaces it
may search, what a search loads); a call of a tool it could load by searching is refused
with a hint to search for it. :class:`~statetools.engine.Conversation` sets this up from
the model's capabilities.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from statetools.engine.graph import DisclosureGraph
from statetools.engine.scheduler import Scheduler
from statetools.engine.strategies import ToolInjectionStrategy, restored_tool
from statetools.engine.tool_search import (
    SEARCH_ROOM_KEY,
    TOOL_SEARCH,
    TOOL_SEARCH_TOOL,
    SearchRoom,
    unsearched,
)
from statetools.models.base import ModelCapabilities
from statetools.tools.context import ToolCallContext
from statetools.tools.tool import BaseTool

__all__ = ["refusal_wording", "restorer", "search_room", "with_search_room", "with_search_tool"]


def _compiled(items: Sequence[Any]) -> bool:
    """Whether ``items`` is one compiled design (a :class:`DisclosureGraph`)."""
    return len(items) == 1 and isinstance(items[0], DisclosureGraph)


def with_search_tool(items: Sequence[Any], capabilities: ModelCapabilities) -> Sequence[Any]:
    """``items`` and the run's search tool, for a model that searches tools itself (a
    compiled design gets it from :func:`search_room`).

    >>> searching = ModelCapabilities(searches_tools=True)
    >>> [getattr(item, "name", item) for item in with_search_tool(["design"], searching)]
    ['design', 'tool_search']
    """
    if capabilities.searches_tools and not _compiled(items):
        return (*items, TOOL_SEARCH_TOOL)
    return items


def search_room(
    scheduler: Scheduler, items: Sequence[Any], capabilities: ModelCapabilities
) -> SearchRoom | None:
    """The namespaces and searches of a model that searches tools itself, or None; a
    compiled design (``items``) gets the search tool here, added like an injection.

    >>> search_room(Scheduler.for_items([]), [], ModelCapabilities()) is None
    True
    """
    if not capabilities.searches_tools:
        return None
    if _compiled(items) and scheduler.resolve(TOOL_SEARCH) is None:
        scheduler.add([TOOL_SEARCH_TOOL])
    return SearchRoom(scheduler)


def with_search_room(context: ToolCallContext, room: SearchRoom | None) -> ToolCallContext:
    """``context`` with ``room`` in it, for the run's search tool (unchanged when None).

    >>> with_search_room(ToolCallContext({}), None) == ToolCallContext({})
    True
    """
    return context.merge({SEARCH_ROOM_KEY: room}) if room is not None else context


def restorer(
    capabilities: ModelCapabilities, strategy: ToolInjectionStrategy | None
) -> Callable[[str], BaseTool | None] | None:
    """How a resumed run finds a tool it added itself by name (the search tool, a
    strategy's injection), or None when it adds none.

    >>> restorer(ModelCapabilities(), None) is None
    True
    """
    if strategy is None and not capabilities.searches_tools:
        return None
    return partial(_restored_tool, capabilities.searches_tools, strategy)


def _restored_tool(
    searching: bool, strategy: ToolInjectionStrategy | None, name: str
) -> BaseTool | None:
    """The tool named ``name`` that the run added itself, or None."""
    if name == TOOL_SEARCH and searching:
        return TOOL_SEARCH_TOOL
    return restored_tool([strategy], name) if strategy is not None else None


def refusal_wording(
    scheduler: Scheduler, capabilities: ModelCapabilities, room: SearchRoom | None
) -> Callable[[str, str], str] | None:
    """How the model's mode words a refusal: a tool its search could load is to be
    searched for with the search tool it has (None: as the scheduler words it).

    >>> refusal_wording(Scheduler.for_items([]), ModelCapabilities(), None) is None
    True
    """
    if room is not None:
        return room.refusal
    search = capabilities.search_tool
    if search is not None:
        return partial(unsearched, scheduler, search)
    return None
