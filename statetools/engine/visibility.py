"""The visibility rule: whether a tool shows at one moment of a run.

The scheduler asks it about the run's concrete state; :func:`~statetools.explore` asks
it about each abstract state it searches. Both answer the same :class:`Moment`
questions their own way (counts or their bounds, the facades unfolded so far) and then
call these functions, so analysis and runs cannot disagree on the rule itself.

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

from collections.abc import Container, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from statetools.definitions.conditions import Condition

if TYPE_CHECKING:
    from statetools.engine.nodes import ToolEntry


class Moment(Protocol):
    """What the rule needs to know about one moment of a run: the machines' current
    states, the names removed from the run, whether the design has facades at all
    (without, the facade questions are never asked), and the answers below."""

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
