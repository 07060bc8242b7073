"""Search facades: the model searches a large group of tools and only the matches open.

A search facade (``UnfoldingTool.searchable``) takes ``query`` (words) and/or ``names``
(exact tool names). It ranks every tool below it with its ranker (BM25 by default; see
:mod:`statetools.search`) over what a model would match of each tool (its name split
into words, description, parameters, category, the facades it sits in, example values
and keywords), lists the best matches and opens only those, after the tools already
shown. The facade itself stays visible,
so the model can search again. Inside a run the scheduler passes a ``locked`` function:
matches that a condition, a state or an enclosing facade keeps locked are listed with
what to do first, and open only once unlocked (those right below the search facade,
kept by a condition or a state; the scheduler's ``waits``). A locked match brings the
tools of the search that
its conditions still wait for (the scheduler's ``needs``): they are listed just before
it, in the order to call them, and opened when they may be.

The ranker's index (:mod:`statetools.definitions.search_index`) is built on the first
query and kept with the facade definition, never rebuilt per turn. A search that finds
nothing names the groups below the facade (nested facades, playbooks and machines) or,
without groups, the categories of its tools, so that one more request finds it.

>>> issues = UnfoldingTool.of("issues", "Open the issue tools.", [Tool.create("a", "A", lambda: 1)])
>>> finder = UnfoldingTool.searchable("find", "Find tools", [issues])
>>> groups_line(finder.search_index)
'Groups: issues (Open the issue tools.).'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs

from statetools.definitions.search_index import SearchIndex
from statetools.definitions.unfold_call import Unfolded, fitting, ignored_note, taken
from statetools.tools.calling import (
    Arguments,
    Context,
    ToolResult,
    invalid_arguments,
    parse_arguments,
)
from statetools.tools.descriptions import first_sentence
from statetools.tools.tool import BaseTool
from statetools.tools.validation import argument_problems
from statetools.tools.wrappers import WrapperTool

if TYPE_CHECKING:
    from statetools.definitions.unfolding import UnfoldingTool

__all__ = [
    "Locked",
    "Needs",
    "Waits",
    "SearchCall",
    "groups_line",
    "run_search",
]

Locked = Callable[[str], str | None]
"""Why a tool found by a search may not open now (None when it may)."""

Needs = Callable[[str], Sequence[str]]
"""The tools a locked tool found by a search waits for (the calls its conditions need)."""

Waits = Callable[[str], bool]
"""Whether a locked tool found by a search opens by itself once it is unlocked."""

_MAX_QUERY = 200
_MOST = 12


def _invalid(facade: UnfoldingTool, problems: Sequence[str]) -> str:
    return invalid_arguments(facade.name, problems)


def _words_of(arguments: Mapping[str, Any]) -> str:
    """A query from arguments meant for some tool: their names and text values."""
    parts = [str(key) for key in arguments]
    parts += [value for value in arguments.values() if isinstance(value, str)]
    return " ".join(" ".join(parts).split())[:_MAX_QUERY]


def select_names(facade: UnfoldingTool, arguments: Mapping[str, Any]) -> Unfolded | str:
    """The tools ``names`` asks for, opened without a search (a resumed run replays
    the names a search opened); the text of what is wrong otherwise."""
    index = facade.search_index
    names = arguments.get("names") or []
    tools = [index.tool(name) for name in names]
    missing = [name for name, tool in zip(names, tools, strict=True) if tool is None]
    if missing or not isinstance(names, list):
        return f"Tool '{facade.name}' has no tools named {', '.join(map(str, missing))}."
    return Unfolded(facade.name, tuple(t for t in tools if t is not None), {"names": names})


def groups_line(index: SearchIndex) -> str:
    """One line naming the groups below a search facade, or the categories of its tools
    (at most twelve); empty when there are neither.

    >>> finder = UnfoldingTool.searchable("find", "Find", [
    ...     Tool.create("a", "A", lambda: 1, metadata={"category": "files"}),
    ...     Tool.create("b", "B", lambda: 1, metadata={"category": "math"})])
    >>> groups_line(finder.search_index)
    'Categories: files, math.'
    """
    groups = list(dict.fromkeys(s for t in index.tools for s in index.path_of(t.name)[:1]))
    if groups:
        described = []
        for name in groups[:_MOST]:
            tool = index.tool(name)
            summary = first_sentence(tool.description) if tool is not None else ""
            described.append(f"{name} ({summary})" if summary else name)
        more = f" and {len(groups) - _MOST} more" if len(groups) > _MOST else ""
        return f"Groups: {', '.join(described)}{more}."
    categories = list(dict.fromkeys(t.metadata.category for t in index.tools))
    named = [c for c in categories if c]
    if not named:
        return ""
    more = f" and {len(named) - _MOST} more" if len(named) > _MOST else ""
    return f"Categories: {', '.join(named[:_MOST])}{more}."


def nothing_found(index: SearchIndex, query: str) -> str:
    """What a search that found nothing says: the closest names, and the groups below
    the facade (or the categories of its tools), so the next request can find it."""
    closest = index.closest(query)
    hint = f" Closest names: {', '.join(closest)}." if closest else ""
    groups = groups_line(index)
    if groups.startswith("Groups:"):
        return (
            f'No tool matches "{query}".{hint} {groups} '
            "Try other words, or names for a group or tool."
        )
    groups = f" {groups}" if groups else ""
    return f'No tool matches "{query}".{hint}{groups} Try other words.'


def _line(tool: BaseTool, reason: str | None, summary: str) -> str:
    if reason is None:
        return f"- {tool.name}: {summary}"
    prefix = f"Tool '{tool.name}' is locked. "
    guidance = reason[len(prefix) :] if reason.startswith(prefix) else reason
    stop = "" if summary.endswith((".", "!", "?")) else "."
    return f"- {tool.name} (locked): {summary}{stop} {guidance}"


def _unknown(index: SearchIndex, name: str) -> str:
    closest = index.closest(name, by_word=False)
    hint = f" Closest names: {', '.join(closest)}." if closest else ""
    return f"- {name}: no tool has this name.{hint}"


def _header(query: str, names: Sequence[str]) -> str:
    parts = []
    if names:
        parts.append("asked for by name")
    if query:
        parts.append(f'matching "{query}", best first')
    return f"Tools {', then tools '.join(parts)}:"


def _bring(
    tool: BaseTool,
    into: list[BaseTool | str],
    index: SearchIndex,
    reason_of: Callable[[BaseTool], str | None],
    needs: Needs | None,
    seen: frozenset[str] = frozenset(),
) -> None:
    """Add ``tool`` to ``into``, after the tools of the search it still waits for when
    it is locked (theirs first, and so on: the order to call them in)."""
    if tool in into:
        return
    if needs is not None and reason_of(tool) is not None:
        for name in needs(tool.name):
            needed = index.tool(name)
            if needed is not None and name not in seen:
                _bring(needed, into, index, reason_of, needs, seen | {tool.name})
    into.append(tool)


async def run_search(
    facade: UnfoldingTool,
    arguments: Arguments = None,
    locked: Locked | None = None,
    needs: Needs | None = None,
    waits: Waits | None = None,
) -> ToolResult:
    """Search ``facade``: list the matches and open those ``locked`` lets open (all of
    them without ``locked``, as when the facade is called outside a run). A locked
    match brings the tools of the search that ``needs`` says it waits for: they are
    listed (and opened, when they may be) just before it, on top of ``max_results``.
    A locked match that ``waits`` says opens by itself once unlocked is opened too: it
    shows as soon as what it waits for is done."""
    parsed = parse_arguments(facade.name, arguments)
    if isinstance(parsed, str):
        return ToolResult.error(parsed)
    own = taken(facade.input_schema)
    ignored = {k: v for k, v in parsed.items() if k not in own}
    kept = {k: v for k, v in parsed.items() if k in own}
    problems = argument_problems(facade.validator, kept)
    if problems:
        return ToolResult.error(_invalid(facade, argument_problems(facade.validator, parsed)))
    assert facade.search is not None
    index = facade.search_index
    query = str(kept.get("query") or "").strip()
    names: list[str] = list(dict.fromkeys(kept.get("names") or []))
    note = None
    if ignored:
        fits = fitting(index.tools, ignored)
        fit = fits[0] if len(fits) == 1 else None
        if not query and not names:  # search with what the model sent instead
            names, query = ([fit.name], "") if fit else ([], _words_of(ignored))
        note = ignored_note(facade.name, facade.input_schema, ignored, fit)
        if fit is None and query and not kept:
            note = f'{note} Searched for "{query}" instead.'
    if not query and not names:
        return ToolResult.error(
            f"Tool '{facade.name}' needs a query (words describing the tools you need) "
            "or names (exact tool names)."
        )
    reasons: dict[str, str | None] = {}

    def reason_of(tool: BaseTool) -> str | None:
        if tool.name not in reasons:
            reasons[tool.name] = locked(tool.name) if locked is not None else None
        return reasons[tool.name]

    found: list[BaseTool | str] = []
    for name in names:
        tool = index.tool(name)
        if tool is None:
            found.append(name)
        else:
            _bring(tool, found, index, reason_of, needs)
    if query:
        wanted = facade.search.max_results + len(found)
        ranked = [tool for tool, _ in index.rank(query, wanted) if tool not in found]
        if not ranked and not names:
            text = nothing_found(index, query)
            return ToolResult.text(f"{note}\n{text}" if note else text)
        for tool in ranked[: facade.search.max_results]:
            _bring(tool, found, index, reason_of, needs)
    lines: list[str] = []
    opened: list[BaseTool] = []
    waiting: list[BaseTool] = []
    for item in found:
        if isinstance(item, str):
            lines.append(_unknown(index, item))
            continue
        reason = reason_of(item)
        lines.append(_line(item, reason, index.summary(item.name)))
        if reason is None:
            opened.append(item)
        elif waits is not None and waits(item.name):
            waiting.append(item)
    if note:
        lines.append(note)
    if not opened and not waiting:
        return ToolResult.text("\n".join([_header(query, names), *lines, "No tool was opened."]))
    footer = (
        f"Tools now available: {', '.join(tool.name for tool in opened)}."
        if opened
        else "No tool is available yet."
    )
    if waiting:
        footer = f"{footer} Opening once unlocked: {', '.join(t.name for t in waiting)}."
    if facade.usage_notes:
        footer = f"{footer}\n\n{facade.usage_notes}"
    both = [item for item in found if item in opened or item in waiting]
    value = Unfolded(facade.name, tuple(both), {"names": [t.name for t in both]})
    return ToolResult(content="\n".join([_header(query, names), *lines, footer]), value=value)


@attrs.frozen(kw_only=True)
class SearchCall(WrapperTool):
    """A search facade as a run calls it: ``locked`` (from the run's scheduler) keeps
    locked matches closed, ``needs`` brings what they wait for and ``waits`` says which
    of them open by themselves once unlocked.

    >>> facade = UnfoldingTool.searchable("find", "Find tools", [Tool.create("a", "A", lambda: 1)])
    >>> print(SearchCall.around(facade, locked=lambda name: None).call({"names": ["a"]}).text)
    Tools asked for by name:
    - a: A
    Tools now available: a.
    """

    locked: Locked = attrs.field(eq=False)
    needs: Needs | None = attrs.field(default=None, eq=False)
    waits: Waits | None = attrs.field(default=None, eq=False)

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Search the wrapped facade."""
        facade = cast("UnfoldingTool", self.delegate)  # SearchCall.around wraps a search facade
        return await run_search(facade, arguments, self.locked, self.needs, self.waits)
