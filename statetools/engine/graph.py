"""DisclosureGraph: tool availability as an explicit networkx graph.

Node ids are stable strings: ``tool:search``, ``playbook:research``,
``machine:order``, ``state:order.DRAFT``, ``gate:analyze`` (the condition that unlocks
``analyze``; nested gates get ``gate:analyze/0``, ``gate:analyze/0.1``, ...),
``facade:github`` (an UnfoldingTool; it has no ``tool:`` node, see ``node_of``),
``section:read_section/billing.disputes`` (a prompt section, see ``outline``).

Edge kinds: ``contains`` (a definition holds a tool or state; a facade its inner tools,
with ``categories`` for by-category facades), ``available_in`` (tool -> state),
``transitions_to`` (state -> state, attribute ``tool``), ``unlocks`` (gate -> the tool
it unlocks), ``requires`` (gate -> a prerequisite tool, state or inner gate),
``chains_from`` (a chained tool, or a discovery template such as
``tool:customer_<id>_orders`` with ``template=True``, -> a tool returning its type;
added from return annotations when ``to_networkx()`` is first called), ``expands``
(a section-reading facade -> its top-level sections, a section -> its children and the
tools reading it opens; a section's tools shown from the start are ``contains``).

This module builds the graph; what the scheduler and the analyses look up in it is
:mod:`~statetools.engine.lookups`. Compiling fills plain dict indexes completely
(what a fresh run shows first included, :mod:`~statetools.engine.fresh`); a run only
reads them, so one compiled graph serves any number of runs, threads and sessions. The
networkx graph is built when ``to_networkx()`` is first called (only the analyses need
it), by compiling the same items once more with its nodes and edges.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from statetools.definitions.chaining import ChainedTool, Chaining
from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    InState,
    OnArtifact,
    OnBlackboard,
    When,
    describe,
)
from statetools.definitions.items import as_tool
from statetools.definitions.machine import StateMachineTool, Transition
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.code_view import ScriptTool, through_scripts
from statetools.engine.fresh import fresh_start
from statetools.engine.lookups import GraphLookups
from statetools.engine.nodes import EDGE_KINDS as EDGE_KINDS
from statetools.engine.nodes import NODE_KINDS as NODE_KINDS
from statetools.engine.nodes import ToolEntry as ToolEntry
from statetools.engine.nodes import facade_node as facade_node
from statetools.engine.nodes import section_node as section_node
from statetools.engine.nodes import state_node as state_node
from statetools.engine.nodes import tool_node as tool_node
from statetools.engine.outline import Outline, Outlined, outline_elements
from statetools.engine.returns import ReturnLinks, return_links
from statetools.engine.shown import Shown
from statetools.errors import DefinitionError
from statetools.tools.tool import BaseTool

if TYPE_CHECKING:
    import networkx as nx


class DisclosureGraph(GraphLookups):
    """The compiled form of a run's tools and disclosure definitions.

    Build it with :func:`disclosure_graph`. The scheduler, ``check()``, ``explore()``
    and ``render()`` all read it. ``to_networkx()`` gives the underlying
    ``networkx.MultiDiGraph`` (node attribute ``kind``, edge attribute ``kind``).

    >>> a = Tool.create("a", "Step one", lambda: "done")
    >>> b = Tool.create("b", "Step two", lambda: "done")
    >>> g = disclosure_graph(PlaybookTool("p", "d").with_tool(a).with_tool(b).unlocked_by(a))
    >>> sorted(g.to_networkx().nodes)
    ['gate:b', 'playbook:p', 'tool:a', 'tool:b']
    """

    def __init__(self, *, networkx: bool = False) -> None:
        self._graph: nx.MultiDiGraph[str] | None = None
        """The networkx graph while it is built (``networkx=True``), else None."""
        if networkx:
            import networkx as nx

            self._graph = nx.MultiDiGraph()
        self._networkx: nx.MultiDiGraph[str] | None = None
        self._items: tuple[Any, ...] = ()
        """What the graph was compiled from (compiled again for ``to_networkx()``)."""
        self.entries: dict[str, ToolEntry] = {}
        """Registered tools by name, in registration order."""
        self.machines: dict[str, StateMachineTool[Any]] = {}
        self.playbooks: dict[str, PlaybookTool] = {}
        self.preflights: list[Callable[[DisclosureGraph], None]] = []
        """The ``preflight`` callbacks of the definitions, each once, in order."""
        self.duplicates: list[str] = []
        """Names registered twice with different tools (the scheduler refuses these)."""
        self.places: dict[str, list[ToolEntry]] = {}
        """Tools registered in several places (the same tool in a facade and a state, in
        two playbooks, ...) -> every place, the first one as in ``entries``."""
        self._transitions: dict[tuple[str, str, str], list[Transition]] = defaultdict(list)
        self._by_tool: dict[str, set[str]] = defaultdict(set)
        self._by_state: dict[str, set[str]] = defaultdict(set)
        self._by_artifact: dict[str, set[str]] = defaultdict(set)
        self._by_blackboard: dict[str, set[str]] = defaultdict(set)
        self._state_tools: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.when_tools: set[str] = set()
        """Tools whose condition contains a When (re-checked every turn)."""
        self.position: dict[str, int] = {}
        """Registration index of every tool (orders tools that appear in the same turn)."""
        self.initial_visible: tuple[str, ...] | None = None
        """The tools visible in a fresh run, apart from When tools (filled when the graph
        is compiled; the graph does not change after that)."""
        self.initial_tools: dict[str, BaseTool] = {}
        """``initial_visible`` with their tools, in order (shared by fresh runs; never
        written after compiling)."""
        self.initial_positions: dict[str, int] = {}
        """The position of each of ``initial_visible`` (shared by fresh runs)."""
        self.initial_shown: Shown | None = None
        """What a fresh run first shows, when nothing depends on the run (no When
        tools): every fresh run starts from the same objects, so what callers built from
        them (requests, wire forms) is reused across runs."""
        self.facades: dict[str, UnfoldingTool] = {}
        """Registered facades by name."""
        self.facade_children: dict[str, list[str]] = {}
        """The inner tool names of each facade, in order."""
        self.chains: dict[str, Chaining] = {}
        """Chaining rules from a type, by the type's key."""
        self.chain_any: Chaining | None = None
        """The rule chaining from any returned object, if there is one."""
        self.chained: dict[str, str] = {}
        """Chained tool name -> the key of the type it needs an instance of."""
        self.outlines: dict[str, Outline] = {}
        self.code_modes: dict[str, frozenset[str]] = {}
        """The tools of each code-mode item, by the name of its script tool (the model
        is shown the script tool in their place)."""
        self.code_member_of: dict[str, str] = {}
        """Tool name -> the script tool it is called through."""
        """The prompt sections of each section-reading facade (``read_section``)."""
        self._scopes: dict[str, frozenset[str]] = {}
        self._producers: dict[str, list[str]] = {}
        self._analysis_lock = threading.Lock()
        self._links: ReturnLinks | None = None

    # building -------------------------------------------------------------------

    def _node(self, node: str, kind: str, **attributes: Any) -> None:
        graph = self._graph
        if graph is not None and node not in graph:
            graph.add_node(node, kind=kind, **attributes)

    def _edge(self, source: str, target: str, kind: str, **attributes: Any) -> None:
        if self._graph is not None:
            self._graph.add_edge(source, target, kind=kind, **attributes)

    def _register(self, entry: ToolEntry, **edge_attributes: Any) -> None:
        name = entry.tool.name
        existing = self.entries.get(name)
        if existing is not None:
            if existing.tool is not entry.tool and existing.tool != entry.tool:
                self.duplicates.append(name)  # two different tools with one name
            elif all(place != entry for place in self.places_of(name)):
                self._add_place(existing, entry, edge_attributes)
            return
        self.position[name] = len(self.entries)
        self.entries[name] = entry
        facade = entry.tool if isinstance(entry.tool, UnfoldingTool) else None
        graph = self._graph
        if facade is not None:
            self._add_facade_node(facade)
        elif graph is not None:
            self._node(tool_node(name), "tool", label=name)
        if graph is not None and isinstance(entry.tool, ChainedTool):
            graph.nodes[tool_node(name)]["chained"] = entry.tool.source.__name__
        if entry.owner and graph is not None:
            self._edge(entry.owner, self.node_of(name), "contains", **edge_attributes)
        if entry.condition is not None:
            self._add_gate(name, entry.condition, f"gate:{name}", top=True)
        if facade is not None:
            self._add_inner(facade)
        if facade is not None and isinstance(facade, Outlined):
            self._add_sections(facade)

    def _add_place(
        self, existing: ToolEntry, entry: ToolEntry, edge_attributes: Mapping[str, Any]
    ) -> None:
        """One more place of a registered tool: it shows while any place lets it."""
        name = entry.tool.name
        places = self.places.setdefault(name, [existing])
        places.append(entry)
        if entry.owner:
            self._edge(entry.owner, self.node_of(name), "contains", **edge_attributes)
        if entry.condition is not None:
            self._add_gate(name, entry.condition, f"gate:{name}@{len(places)}", top=True)

    def _add_facade_node(self, facade: UnfoldingTool) -> None:
        name = facade.name
        self.facades[name] = facade
        graph = self._graph
        if graph is None:
            return
        node = facade_node(name)
        self._node(
            node,
            "facade",
            label=name,
            description=facade.description,
            usage_notes=facade.usage_notes,
            exclusive=facade.exclusive,
            category_parameter=facade.category_parameter,
            categories=tuple(category for category, _ in facade.categories),
            selectable=facade.is_selectable,
            searchable=facade.is_searchable,
            keeps_shown=facade.keeps_shown,
        )
        placeholder = tool_node(name)
        if placeholder in graph:  # named by a condition before it was registered
            for source, _, data in list(graph.in_edges(placeholder, data=True)):
                graph.add_edge(source, node, **data)
            graph.remove_node(placeholder)

    def _add_inner(self, facade: UnfoldingTool) -> None:
        node = facade_node(facade.name)
        self.facade_children[facade.name] = [
            tool.name for tool in (*facade.inner, *facade.member_tools())
        ]
        for tool in facade.inner:
            attributes: dict[str, Any] = {}
            if facade.category_parameter is not None:
                attributes["categories"] = tuple(
                    c for c, names in facade.categories if tool.name in names
                )
            self._register(ToolEntry(tool, node, facade=facade.name), **attributes)
        for member in facade.members:  # in-loop playbooks and machines of a search facade
            if isinstance(member, PlaybookTool):
                self.add_playbook(member, facade=facade.name)
            else:
                self.add_machine(member, facade=facade.name)

    def _add_sections(self, facade: Outlined) -> None:
        outline = self.outlines[facade.name] = facade.outline()
        nodes, edges = outline_elements(facade.name, outline, self.node_of)
        for node, attributes in nodes:
            self._node(node, "section", **attributes)
        for source, target, kind in edges:
            self._node(target, "tool", label=target.partition(":")[2])  # open: added later
            self._edge(source, target, kind)

    def _add_gate(self, tool: str, condition: Condition, node: str, *, top: bool) -> None:
        graphing = self._graph is not None
        if graphing:
            op = "OR" if isinstance(condition, AnyOf) else "AND"
            self._node(node, "gate", op=op, label=describe(condition), condition=condition)
        if top and graphing:
            self._edge(node, tool_node(tool), "unlocks")
        match condition:
            case AllOf(conditions=parts) | AnyOf(conditions=parts):
                for index, part in enumerate(parts):
                    child = f"{node}/{index}" if top else f"{node}.{index}"
                    self._add_gate(tool, part, child, top=False)
                    self._edge(node, child, "requires")
            case After(tools=names, count=count):
                for name in names:
                    if graphing:
                        self._node(self.node_of(name), "tool", label=name)
                        self._edge(node, self.node_of(name), "requires", count=count)
                    self._by_tool[name].add(tool)
            case InState(machine=machine, state=state):
                if graphing:
                    self._node(state_node(machine, state), "state", label=state)
                    self._edge(node, state_node(machine, state), "requires")
                self._by_state[machine].add(tool)
            case OnArtifact():
                self._by_artifact[condition.key].add(tool)
            case OnBlackboard():
                self._by_blackboard[condition.key].add(tool)
            case When():
                self.when_tools.add(tool)

    def _preflight(self, callback: Callable[[DisclosureGraph], None] | None) -> None:
        if callback is not None and all(callback is not p for p in self.preflights):
            self.preflights.append(callback)

    def add_tool(self, tool: BaseTool, owner: str | None = None) -> None:
        """Register a tool that is always available (within its owner)."""
        self._register(ToolEntry(tool, owner))

    def add_playbook(self, playbook: PlaybookTool, facade: str | None = None) -> None:
        """Register a playbook's tools with their conditions (inside search ``facade``)."""
        node = f"playbook:{playbook.name}"
        self._node(node, "playbook", label=playbook.name, description=playbook.description)
        if facade is not None:
            self._edge(facade_node(facade), node, "contains")
        self.playbooks[playbook.name] = playbook
        self._preflight(playbook.preflight)
        for entry in playbook.entries:
            self._register(ToolEntry(entry.tool, node, entry.condition, facade=facade))
        for rule in playbook.chaining:
            self.add_chaining(rule, node)

    def add_chaining(self, rule: Chaining, owner: str | None = None) -> None:
        """Register a chaining rule; a typed rule declares its source's methods as tools."""
        existing = self.chain_any if rule.source is None else self.chains.get(rule.key)
        if existing is not None:
            if existing != rule:
                raise DefinitionError(
                    f"tool chaining from {rule.key} is set twice, differently",
                    hint="keep one rule per type (and one from any)",
                )
            return
        if rule.source is None:
            self.chain_any = rule
            return
        self.chains[rule.key] = rule
        for tool in rule.declared_tools():
            self.chained[tool.name] = rule.key
            self._register(ToolEntry(tool, owner))

    def add_machine(self, machine: StateMachineTool[Any], facade: str | None = None) -> None:
        """Register a state machine: states, their tools, transitions (inside search
        ``facade``)."""
        if machine.name in self.machines:
            raise DefinitionError(
                f"two state machines are named '{machine.name}'",
                hint="give every machine its own name",
            )
        node = f"machine:{machine.name}"
        self.machines[machine.name] = machine
        self._preflight(machine.preflight)
        self._node(
            node,
            "machine",
            label=machine.name,
            description=machine.description,
            initial=machine.initial_state(),
            final=tuple(machine.final_states),
        )
        if facade is not None:
            self._edge(facade_node(facade), node, "contains")
        for state in machine.state_names if self._graph is not None else ():
            self._node(
                state_node(machine.name, state),
                "state",
                label=state,
                machine=machine.name,
                initial=state == machine.initial_state(),
                final=state in machine.final_states,
            )
            self._edge(node, state_node(machine.name, state), "contains")
        for tool in machine.tools:
            states = frozenset(machine.states_of(tool.name))
            is_global = tool.name in machine.global_tools
            self._register(
                ToolEntry(tool, node, None, machine.name, states, is_global, facade=facade)
            )
            for state in sorted(states) if is_global else machine.states_of(tool.name):
                if not is_global:
                    self._edge(
                        self.node_of(tool.name), state_node(machine.name, state), "available_in"
                    )
                self._state_tools[(machine.name, state)].add(tool.name)
        for transition in machine.transitions:
            self._transitions[(machine.name, transition.source, transition.tool)].append(transition)
            self._edge(
                state_node(machine.name, transition.source),
                state_node(machine.name, transition.target),
                "transitions_to",
                tool=transition.tool,
                label=transition.label,
            )

    def add_code_mode(self, tool: ScriptTool, items: Iterable[Any]) -> None:
        """Register a code-mode item: its script ``tool``, then its ``items`` as usual;
        the tools they register (and no tool registered before) are reached through
        the script tool.

        >>> from statetools.code import CodeMode
        >>> disclosure_graph(CodeMode(Tool.create("ping", "Ping.", lambda: "pong"))).code_modes
        {'run_code': frozenset({'ping'})}
        """
        if not isinstance(tool, ScriptTool):
            raise DefinitionError(
                f"the code-mode item's tool '{tool.name}' does not run scripts",
                path=tool.name,
                hint="build code mode with st.CodeMode(*items, name=...)",
            )
        self.add_tool(tool)
        before = set(self.entries)
        _add_items(self, _flatten(items))
        members = frozenset(name for name in self.entries if name not in before)
        self.code_modes[tool.name] = members
        for name in members:
            self.code_member_of[name] = tool.name
        if self._graph is not None:  # the script tool holds what its items hold
            source = tool_node(tool.name)
            inner = {name for name in members if self.entries[name].facade is not None}
            targets = {
                self.entries[name].owner or self.node_of(name)
                for name in members
                if name not in inner and not _owned_by(self.entries[name].owner, members)
            }
            for target in sorted(targets):
                self._edge(source, target, "contains")

    def _finish(self) -> None:
        """Fill what runs read and nothing fills later: the plain dicts of the
        indexes, every facade's scope, the tools producing chained types and what a
        fresh run shows first."""
        for name in ("_by_tool", "_by_state", "_by_artifact", "_by_blackboard"):
            setattr(self, name, dict(getattr(self, name)))
        self._transitions = dict(self._transitions)
        self._state_tools = dict(self._state_tools)
        for facade in self.facades:
            self._scope(facade)
        if self.chains:
            self._links = return_links(self._tools(), self.chains, self.chained, self.node_of)
            self._producers = self._links.producers
        initial = {name: m.initial_state() for name, m in self.machines.items()}
        self.initial_visible, self.initial_shown = fresh_start(
            self.entries, self.places, initial, self.when_tools, facades=bool(self.facades)
        )
        if self.code_modes and self.initial_shown is not None:
            self.initial_shown = through_scripts(
                self.initial_shown, self.code_modes, self.code_member_of
            )
        entries = self.entries
        self.initial_tools = {name: entries[name].tool for name in self.initial_visible}
        self.initial_positions = {name: i for i, name in enumerate(self.initial_visible)}

    def _tools(self) -> dict[str, BaseTool]:
        return {name: entry.tool for name, entry in self.entries.items()}

    def _scope(self, facade: str) -> frozenset[str]:
        scope = self._scopes.get(facade)
        if scope is None:
            names: set[str] = set()
            for child in self.facade_children.get(facade, ()):
                names.add(child)
                names |= self._scope(child)
            scope = self._scopes[facade] = frozenset(names)
        return scope

    def _build_networkx(self) -> nx.MultiDiGraph[str]:
        """Compile the same items again, this time with networkx nodes and edges, then
        add what return annotations link."""
        shadow = DisclosureGraph(networkx=True)
        _add_items(shadow, self._items)
        graph = shadow._graph
        assert graph is not None
        links = self._return_links()
        for node, attributes in links.templates:
            if node not in graph:
                graph.add_node(node, kind="tool", **attributes)
        for source, target in links.edges:
            graph.add_edge(source, target, kind="chains_from")
        return graph

    def _return_links(self) -> ReturnLinks:
        """The ``chains_from`` edges and discovery templates (for ``to_networkx()``)."""
        if self._links is None:
            return return_links(self._tools(), self.chains, self.chained, self.node_of)
        return self._links


def disclosure_graph(*items: Any) -> DisclosureGraph:
    """Compile tools, ``@llm_tool`` functions, playbooks and state machines into a graph.

    Definitions that have a model (``.with_model(m)``) become one agentic tool each.

    >>> def search(query: str) -> str:
    ...     '''Search the web.'''
    ...     return "Tides follow the moon."
    >>> report = Tool.create("report", "Write the report", lambda: "done")
    >>> research = PlaybookTool("research", "Research").with_tool(report).unlocked_by(search)
    >>> graph = disclosure_graph(search, research)
    >>> graph.tool_names()
    ['search', 'report']
    """

    graph = DisclosureGraph()
    graph._items = tuple(_flatten(items))
    _add_items(graph, graph._items)
    graph._finish()
    return graph


def _add_items(graph: DisclosureGraph, items: Iterable[Any]) -> None:
    """Register each of ``items`` (flattened) in ``graph``."""
    from statetools.definitions.agentic import agentic_from_definition

    for item in items:
        if isinstance(item, Chaining):
            graph.add_chaining(item)
        elif hasattr(item, "code_mode_items"):  # st.CodeMode: a script tool and its tools
            graph.add_code_mode(item.tool, item.code_mode_items)
        elif isinstance(item, PlaybookTool | StateMachineTool) and item.agent.model is not None:
            graph.add_tool(agentic_from_definition(item))
        elif isinstance(item, PlaybookTool):
            graph.add_playbook(item)
        elif isinstance(item, StateMachineTool):
            graph.add_machine(item)
        else:
            graph.add_tool(as_tool(item))


def _owned_by(owner: str | None, members: frozenset[str]) -> bool:
    """Whether ``owner`` (a node id) is a facade among ``members`` (its tools sit in it)."""
    return owner is not None and owner.startswith("facade:") and owner[7:] in members


def _flatten(items: Iterable[Any]) -> Iterator[Any]:
    for item in items:
        if isinstance(item, list | tuple):
            yield from _flatten(item)
        elif hasattr(item, "disclosure_items"):  # e.g. Sections: a facade and plain tools
            yield from _flatten(item.disclosure_items())
        else:
            yield item
