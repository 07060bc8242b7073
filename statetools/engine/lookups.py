"""What the scheduler and the analyses look up in a compiled
:class:`~statetools.DisclosureGraph`: a tool's node and places, the tools inside a
facade, the transitions a call fires, and the tools whose conditions depend on a call,
a machine's state, an artifact or a blackboard value (the index that lets the
scheduler re-evaluate only what a change can affect).

:class:`~statetools.engine.graph.DisclosureGraph` mixes this in; the graph builds
the tables these read.

>>> a = Tool.create("a", "Step one", lambda: "done")
>>> b = Tool.create("b", "Step two", lambda: "done")
>>> graph = disclosure_graph(PlaybookTool("p", "d").with_tool(a).with_tool(b).unlocked_by(a))
>>> graph.dependents_of_call("a"), graph.node_of("b"), len(graph)
({'b'}, 'tool:b', 2)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, KeysView
from typing import TYPE_CHECKING

from statetools.definitions.machine import Transition
from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.nodes import ToolEntry, facade_node, tool_node

if TYPE_CHECKING:
    import networkx as nx

    from statetools.engine.returns import ReturnLinks


class GraphLookups:
    """The lookups of a compiled graph (see the module)."""

    _networkx: nx.MultiDiGraph[str] | None
    _analysis_lock: threading.Lock
    entries: dict[str, ToolEntry]
    places: dict[str, list[ToolEntry]]
    facades: dict[str, UnfoldingTool]
    facade_children: dict[str, list[str]]
    _scopes: dict[str, frozenset[str]]
    _producers: dict[str, list[str]]
    _transitions: dict[tuple[str, str, str], list[Transition]]
    _state_tools: dict[tuple[str, str], set[str]]
    _by_tool: dict[str, set[str]]
    _by_state: dict[str, set[str]]
    _by_artifact: dict[str, set[str]]
    _by_blackboard: dict[str, set[str]]

    if TYPE_CHECKING:  # the graph's own

        def _return_links(self) -> ReturnLinks: ...

        def _build_networkx(self) -> nx.MultiDiGraph[str]: ...

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
