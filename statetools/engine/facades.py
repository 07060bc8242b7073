"""A run's facades: which ones unfolded, what they revealed, and exclusive scopes.

The scheduler owns one :class:`Facades` and asks it whether a tool inside a facade may
show; :meth:`Facades.apply` records an unfold (from the :class:`Unfolded` value of a
facade's result), :meth:`Facades.replay` repeats the unfolds of a saved state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from statetools.definitions.unfolding import Unfolded, UnfoldingTool
from statetools.tools.calling import Arguments, Context, ToolResult
from statetools.tools.tool import BaseTool
from statetools.tools.wrappers import WrapperTool

if TYPE_CHECKING:
    from statetools.engine.graph import DisclosureGraph


Replay = Callable[[UnfoldingTool, dict[str, Any]], "Unfolded | str"]
"""What a saved unfold of a facade with these arguments opened (see :meth:`Facades.replay`)."""


@attrs.frozen(kw_only=True)
class FacadeRecall(WrapperTool):
    """An unfolded facade called again: lists the tools it opened (or calls one of them
    directly) without unfolding again, so a selector does not run twice."""

    tools: tuple[BaseTool, ...] = ()

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """List the opened tools, or call the one named by an argument."""
        facade = self.delegate
        assert isinstance(facade, UnfoldingTool)
        return await facade.open(arguments, context, current=self.tools)


class _Revealed:
    """The names unfolds revealed: a facade that revealed exactly its registered inner
    tools is kept as its name (a run that opened a 100-tool facade holds one name, not
    a set of 100), anything else name by name."""

    __slots__ = ("graph", "names", "whole")

    def __init__(self, graph: DisclosureGraph) -> None:
        self.graph = graph
        self.names: set[str] = set()
        self.whole: set[str] = set()

    def __contains__(self, name: object) -> bool:
        if name in self.names:
            return True
        if not self.whole or not isinstance(name, str):
            return False
        return any(place.facade in self.whole for place in self.graph.places_of(name))

    def add(self, name: str) -> None:
        """Reveal ``name``."""
        self.names.add(name)


class Facades:
    """Unfold bookkeeping of one run."""

    def __init__(self, graph: DisclosureGraph) -> None:
        self.graph = graph
        self.active = bool(graph.facades)
        self.revealed = _Revealed(graph)
        """Names that an unfold revealed (inner entries and tools built by selectors)."""
        self.built: dict[str, BaseTool] = {}
        """Tools built by selectors, by name."""
        self.owner: dict[str, str] = {}
        """Built tool -> the facade that built it."""
        self.position: dict[str, int] = {}
        """Built tool -> its place after every registered tool (keeps the order stable)."""
        self.opened: dict[str, list[str]] = {}
        """Facade -> the names it opened, in order."""
        self.categories: dict[str, set[str]] = {}
        self.log: list[tuple[str, str]] = []
        """(facade, arguments as JSON) of every unfold that opened something new."""
        self.exclusive: str | None = None
        self.scope: frozenset[str] | None = None
        self.passed: set[str] = set()
        """Facades a search opened only as the way to a tool inside them (not shown)."""

    def enclosing(self, name: str) -> str | None:
        """The facade ``name`` sits in (None at the top level)."""
        entry = self.graph.entries.get(name)
        return entry.facade if entry is not None else self.owner.get(name)

    def replaced(self, name: str) -> bool:
        """Whether ``name`` is a facade that unfolded and so no longer shows (a search
        facade always shows; a facade a search passed through does not)."""
        if name in self.passed:
            return True
        if name not in self.opened:
            return False
        facade = self.graph.facades[name]
        if facade.search is not None or facade.swaps or facade.keeps_shown:
            return False
        if facade.category_parameter is None or facade.exclusive:
            return True
        return len(self.categories.get(name, ())) == len(facade.categories)

    def in_scope(self, name: str) -> bool:
        """False when an exclusive facade unfolded and ``name`` is not inside it."""
        if self.scope is None or name in self.scope or name == self.exclusive:
            return True
        owner = self.owner.get(name)
        return owner is not None and (owner == self.exclusive or owner in self.scope)

    def tool_of(self, name: str) -> BaseTool:
        """The tool shown and run for revealed ``name``."""
        built = self.built.get(name)
        return built if built is not None else self.graph.entries[name].tool

    def apply(
        self, unfolded: Unfolded, taken: Callable[[str], bool]
    ) -> tuple[list[str], list[str], bool]:
        """Record an unfold: (names to re-evaluate, built tools skipped because the
        name is taken, whether an exclusive scope started)."""
        name = unfolded.facade
        facade = self.graph.facades[name]
        if facade.search is not None:
            return self._apply_search(unfolded), [], False
        if facade.swaps:  # full tools in place of the shown tools of the same name
            self.built.update((tool.name, tool) for tool in unfolded.tools)
            if not all(tool.name in self.opened.setdefault(name, []) for tool in unfolded.tools):
                self.opened[name].extend(unfolded.names)
                self.log.append((name, json.dumps(dict(unfolded.arguments), sort_keys=True)))
            return [name, *unfolded.names], [], False
        first = name not in self.opened
        opened = self.opened.setdefault(name, [])
        changed: list[str] = [name]
        skipped: list[str] = []
        new = first
        # exactly the registered inner tools: kept as the facade's name (see _Revealed)
        whole = unfolded.names == self.graph.facade_children.get(name)
        for tool in unfolded.tools:
            entry = next(
                (p for p in self.graph.places_of(tool.name) if p.facade == name),
                self.graph.entries.get(tool.name),
            )
            if entry is None or entry.facade != name:
                if (entry is not None or taken(tool.name)) and self.owner.get(tool.name) != name:
                    skipped.append(tool.name)
                    continue
                self.owner[tool.name] = name
                self.built[tool.name] = tool
                self.position.setdefault(tool.name, len(self.graph.position) + len(self.position))
                whole = False
            elif tool is not entry.tool:
                self.built[tool.name] = tool  # the selector built its own version
                whole = False
            if tool.name not in opened:
                opened.append(tool.name)
                new = True
            changed.append(tool.name)
        if whole:
            self.revealed.whole.add(name)
        else:
            self.revealed.names.update(changed[1:])
        if facade.category_parameter is not None:
            chosen = self.categories.setdefault(name, set())
            for category, members in facade.categories:
                if all(n in self.revealed for n in members):
                    chosen.add(category)
        logged = (name, json.dumps(dict(unfolded.arguments), sort_keys=True))
        if new or (facade.keeps_shown and logged not in self.log):
            self.log.append(logged)
        started = facade.exclusive and first and self.exclusive != name
        if started:
            self.exclusive = name
            self.scope = self.graph.facade_scope(name)
        return changed, skipped, started

    def _apply_search(self, unfolded: Unfolded) -> list[str]:
        """Record what a search opened: each found tool and the facades between it and
        the search facade (those only let it through; they do not show)."""
        name = unfolded.facade
        opened = self.opened.setdefault(name, [])
        changed = [name]
        new = False
        for tool in unfolded.tools:
            chain = [tool.name]
            while (parent := self.enclosing(chain[-1])) not in (name, None):
                chain.append(parent)
            for depth, member in enumerate(chain):
                if member not in self.revealed:
                    self.revealed.add(member)
                    if depth:
                        self.passed.add(member)
                    new = True
                elif not depth and member in self.passed:
                    self.passed.discard(member)  # found itself: now it shows
                    new = True
                changed.append(member)
            if tool.name not in opened:
                opened.append(tool.name)
        if new:
            self.log.append((name, json.dumps(dict(unfolded.arguments), sort_keys=True)))
        return changed

    def with_revealed(self, names: Iterable[str]) -> set[str]:
        """``names`` and what unfolded facades among them revealed (at any depth)."""
        result = set(names)
        stack = [name for name in result if name in self.opened]
        while stack:
            for child in self.opened[stack.pop()]:
                if child not in result:
                    result.add(child)
                    if child in self.opened:
                        stack.append(child)
        return result

    def replay(self, log: Sequence[tuple[str, str]], select: Replay | None = None) -> None:
        """Repeat saved unfolds: ``select(facade, arguments)`` gives what each opened
        (by default the facade's own ``select``: selectors run again with the saved
        arguments)."""
        for name, arguments in log:
            facade = self.graph.facades.get(name)
            if facade is None:
                continue
            parsed = json.loads(arguments)
            unfolded = facade.select(parsed) if select is None else select(facade, parsed)
            if isinstance(unfolded, Unfolded):
                self.apply(unfolded, lambda _: False)

    def recall(self, name: str) -> BaseTool | None:
        """What runs when unfolded facade ``name`` is called again."""
        if name not in self.opened or not self.replaced(name):
            return None
        facade = self.graph.facades[name]
        if facade.category_parameter is not None:
            return facade  # another category may open more
        return FacadeRecall.around(facade, tools=tuple(self._current(name)))

    def _current(self, name: str) -> list[BaseTool]:
        """The tools ``name`` opened, with unfolded inner facades replaced by theirs."""
        tools: list[BaseTool] = []
        for child in self.opened[name]:
            if child in self.opened and self.replaced(child):
                tools.extend(self._current(child))
            else:
                tools.append(self.tool_of(child))
        return tools

    def steps(self, name: str) -> list[str]:
        """The facades to call, outermost first, before ``name`` shows."""
        steps: list[str] = []
        child = name
        parent = self.enclosing(child)
        while parent is not None and child not in self.revealed:
            facade = self.graph.facades[parent]
            if facade.search is not None:  # one search opens the whole way to the tool
                steps[:] = [f'{parent} with names ["{name}"]']
                child, parent = parent, self.enclosing(parent)
                continue
            category = facade.category_of(child)
            steps.insert(
                0, f'{parent} with {facade.category_parameter} "{category}"' if category else parent
            )
            child, parent = parent, self.enclosing(parent)
        return steps

    def reason(self, name: str) -> str | None:
        """Why ``name`` is not shown for facade reasons (None if none of them applies)."""
        if not self.in_scope(name):
            return f"Tool '{name}' is not available: only {self.exclusive}'s tools are in use now."
        steps = self.steps(name)
        if steps:
            return f"Tool '{name}' is locked. Call first: {', then '.join(steps)}."
        return None

    def snapshot(self) -> tuple[tuple[str, str], ...]:
        """The unfold log, for :class:`~statetools.engine.state.DisclosureState`."""
        return tuple(self.log)


def unfolded_value(result: ToolResult) -> Any:
    """The :class:`Unfolded` value of a facade's result, or None."""
    value = result.value
    return value if isinstance(value, Unfolded) else None
