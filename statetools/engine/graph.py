"""DisclosureGraph: compiling tools and definitions into the graph runs and analyses read.

Compiling fills the plain dict indexes of :mod:`~statetools.engine.graph_index`
completely (what a fresh run shows first included, worked out by
:func:`~statetools.engine.visibility.fresh_start`); a run only reads them, so one
compiled graph serves any number of runs, threads and sessions. The networkx graph
(node and edge kinds: see :mod:`~statetools.engine.graph_index`) is built when
``to_networkx()`` is first called (only the analyses need it), by compiling the same
items once more with its nodes and edges.
"""

from __future__ import annotations

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
from statetools.definitions.machine import StateMachineTool
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.code_view import ScriptTool
from statetools.engine.graph_index import (
    GraphIndex,
    ToolEntry,
    facade_node,
    state_node,
    tool_node,
)
from statetools.engine.prompt_sections import Outlined, outline_elements
from statetools.errors import DefinitionError
from statetools.tools.tool import BaseTool

if TYPE_CHECKING:
    import networkx as nx


class DisclosureGraph(GraphIndex):
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
        super().__init__()
        self._graph: nx.MultiDiGraph[str] | None = None
        """The networkx graph while it is built (``networkx=True``), else None."""
        if networkx:
            import networkx as nx

            self._graph = nx.MultiDiGraph()
        self._items: tuple[Any, ...] = ()
        """What the graph was compiled from (compiled again for ``to_networkx()``)."""

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
