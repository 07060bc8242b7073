"""The picture of a design, independent of the output language (DOT or Mermaid):
nodes, edges and clusters with stable, escaped ids; and the marks a run's trace puts
on it: the calls of each tool numbered as the transcript numbers them, transitions
taken, current states, tools unlocked.

>>> node_id("section", "read_section", "billing")
'section_read_section__billing'
>>> marks = read_marks([ToolCalled(1, "c1", "search", {"q": "x"}, "text", 0.1)])
>>> [step.number for step in marks.steps["search"]], marks.calls[0][1]
(['1.1'], {'q': 'x'})
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs

from statetools.engine.events import (
    CallBlocked,
    Event,
    StateEntered,
    ToolCalled,
    ToolNotFound,
    ToolsUnlocked,
    Trace,
)


@attrs.frozen
class Step:
    """A call of the trace: its turn, its place among the turn's calls, and how it went.

    Numbered as the transcript numbers turns: ``8.1`` is the first call of turn 8.

    >>> Step(8, 1, "ok").number
    '8.1'
    """

    turn: int
    call: int
    outcome: Literal["ok", "error", "blocked"]

    @property
    def number(self) -> str:
        """``turn.call``, e.g. ``8.1``."""
        return f"{self.turn}.{self.call}"


@attrs.frozen
class Marks:
    """What a trace says happened: steps per tool, transitions, current states."""

    steps: dict[str, list[Step]]
    transitions: dict[tuple[str, str, str, str], list[str]]
    current: dict[str, str]
    unlocked: set[str]
    calls: list[tuple[str, Mapping[str, Any], Step]] = attrs.Factory(list)
    """Every call that ran: (tool, arguments, step), in order."""
    states: list[tuple[str, Step, dict[str, str]]] = attrs.Factory(list)
    """Every step with the states machines were in when it was made (a machine missing
    had entered no state yet: it was in its initial state)."""

    def steps_in(self, tool: str, machine: str, state: str, initial: str) -> list[Step]:
        """The steps of ``tool`` made while ``machine`` was in ``state`` (a blocked call
        ran in no state: it shows in every state that holds the tool).

        >>> marks = read_marks([ToolCalled(1, "c1", "close", {}, "ok", 0.1)])
        >>> marks.steps_in("close", "ticket", "OPEN", "OPEN"), marks.steps_in("close", "ticket", "DONE", "OPEN")
        ([Step(turn=1, call=1, outcome='ok')], [])
        """  # noqa: E501
        return [
            step
            for name, step, states in self.states
            if name == tool and (step.outcome == "blocked" or states.get(machine, initial) == state)
        ]


def read_marks(trace: Trace | Sequence[Event] | Sequence[dict[str, Any]] | None) -> Marks | None:
    """What ``trace`` (a :class:`~statetools.Trace`, its events, or its ``to_json()``
    list) says happened; None without a trace.

    >>> read_marks(None) is None
    True
    >>> marks = read_marks([ToolCalled(2, "c1", "search", {}, "found", 0.1)])
    >>> marks.steps["search"], marks.unlocked
    ([Step(turn=2, call=1, outcome='ok')], set())
    """
    if trace is None:
        return None
    events: Iterable[Any] = trace
    if isinstance(trace, Sequence) and trace and isinstance(trace[0], dict):
        events = Trace.from_json(list(trace))  # type: ignore[arg-type]
    steps: dict[str, list[Step]] = {}
    transitions: dict[tuple[str, str, str, str], list[str]] = {}
    current: dict[str, str] = {}
    unlocked: set[str] = set()
    calls_made: list[tuple[str, Mapping[str, Any], Step]] = []
    in_states: list[tuple[str, Step, dict[str, str]]] = []
    calls: dict[int, int] = {}
    """Calls seen so far in each turn."""
    number = ""
    last_tool = ""
    for event in events:
        if isinstance(event, ToolCalled | CallBlocked | ToolNotFound):
            calls[event.iteration] = calls.get(event.iteration, 0) + 1
            step = Step(event.iteration, calls[event.iteration], "ok")
            number = step.number
            if isinstance(event, ToolCalled):
                last_tool = event.name
                failed = event.outcome == "error"
                made = attrs.evolve(step, outcome="error") if failed else step
                steps.setdefault(event.name, []).append(made)
                calls_made.append((event.name, event.arguments, made))
                in_states.append((event.name, made, dict(current)))
            elif isinstance(event, CallBlocked):
                blocked = attrs.evolve(step, outcome="blocked")
                steps.setdefault(event.name, []).append(blocked)
                in_states.append((event.name, blocked, dict(current)))
        elif isinstance(event, StateEntered):
            key = (event.machine, event.previous, event.state, last_tool)
            transitions.setdefault(key, []).append(number)
            current[event.machine] = event.state
        elif isinstance(event, ToolsUnlocked):
            unlocked.update(event.names)
    return Marks(steps, transitions, current, unlocked, calls_made, in_states)


NodeKind = Literal[
    "tool",
    "facade",
    "state",
    "global",
    "start",
    "leaf",
    "gate",
    "missing",
    "template",
    "section",
]
EdgeKind = Literal["condition", "in_state", "transition", "unfolds", "start", "chain", "expands"]
ClusterKind = Literal["playbook", "machine", "facade", "sections"]

_SAFE = re.compile(r"[^A-Za-z0-9_]")
COLUMN = 8
"""Tools per column inside a facade's box."""


def node_id(kind: str, *parts: str) -> str:
    """A DOT/Mermaid-safe id: ``tool_search``; names with other characters get a hash.

    Ids never contain ``:`` (which DOT reads as a port) and are the same on every run.

    >>> node_id("tool", "search"), node_id("state", "order", "DRAFT")
    ('tool_search', 'state_order__DRAFT')
    >>> node_id("tool", "a:b")
    'tool_a_b_dcea6d'
    """
    cleaned = [_SAFE.sub("_", part) for part in parts]
    text = "__".join([kind, *cleaned]).replace(f"{kind}__", f"{kind}_", 1)
    if cleaned != list(parts) or any("__" in part for part in parts):
        digest = hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:6]
        text = f"{text}_{digest}"
    return text


@attrs.define
class Row:
    """A tool listed inside a state (or the every-state box) of a machine."""

    tool: str
    port: str
    steps: list[Step] = attrs.Factory(list)


@attrs.define
class Node:
    """A box, state, gate or marker of the picture."""

    id: str
    kind: NodeKind
    title: str
    locked: bool = False
    initial: bool = False
    final: bool = False
    current: bool = False
    rows: list[Row] = attrs.Factory(list)
    steps: list[Step] = attrs.Factory(list)
    tooltip: str | None = None
    note: str | None = None


@attrs.define
class Edge:
    """An arrow: a condition, a transition, an unfolding, the start marker."""

    source: str
    target: str
    kind: EdgeKind
    label: str | None = None
    tail_port: str | None = None
    lhead: str | None = None
    taken: bool = False
    taken_lines: frozenset[int] = frozenset()
    """Lines of a several-line label that the run took (the others are not highlighted)."""


@attrs.define
class Cluster:
    """A playbook, machine or facade box holding nodes and inner clusters."""

    id: str
    kind: ClusterKind
    name: str
    note: str | None = None
    nodes: list[str] = attrs.Factory(list)
    clusters: list[Cluster] = attrs.Factory(list)
    columns: list[list[str]] = attrs.Factory(list)
    """A facade's tools in columns of at most :data:`COLUMN` (drawn side by side)."""

    @property
    def title(self) -> str:
        """``playbook research``, ``facade files (exclusive)``."""
        note = f" ({self.note})" if self.note else ""
        return f"{self.kind} {self.name}{note}"


@attrs.define
class Scene:
    """Everything to draw, in a stable order."""

    nodes: dict[str, Node] = attrs.Factory(dict)
    edges: list[Edge] = attrs.Factory(list)
    clusters: list[Cluster] = attrs.Factory(list)
    top: list[str] = attrs.Factory(list)
    traced: bool = False
