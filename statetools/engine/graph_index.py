"""The indexes of a compiled :class:`~statetools.DisclosureGraph`, and the graph's
vocabulary.

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

>>> tool_node("search"), state_node("order", "DRAFT"), section_node("read_section", "a.b")
('tool:search', 'state:order.DRAFT', 'section:read_section/a.b')

:class:`GraphIndex` holds the tables compiling fills (:mod:`~statetools.engine.graph`
builds them, completely, before any run reads them) and what the scheduler and the
analyses look up in them: a tool's node and places, the tools inside a facade, the
transitions a call fires, and the tools whose conditions depend on a call, a machine's
state, an artifact or a blackboard value (the index that lets the scheduler
re-evaluate only what a change can affect).

>>> a = Tool.create("a", "Step one", lambda: "done")
>>> b = Tool.create("b", "Step two", lambda: "done")
>>> graph = disclosure_graph(PlaybookTool("p", "d").with_tool(a).with_tool(b).unlocked_by(a))
>>> graph.dependents_of_call("a"), graph.node_of("b"), len(graph)
({'b'}, 'tool:b', 2)
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, KeysView
from typing import TYPE_CHECKING, Any

import attrs

from statetools.definitions.chaining import Chaining
from statetools.definitions.conditions import Condition
from statetools.definitions.machine import StateMachineTool, Transition
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.bindings import ReturnLinks, return_links
from statetools.engine.code_view import through_scripts
from statetools.engine.visibility import fresh_start
from statetools.tools.tool import BaseTool

if TYPE_CHECKING:
    import networkx as nx

    from statetools.engine.graph import DisclosureGraph
    from statetools.engine.prompt_sections import Outline
    from statetools.engine.visible_tools import Shown

NODE_KINDS = ("tool", "state", "machine", "playbook", "gate", "facade", "section")
EDGE_KINDS = (
    "requires",
    "unlocks",
    "available_in",
    "transitions_to",
    "contains",
    "chains_from",
    "expands",
)


def tool_node(name: str) -> str:
    """The node id of a tool."""
    return f"tool:{name}"


def facade_node(name: str) -> str:
    """The node id of a facade (an UnfoldingTool)."""
    return f"facade:{name}"


def state_node(machine: str, state: str) -> str:
    """The node id of a machine's state."""
    return f"state:{machine}.{state}"


def section_node(facade: str, path: str) -> str:
    """The node id of the prompt section at ``path`` (``billing.disputes``) read with
    the tool ``facade`` (``read_section``)."""
    return f"section:{facade}/{path}"


@attrs.frozen
class ToolEntry:
    """A registered tool and where it sits: its owner, condition, machine states and
    enclosing facade (the facade that must unfold before it shows)."""

    tool: BaseTool
    owner: str | None = None
    condition: Condition | None = None
    machine: str | None = None
    states: frozenset[str] = frozenset()
    is_global: bool = False
    facade: str | None = None


class GraphIndex:
    """The tables of a compiled graph and their lookups (see the module): filled
    completely when the graph is compiled, only read after that."""

    def __init__(self) -> None:
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
        """The prompt sections of each section-reading facade (``read_section``)."""
        self.code_modes: dict[str, frozenset[str]] = {}
        """The tools of each code-mode item, by the name of its script tool (the model
        is shown the script tool in their place)."""
        self.code_member_of: dict[str, str] = {}
        """Tool name -> the script tool it is called through."""
        self._scopes: dict[str, frozenset[str]] = {}
        self._producers: dict[str, list[str]] = {}
        self._links: ReturnLinks | None = None
        self._networkx: nx.MultiDiGraph[str] | None = None
        self._analysis_lock = threading.Lock()

    if TYPE_CHECKING:  # the graph's own

        def _build_networkx(self) -> nx.MultiDiGraph[str]: ...

    def _tools(self) -> dict[str, BaseTool]:
        """Registered tools by name."""
        return {name: entry.tool for name, entry in self.entries.items()}

    def _scope(self, facade: str) -> frozenset[str]:
        """Every tool name inside ``facade`` (worked out once, when compiling)."""
        scope = self._scopes.get(facade)
        if scope is None:
            names: set[str] = set()
            for child in self.facade_children.get(facade, ()):
                names.add(child)
                names |= self._scope(child)
            scope = self._scopes[facade] = frozenset(names)
        return scope

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

    def _return_links(self) -> ReturnLinks:
        """The ``chains_from`` edges and discovery templates (for ``to_networkx()``)."""
        if self._links is None:
            return return_links(self._tools(), self.chains, self.chained, self.node_of)
        return self._links

    def node_of(self, name: str) -> str:
        """The node id of the tool called ``name`` (``facade:...`` for a facade)."""
        return facade_node(name) if name in self.facades else tool_node(name)

    def places_of(self, name: str) -> list[ToolEntry]:
        """Every place of the registered tool ``name`` (one for most tools; a tool in a
        facade and a state, or in two playbooks, has several)."""
        places = self.places.get(name)
        if places is not None:
            return places
        entry = self.entries.get(name)
        return [entry] if entry is not None else []

    def to_networkx(self) -> nx.MultiDiGraph[str]:
        """The underlying networkx graph (do not modify it), built on first use: runs
        never need it, the analyses do.

        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> graph = disclosure_graph(search)
        >>> nx_graph = graph.to_networkx()
        >>> nx_graph.nodes["tool:search"]["kind"], graph.to_networkx() is nx_graph
        ('tool', True)
        """
        built = self._networkx
        if built is None:
            with self._analysis_lock:  # two threads may ask at once; one builds
                built = self._networkx
                if built is None:
                    built = self._networkx = self._build_networkx()
        return built

    def facade_scope(self, facade: str) -> frozenset[str]:
        """Every tool name inside ``facade``, at any depth."""
        return self._scopes.get(facade, frozenset())

    def producers(self, key: str) -> list[str]:
        """Registered tools whose return annotation gives the chained type ``key``."""
        return self._producers.get(key, [])

    def tool_names(self) -> list[str]:
        """Every registered tool name, in registration order."""
        return list(self.entries)

    def transitions(self, machine: str, state: str, tool: str) -> list[Transition]:
        """Transitions taken when ``tool`` succeeds in ``state`` of ``machine``, in order."""
        return self._transitions.get((machine, state, tool), [])

    def tools_in_state(self, machine: str, state: str) -> set[str]:
        """Tools of ``machine`` available in ``state`` (globals included)."""
        return self._state_tools.get((machine, state), set())

    def dependents_of_call(self, tool: str) -> set[str]:
        """Tools whose condition mentions calls of ``tool``."""
        return self._by_tool.get(tool, set())

    def dependents_of_machine(self, machine: str) -> set[str]:
        """Tools whose condition mentions the state of ``machine``."""
        return self._by_state.get(machine, set())

    def dependents_of_artifact(self, key: str) -> set[str]:
        """Tools unlocked by an artifact of the type with this key."""
        return self._by_artifact.get(key, set())

    def dependents_of_blackboard(self, key: str) -> set[str]:
        """Tools unlocked by a blackboard value of the type with this key."""
        return self._by_blackboard.get(key, set())

    @property
    def artifact_keys(self) -> KeysView[str]:
        """Type keys some OnArtifact condition waits for (a live view, not a copy)."""
        return self._by_artifact.keys()

    @property
    def blackboard_keys(self) -> KeysView[str]:
        """Type keys some OnBlackboard condition waits for (a live view, not a copy)."""
        return self._by_blackboard.keys()

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)
