"""What check(), explore() and render() read from a DisclosureGraph.

:class:`DesignView` is a read-only view of a graph with the facts the analyses share:
facades and their nesting, machines, conditions in disjunctive normal form, and a
"may" analysis (:func:`reachability`): which tools may ever be called and which
states may ever be entered, over-approximated (``When``, artifacts and the
blackboard may hold or not at any time; guards may pass or not).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    InState,
    OnArtifact,
    OnBlackboard,
    When,
)
from statetools.definitions.machine import StateMachineTool
from statetools.engine.graph import DisclosureGraph, disclosure_graph
from statetools.engine.graph_index import ToolEntry

Leaf = After | InState | OnArtifact | OnBlackboard | When
Term = tuple[Leaf, ...]
"""A conjunction of leaf conditions."""

MAX_TERMS = 512
"""Conditions whose disjunctive normal form is larger are treated as "may hold"."""


@runtime_checkable
class LoadedDesign(Protocol):
    """A design read from a file (:class:`statetools.spec.Design`, a layer above the
    analyses): it is analysed through its ``tools``."""

    @property
    def definitions(self) -> tuple[Any, ...]:
        """The playbooks and machines of the file."""
        ...

    @property
    def tools(self) -> list[Any]:
        """What a run of the design gets as ``tools=``."""
        ...

    def run_context(self) -> dict[str, Any]:
        """A fresh context for one run."""
        ...


def as_graph(items: Any) -> DisclosureGraph:
    """``items`` if it is a DisclosureGraph, else the graph compiled from it (tools,
    definitions, a list of them, or a design loaded with ``st.load_design``)."""
    if isinstance(items, DisclosureGraph):
        return items
    if isinstance(items, LoadedDesign):
        return disclosure_graph(*items.tools)
    return disclosure_graph(items)


def dnf(condition: Condition) -> list[Term] | None:
    """``condition`` as alternatives of conjunctions; None when that gets too large.

    >>> [len(term) for term in dnf(AllOf(After("a"), AnyOf(After("b"), After("c"))))]
    [2, 2]
    """
    match condition:
        case AllOf(conditions=parts):
            terms: list[Term] = [()]
            for part in parts:
                alternatives = dnf(part)
                if alternatives is None or len(terms) * len(alternatives) > MAX_TERMS:
                    return None
                terms = [left + right for left in terms for right in alternatives]
            return terms
        case AnyOf(conditions=parts):
            result: list[Term] = []
            for part in parts:
                alternatives = dnf(part)
                if alternatives is None or len(result) + len(alternatives) > MAX_TERMS:
                    return None
                result.extend(alternatives)
            return result
        case _:
            return [(condition,)]


def leaves(condition: Condition) -> Iterator[Leaf]:
    """The leaf conditions of ``condition``, depth first."""
    if isinstance(condition, AllOf | AnyOf):
        for part in condition.conditions:
            yield from leaves(part)
    else:
        yield condition


def free_key(leaf: Leaf) -> str | None:
    """The key of a condition the analyses cannot decide (None for decidable ones)."""
    match leaf:
        case When(label=label):
            return f"when {label}"
        case OnArtifact():
            return f"artifact {leaf.key}"
        case OnBlackboard():
            return f"blackboard {leaf.key}"
    return None


@attrs.frozen
class Facade:
    """An unfolding tool: calling ``name`` reveals ``inner`` (one level).

    ``categories`` (by-category facades): ``(category, member names)`` pairs, and the
    call opens one category; ``selectable``: a selector picks the tools (it may also
    build new ones); ``exclusive``: after unfolding only its tools remain;
    ``searchable``: the model searches it, and one search opens any tool below it (at
    any depth) without the facade going away.
    """

    name: str
    inner: tuple[str, ...]
    parent: str | None = None
    exclusive: bool = False
    categories: tuple[tuple[str, tuple[str, ...]], ...] = ()
    selectable: bool = False
    parameter: str = "category"
    """The argument that names the category (by-category facades)."""
    searchable: bool = False
    stays: bool = False
    """It stays visible after unfolding (``read_section``: its text is its point)."""

    def members(self, category: str | None) -> tuple[str, ...]:
        """The tools one unfold opens (all of them for ``None``)."""
        if category is None:
            return self.inner
        return dict(self.categories).get(category, ())


class DesignView:
    """A read-only view of a graph for the analyses."""

    def __init__(self, graph: DisclosureGraph) -> None:
        self.graph = graph
        self.entries: Mapping[str, ToolEntry] = graph.entries
        self.machines: Mapping[str, StateMachineTool[Any]] = graph.machines
        self.facades: dict[str, Facade] = _facades(graph)
        self.enclosing: dict[str, str] = {
            inner: facade.name for facade in self.facades.values() for inner in facade.inner
        }
        """Tool name -> the facade that directly holds it."""

    def facade_chain(self, tool: str) -> list[str]:
        """The facades around ``tool``, innermost first."""
        chain: list[str] = []
        current = self.enclosing.get(tool)
        while current is not None and current not in chain:
            chain.append(current)
            current = self.enclosing.get(current)
        return chain

    def facade_depth(self, facade: str) -> int:
        """1 for a top-level facade, 2 for one inside it, ..."""
        return len(self.facade_chain(facade)) + 1

    def owner_path(self, tool: str) -> str:
        """Where a tool sits: ``playbook:research/tool:analyze``,
        ``playbook:p/facade:files/tool:read``."""
        chain = self.facade_chain(tool)
        parts = [f"facade:{name}" for name in reversed(chain)]
        entry = self.entries.get(chain[-1] if chain else tool)
        if entry is not None and entry.owner:
            parts.insert(0, entry.owner)
        kind = "facade" if tool in self.facades else "tool"
        return "/".join([*parts, f"{kind}:{tool}"])

    def scope(self, facade: str) -> frozenset[str]:
        """Every tool inside ``facade``, at any depth."""
        names: set[str] = set()
        stack = [facade]
        while stack:
            for child in self.facades[stack.pop()].inner:
                if child not in names:
                    names.add(child)
                    if child in self.facades:
                        stack.append(child)
        return frozenset(names)

    def state_names(self, machine: str) -> list[str]:
        """A machine's states in enum order."""
        return self.machines[machine].state_names

    def enum_member(self, machine: str, state: str) -> enum.Enum:
        """The enum member of a state."""
        members: Mapping[str, enum.Enum] = self.machines[machine].states.__members__
        return members[state]


def _facades(graph: DisclosureGraph) -> dict[str, Facade]:
    """Facades from the graph's ``facade`` nodes and their ``contains`` edges."""
    nx_graph = graph.to_networkx()
    facades: dict[str, Facade] = {}
    for node, data in nx_graph.nodes(data=True):
        if data.get("kind") != "facade":
            continue
        name = str(data.get("label") or node.partition(":")[2])
        inner: list[str] = []
        members: dict[str, list[str]] = {str(c): [] for c in data.get("categories") or ()}
        for _source, target, edge in nx_graph.out_edges(node, data=True):
            if edge.get("kind") != "contains" or nx_graph.nodes[target].get("kind") not in (
                "tool",
                "facade",
            ):
                continue
            child = str(nx_graph.nodes[target].get("label") or target.partition(":")[2])
            if child == name or child in inner:
                continue
            inner.append(child)
            for category in edge.get("categories") or ():
                members.setdefault(str(category), []).append(child)
        facades[name] = Facade(
            name,
            tuple(inner),
            exclusive=bool(data.get("exclusive")),
            categories=tuple((c, tuple(names)) for c, names in members.items()),
            selectable=bool(data.get("selectable")),
            parameter=str(data.get("category_parameter") or "category"),
            searchable=bool(data.get("searchable")),
            stays=bool(data.get("keeps_shown")),
        )
        if data.get("searchable"):  # its playbooks' and machines' tools are its own too
            facades[name] = attrs.evolve(facades[name], inner=tuple(graph.facade_children[name]))
    for facade in list(facades.values()):
        for child in facade.inner:
            if child in facades:
                facades[child] = attrs.evolve(facades[child], parent=facade.name)
    return facades


# reachability ----------------------------------------------------------------------


@attrs.frozen
class Reachability:
    """What may ever happen in a run (an over-approximation).

    ``tools``: tools that may become visible; ``states``: per machine, the states that
    may be entered; ``callable_in``: per (machine, state), the tools of that machine
    that may be called while it is in that state.
    """

    tools: frozenset[str]
    states: Mapping[str, frozenset[str]]
    callable_in: Mapping[tuple[str, str], frozenset[str]]

    def exits(self, design: DesignView, machine: str, state: str) -> list[str]:
        """Targets of transitions that may fire in ``state`` (in declaration order)."""
        tools = self.callable_in.get((machine, state), frozenset())
        targets = [
            t.target
            for t in design.machines[machine].transitions
            if t.source == state and t.tool in tools
        ]
        return list(dict.fromkeys(targets))


def term_may_hold(
    term: Term,
    tools: set[str] | frozenset[str],
    states: Mapping[str, set[str] | frozenset[str]],
    fixed: tuple[str, str] | None = None,
) -> bool:
    """Whether a conjunction may hold, given what may be called and entered.

    ``fixed`` is (machine, state) the machine must be in at the same time.
    """
    required: dict[str, str] = dict([fixed]) if fixed else {}
    for leaf in term:
        match leaf:
            case After(tools=names):
                if not all(name in tools for name in names):
                    return False
            case InState(machine=machine, state=state):
                if state not in states.get(machine, ()):
                    return False
                if required.setdefault(machine, state) != state:
                    return False
    return True


def condition_may_hold(
    condition: Condition | None,
    tools: set[str] | frozenset[str],
    states: Mapping[str, set[str] | frozenset[str]],
    fixed: tuple[str, str] | None = None,
) -> bool:
    """Whether ``condition`` may hold at some point (None always holds)."""
    if condition is None:
        return True
    terms = dnf(condition)
    if terms is None:
        return True
    return any(term_may_hold(term, tools, states, fixed) for term in terms)


def _places(design: DesignView) -> Iterator[tuple[str, ToolEntry]]:
    """(name, place) of every registered tool; a tool in several places once per place."""
    for name in design.entries:
        for entry in design.graph.places_of(name):
            yield name, entry


def _chain(design: DesignView, name: str, entry: ToolEntry) -> list[str]:
    """The facades around one place of a tool, innermost first."""
    if name not in design.graph.places:
        return design.facade_chain(name)
    return [entry.facade, *design.facade_chain(entry.facade)] if entry.facade else []


def reachability(design: DesignView) -> Reachability:
    """The least fixpoint of "may be called" and "may be entered"."""
    tools: set[str] = set()
    states: dict[str, set[str]] = {
        name: {machine.initial_state()} for name, machine in design.machines.items()
    }
    callable_in: dict[tuple[str, str], set[str]] = {}
    changed = True
    while changed:
        changed = False
        for name, entry in _places(design):
            if not all(facade in tools for facade in _chain(design, name, entry)):
                continue
            if entry.machine is None or entry.machine not in design.machines:
                if name not in tools and condition_may_hold(entry.condition, tools, states):
                    tools.add(name)
                    changed = True
                continue
            machine = entry.machine
            for state in sorted(states[machine]):
                if not (entry.is_global or state in entry.states):
                    continue
                here = callable_in.setdefault((machine, state), set())
                if name in here:
                    continue
                if condition_may_hold(entry.condition, tools, states, (machine, state)):
                    here.add(name)
                    tools.add(name)
                    changed = True
        for name, machine_def in design.machines.items():
            for transition in machine_def.transitions:
                if (
                    transition.source in states[name]
                    and transition.tool in callable_in.get((name, transition.source), ())
                    and transition.target not in states[name]
                ):
                    states[name].add(transition.target)
                    changed = True
    return Reachability(
        frozenset(tools),
        {name: frozenset(found) for name, found in states.items()},
        {key: frozenset(found) for key, found in callable_in.items()},
    )
