"""The visibility rule: whether a tool shows at one moment of a run.

The scheduler asks it about the run's concrete state; :func:`~statetools.explore` asks
it about each abstract state it searches. Both answer the same :class:`Moment`
questions their own way (counts or their bounds, the facades unfolded so far) and then
call these functions, so analysis and runs cannot disagree on the rule itself. What a
fresh run shows first is worked out with the same rule when a graph is compiled
(:func:`fresh_start`).

A registered tool shows when all of:

- it was not removed from the run;
- no exclusive facade put it away (it is inside the one in force, or is that one);
- the facade around it (if any) revealed it and is usable itself, whatever the
  exclusive scope (an exclusive facade nested in others keeps its tools);
- its machine is in one of its states (unless it is a global tool of the machine);
- its condition holds;
- it is not a facade that unfolded and so gave way to its tools.

>>> class Fresh:
...     machines, removed, facades = {}, (), False
...     def holds(self, condition): return False
...     def in_scope(self, name): return True
...     def enclosing(self, name): return None
...     def revealed(self, name): return False
...     def replaced(self, name): return False
>>> search = Tool.create("search", "Search", lambda: "found")
>>> analyze = Tool.create("analyze", "Analyze", lambda: "ok")
>>> graph = disclosure_graph(
...     PlaybookTool("p", "P").with_tool(search).with_tool(analyze).unlocked_by(search)
... )
>>> [name for name in graph.entries if shows(graph.entries, name, Fresh())]
['search']
"""

from __future__ import annotations

from collections.abc import Collection, Container, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from statetools.definitions.conditions import Condition, holds
from statetools.engine.visible_tools import Shown

if TYPE_CHECKING:
    from statetools.engine.graph_index import ToolEntry


class Moment(Protocol):
    """What the rule needs to know about one moment of a run: the machines' current
    states, the names removed from the run, whether the design has facades at all
    (without, the facade questions are never asked), and the answers below.

    A Protocol because several unrelated classes answer it: a run's ``RunFacts``,
    :class:`Opened`, a fresh run's moment, and ``review``'s explorer (a higher layer).
    """

    @property
    def machines(self) -> Mapping[str, str]:
        """Machine name -> its current state."""
        ...

    @property
    def removed(self) -> Container[str]:
        """Names removed from the run."""
        ...

    @property
    def facades(self) -> bool:
        """Whether the design has facades."""
        ...

    def holds(self, condition: Condition) -> bool:
        """Whether ``condition`` holds now."""
        ...

    def in_scope(self, name: str) -> bool:
        """False when an exclusive facade unfolded and ``name`` is not inside it."""
        ...

    def enclosing(self, name: str) -> str | None:
        """The facade around ``name`` (None at the top level)."""
        ...

    def revealed(self, name: str) -> bool:
        """Whether the facade around ``name`` (or a search above it) opened it."""
        ...

    def replaced(self, name: str) -> bool:
        """Whether ``name`` is a facade that unfolded and gave way to its tools."""
        ...


def own_rules_hold(entry: ToolEntry, moment: Moment) -> bool:
    """Whether a registered tool's machine state and condition let it show."""
    if (
        entry.machine is not None
        and not entry.is_global
        and moment.machines.get(entry.machine) not in entry.states
    ):
        return False
    return entry.condition is None or moment.holds(entry.condition)


def usable(
    entries: Mapping[str, ToolEntry],
    name: str,
    moment: Moment,
    *,
    scoped: bool = True,
    places: Mapping[str, Sequence[ToolEntry]] | None = None,
) -> bool:
    """Whether ``name`` may be called now, counting an unfolded facade as usable (its
    tools may show). ``scoped=False`` ignores the exclusive scope (asked of the facades
    around a tool). A tool that is not registered (built by a selectable facade) needs
    only its facades. A tool with several ``places`` (the graph's ``places``: one tool
    in a facade and a state, in two playbooks) is usable while any place lets it."""
    if name in moment.removed:
        return False
    several = places.get(name) if places else None
    if several:
        return any(_place_usable(entries, name, p, moment, scoped, places) for p in several)
    if moment.facades:
        if scoped and not moment.in_scope(name):
            return False
        parent = moment.enclosing(name)
        if parent is not None and not (
            moment.revealed(name) and usable(entries, parent, moment, scoped=False, places=places)
        ):
            return False
    entry = entries.get(name)
    return entry is None or own_rules_hold(entry, moment)


def _place_usable(
    entries: Mapping[str, ToolEntry],
    name: str,
    entry: ToolEntry,
    moment: Moment,
    scoped: bool,
    places: Mapping[str, Sequence[ToolEntry]] | None,
) -> bool:
    """Whether one place of a tool lets it show: its facade, machine state, condition."""
    if moment.facades:
        if scoped and not moment.in_scope(name):
            return False
        if entry.facade is not None and not (
            moment.revealed(name)
            and usable(entries, entry.facade, moment, scoped=False, places=places)
        ):
            return False
    return own_rules_hold(entry, moment)


def shows(
    entries: Mapping[str, ToolEntry],
    name: str,
    moment: Moment,
    places: Mapping[str, Sequence[ToolEntry]] | None = None,
) -> bool:
    """Whether ``name`` is among the tools sent to the model now."""
    return usable(entries, name, moment, places=places) and not (
        moment.facades and moment.replaced(name)
    )


class Opened:
    """A :class:`Moment` in which the tools in ``opened`` count as revealed by their
    facades (what a search that loads them would show), the rest as ``moment`` says.

    >>> class Now:
    ...     def revealed(self, name): return False
    >>> Opened(Now(), {"ping"}).revealed("ping"), Opened(Now(), {"ping"}).revealed("pong")
    (True, False)
    """

    __slots__ = ("_moment", "_opened")

    def __init__(self, moment: Moment, opened: Container[str]) -> None:
        self._moment = moment
        self._opened = opened

    @property
    def machines(self) -> Mapping[str, str]:
        return self._moment.machines

    @property
    def removed(self) -> Container[str]:
        return self._moment.removed

    @property
    def facades(self) -> bool:
        return self._moment.facades

    def holds(self, condition: Condition) -> bool:
        return self._moment.holds(condition)

    def in_scope(self, name: str) -> bool:
        return self._moment.in_scope(name)

    def enclosing(self, name: str) -> str | None:
        return self._moment.enclosing(name)

    def revealed(self, name: str) -> bool:
        return name in self._opened or self._moment.revealed(name)

    def replaced(self, name: str) -> bool:
        return self._moment.replaced(name)


class _FreshMoment:
    """A fresh run as conditions and the visibility rule read it."""

    __slots__ = ("_entries", "facades", "machines")

    removed: Collection[str] = ()
    context: Mapping[str, Any] = {}

    def __init__(
        self, entries: Mapping[str, ToolEntry], machines: Mapping[str, str], facades: bool
    ) -> None:
        self._entries = entries
        self.machines = machines
        self.facades = facades

    def calls(self, tool: str) -> int:
        return 0

    def machine_state(self, machine: str) -> str | None:
        return self.machines.get(machine)

    def seen_artifact(self, key: str) -> bool:
        return False

    def seen_on_blackboard(self, key: str) -> bool:
        return False

    def holds(self, condition: Condition) -> bool:
        return holds(condition, self)

    def in_scope(self, name: str) -> bool:
        return True

    def enclosing(self, name: str) -> str | None:
        entry = self._entries.get(name)
        return entry.facade if entry is not None else None

    def revealed(self, name: str) -> bool:
        return False

    def replaced(self, name: str) -> bool:
        return False


def fresh_start(
    entries: Mapping[str, ToolEntry],
    places: Mapping[str, Sequence[ToolEntry]],
    machines: Mapping[str, str],
    when_tools: Collection[str],
    *,
    facades: bool,
) -> tuple[tuple[str, ...], Shown | None]:
    """The tools a fresh run shows, apart from ``When`` tools, in registration order;
    and what it shows first when no tool has a ``When`` condition (else None).
    ``machines`` gives each machine's initial state.

    A fresh run has no calls, no artifacts, no blackboard values and no unfolds, and
    its machines are in their initial states. ``When`` conditions are left out: they
    may depend on the run's context, so each run checks them itself. Worked out once
    when the graph is compiled (so a run never writes to the graph, and every fresh
    run starts from the same objects).

    >>> search = Tool.create("search", "Search", lambda: "found")
    >>> analyze = Tool.create("analyze", "Analyze", lambda: "ok")
    >>> graph = disclosure_graph(
    ...     PlaybookTool("p", "P").with_tool(search).with_tool(analyze).unlocked_by(search)
    ... )
    >>> graph.initial_visible, graph.initial_shown.names
    (('search',), ('search',))
    """
    moment = _FreshMoment(entries, machines, facades)
    names = tuple(
        name for name in entries if name not in when_tools and shows(entries, name, moment, places)
    )
    shown = None if when_tools else Shown.of(entries[name].tool for name in names)
    return names, shown
