"""The picture of a design, independent of the output language (DOT or Mermaid).

:func:`build_scene` turns a graph (and optionally a run's trace) into clusters,
nodes and edges with stable, escaped ids (see :mod:`~statetools.review.picture`); the
DOT and Mermaid writers only format it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    InState,
    describe,
)
from statetools.engine.events import Event, Trace
from statetools.review.model import DesignView
from statetools.review.picture import (
    COLUMN,
    Cluster,
    Edge,
    Marks,
    Node,
    NodeKind,
    Row,
    Scene,
    read_marks,
)
from statetools.review.picture import Step as Step
from statetools.review.picture import node_id as node_id
from statetools.review.scene_parts import code_mode_edges, section_picture


class _Builder:
    def __init__(self, design: DesignView, marks: Marks | None) -> None:
        self.design = design
        self.marks = marks
        self.scene = Scene(traced=marks is not None)
        self.facade_clusters: dict[str, Cluster] = {}
        self.section_ports: dict[str, tuple[str, str]] = {}
        self.placed: set[str] = set()
        self.extra = 0

    # nodes ---------------------------------------------------------------------------

    def add(self, node: Node, cluster: Cluster | None) -> None:
        if node.id in self.scene.nodes:
            return
        self.scene.nodes[node.id] = node
        (cluster.nodes if cluster is not None else self.scene.top).append(node.id)

    def steps_of(self, tool: str) -> list[Step]:
        return list(self.marks.steps.get(tool, [])) if self.marks else []

    def steps_in(self, tool: str, machine: str, state: str, initial: str) -> list[Step]:
        """The steps of ``tool`` made in ``state`` of ``machine`` (a tool held by several
        states is marked only in those it was called in)."""
        return self.marks.steps_in(tool, machine, state, initial) if self.marks else []

    def called(self, tool: str) -> bool:
        return any(step.outcome == "ok" for step in self.steps_of(tool))

    def tool_endpoint(self, tool: str) -> tuple[str, str | None]:
        """The node (and port) an arrow from ``tool`` starts at."""
        if tool in self.section_ports:
            return self.section_ports[tool]
        entry = self.design.entries.get(tool)
        if entry is None:
            missing = node_id("missing", tool)
            self.add(Node(missing, "missing", tool, tooltip="not a registered tool"), None)
            return missing, None
        if entry.machine is not None and entry.machine in self.design.machines:
            machine = entry.machine
            if entry.is_global:
                return node_id("global", machine), node_id("port", tool)
            for state in self.design.state_names(machine):
                if state in entry.states:
                    return node_id("state", machine, state), node_id("port", tool)
        if tool in self.design.facades:
            return node_id("facade", tool), None
        return node_id("tool", tool), None

    def place_tool(self, tool: str, cluster: Cluster | None) -> None:
        if tool in self.placed:
            return
        self.placed.add(tool)
        entry = self.design.entries[tool]
        inner = bool(self.design.facade_chain(tool))
        locked = entry.condition is not None or inner
        kind: NodeKind = "facade" if tool in self.design.facades else "tool"
        node = Node(
            node_id(kind, tool),
            kind,
            tool,
            locked,
            steps=self.steps_of(tool),
            tooltip=entry.tool.description,
        )
        self.add(node, cluster)
        if kind == "facade":
            if self.design.facades[tool].searchable:
                node.note = "search: query or names"
            if tool in self.design.graph.outlines:
                self.place_sections(tool, cluster)
            else:
                self.place_facade(tool, cluster)
        if entry.condition is not None:
            target = node_id("facade" if tool in self.design.facades else "tool", tool)
            self.condition(entry.condition, target, cluster, tool)

    def place_facade(self, facade: str, parent: Cluster | None) -> None:
        definition = self.design.facades[facade]
        notes = []
        if definition.categories:
            notes.append("by category")
        if definition.selectable:
            notes.append("selectable")
        if definition.searchable:
            notes.append("search")
        if definition.exclusive:
            notes.append("exclusive")
        cluster = Cluster(
            node_id("cluster_facade", facade), "facade", facade, ", ".join(notes) or None
        )
        (parent.clusters if parent is not None else self.scene.clusters).append(cluster)
        self.facade_clusters[facade] = cluster
        for tool in definition.inner:
            if tool in self.design.entries:
                self.place_tool(tool, self.member_cluster(tool, cluster))
                if definition.categories:
                    chosen = [c for c, members in definition.categories if tool in members]
                    self.scene.nodes[self.tool_endpoint(tool)[0]].note = ", ".join(chosen)
        stacked = [n for n in cluster.nodes if self.scene.nodes[n].kind in ("tool", "facade")]
        if not stacked and cluster.clusters and cluster.clusters[0].nodes:
            stacked = cluster.clusters[0].nodes[:1]  # only playbooks inside: point at one
        if not stacked:
            empty = node_id("empty", facade)
            text = "(tools built by its selector)" if definition.selectable else "(no tools)"
            self.add(Node(empty, "leaf", text), cluster)
            stacked = [empty]
        cluster.columns = [stacked[i : i + COLUMN] for i in range(0, len(stacked), COLUMN)]
        first = cluster.columns[0]
        self.scene.edges.append(
            Edge(
                node_id("facade", facade),
                first[(len(first) - 1) // 2],
                "unfolds",
                "finds" if definition.searchable else "unfolds",
                lhead=cluster.id,
                taken=self.called(facade),
            )
        )

    def place_sections(self, facade: str, parent: Cluster | None) -> None:
        """The tree of sections ``facade`` reads, in a box of its own."""
        picture = section_picture(self.design, facade, self.marks)
        (parent.clusters if parent is not None else self.scene.clusters).append(picture.cluster)
        for node in picture.nodes:
            self.add(node, picture.cluster)
        self.scene.edges.extend(picture.edges)
        for tool, where in picture.ports.items():
            self.section_ports.setdefault(tool, where)
            self.placed.add(tool)
        for section, tool in picture.facades:
            self.place_tool(tool, picture.cluster)
            self.scene.edges.append(Edge(section, node_id("facade", tool), "expands"))
        for tool in picture.common:
            self.place_tool(tool, picture.cluster)
            self.scene.edges.append(
                Edge(
                    node_id("facade", facade),
                    self.tool_endpoint(tool)[0],
                    "unfolds",
                    "any read",
                    taken=self.called(tool),
                )
            )

    def member_cluster(self, tool: str, facade: Cluster) -> Cluster:
        """Where a tool of a facade goes: the facade's box, or for a playbook's tool
        inside a search facade, that playbook's box inside the facade's box."""
        owner = self.design.entries[tool].owner or ""
        if not owner.startswith("playbook:"):
            return facade
        name = owner.partition(":")[2]
        cluster_id = node_id("cluster_playbook", name)
        for inner in facade.clusters:
            if inner.id == cluster_id:
                return inner
        cluster = Cluster(cluster_id, "playbook", name)
        facade.clusters.append(cluster)
        return cluster

    # conditions -------------------------------------------------------------------------

    def condition(
        self,
        condition: Condition,
        target: str,
        cluster: Cluster | None,
        tool: str,
        sure: bool = True,
    ) -> None:
        """Draw ``condition`` into ``target``. ``sure``: when the tool was reached, this
        part must have held (not so under an ``or``, whose leaves the trace cannot tell)."""
        match condition:
            case AllOf(conditions=parts) | AnyOf(conditions=parts) if len(parts) == 1:
                self.condition(parts[0], target, cluster, tool, sure)
            case AllOf(conditions=parts) | AnyOf(conditions=parts):
                self.extra += 1
                op = "and" if isinstance(condition, AllOf) else "or"
                gate = node_id("gate", tool, str(self.extra))
                self.add(Node(gate, "gate", op, tooltip=describe(condition)), cluster)
                fired = self.fired(condition, tool)
                self.scene.edges.append(Edge(gate, target, "condition", taken=fired))
                inner_sure = sure and isinstance(condition, AllOf)
                for part in parts:
                    self.condition(part, gate, cluster, tool, inner_sure)
            case After(tools=names, count=count):
                for name in names:
                    source, port = self.tool_endpoint(name)
                    label = describe(After(name, count))
                    taken = self.called(name) and self.reached(tool)
                    self.scene.edges.append(
                        Edge(source, target, "condition", label, port, taken=taken)
                    )
            case InState(machine=machine, state=state):
                if machine in self.design.machines and state in self.design.state_names(machine):
                    source = node_id("state", machine, state)
                else:
                    source = node_id("missing", f"{machine}.{state}")
                    self.add(Node(source, "missing", f"{machine}: {state}"), None)
                self.scene.edges.append(Edge(source, target, "in_state", describe(condition)))
            case _:
                self.extra += 1
                leaf = node_id("leaf", tool, str(self.extra))
                self.add(Node(leaf, "leaf", describe(condition)), cluster)
                taken = sure and self.reached(tool)
                self.scene.edges.append(Edge(leaf, target, "condition", taken=taken))

    def fired(self, condition: Condition, tool: str) -> bool:
        """Whether the run saw ``condition`` (of ``tool``) hold: the tool unlocked or
        was called, and the calls the condition counts on happened."""
        return self.reached(tool) and self._held(condition)

    def _held(self, condition: Condition) -> bool:
        """Within a condition whose tool was reached: calls are known from the trace; any
        other leaf (artifact, state, predicate) is taken to have held."""
        match condition:
            case AllOf(conditions=parts):
                return all(self._held(part) for part in parts)
            case AnyOf(conditions=parts):
                return any(self._held(part) for part in parts)
            case After(tools=names):
                return all(self.called(name) for name in names)
        return True

    def reached(self, tool: str) -> bool:
        return self.marks is not None and (tool in self.marks.unlocked or self.called(tool))

    # definitions ---------------------------------------------------------------------

    def machine(self, name: str) -> None:
        design = self.design
        definition = design.machines[name]
        cluster = Cluster(node_id("cluster_machine", name), "machine", name)
        self.scene.clusters.append(cluster)
        start = node_id("start", name)
        self.add(Node(start, "start", ""), cluster)
        current = (
            (self.marks.current.get(name) or definition.initial_state()) if self.marks else None
        )
        initial_state = definition.initial_state()
        for state in definition.state_names:
            rows = [
                Row(tool, node_id("port", tool), self.steps_in(tool, name, state, initial_state))
                for tool, where in definition.availability
                if where == state and tool not in definition.global_tools
            ]
            self.add(
                Node(
                    node_id("state", name, state),
                    "state",
                    state,
                    initial=state == definition.initial_state(),
                    final=state in definition.final_states,
                    current=state == current,
                    rows=rows,
                ),
                cluster,
            )
        if definition.global_tools:
            rows = [
                Row(tool, node_id("port", tool), self.steps_of(tool))
                for tool in definition.global_tools
            ]
            self.add(Node(node_id("global", name), "global", "in every state", rows=rows), cluster)
        initial = node_id("state", name, definition.initial_state())
        self.scene.edges.append(Edge(start, initial, "start", taken=self.marks is not None))
        for tool in definition.tools:
            self.placed.add(tool.name)
        merged: dict[tuple[str, str], list[str]] = {}
        taken: dict[tuple[str, str], set[int]] = {}
        for transition in definition.transitions:
            label = transition.tool
            if transition.label:
                label = f"{label} [{transition.label}]"
            steps: list[str] = []
            if self.marks is not None:
                key = (name, transition.source, transition.target, transition.tool)
                steps = self.marks.transitions.get(key, [])
            if steps:
                label = f"{', '.join(steps)}: {label}"
            pair = (transition.source, transition.target)
            lines = merged.setdefault(pair, [])
            if label not in lines:
                lines.append(label)
            if steps:
                taken.setdefault(pair, set()).add(lines.index(label))
        for (source, target), lines in merged.items():
            took = frozenset(taken.get((source, target), ()))
            self.scene.edges.append(
                Edge(
                    node_id("state", name, source),
                    node_id("state", name, target),
                    "transition",
                    "\n".join(lines),
                    taken=bool(took),
                    taken_lines=took if len(lines) > 1 else frozenset(),
                )
            )

    def build(self) -> Scene:
        design = self.design
        for name in design.machines:
            self.machine(name)
        playbook_clusters: dict[str, Cluster] = {}
        for name, playbook in design.graph.playbooks.items():
            if any(design.entries[e.tool.name].facade for e in playbook.entries):
                continue  # drawn inside its search facade
            cluster = Cluster(node_id("cluster_playbook", name), "playbook", name)
            playbook_clusters[f"playbook:{name}"] = cluster
            self.scene.clusters.append(cluster)
        for tool, entry in design.entries.items():
            if tool in self.placed or design.enclosing.get(tool) is not None:
                continue
            owner = playbook_clusters.get(entry.owner or "")
            self.place_tool(tool, owner)
        for tool in design.entries:
            if tool not in self.placed:  # inside a facade that sits in no definition
                self.place_tool(tool, None)
        self.nest_machines()
        self.chains()
        code_mode_edges(self.scene, design, self.tool_endpoint)
        return self.scene

    def nest_machines(self) -> None:
        """Move the box of a machine inside a search facade into the facade's box."""
        for name, machine in self.design.machines.items():
            facades = {self.design.entries[t.name].facade for t in machine.tools}
            facade = next(iter(facades)) if len(facades) == 1 else None
            target = self.facade_clusters.get(facade) if facade else None
            box = next(
                (c for c in self.scene.clusters if c.id == node_id("cluster_machine", name)), None
            )
            if target is not None and box is not None:
                self.scene.clusters.remove(box)
                target.clusters.append(box)

    def chains(self) -> None:
        """Chained tools and discovered-tool templates, from ``chains_from`` edges: an
        arrow from the tool whose result provides the object."""
        graph = self.design.graph.to_networkx()
        for source, target, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1])):
            if data.get("kind") != "chains_from":
                continue
            producer = str(graph.nodes[target].get("label") or target.partition(":")[2])
            if producer not in self.design.entries:
                continue
            attributes = graph.nodes[source]
            label = str(attributes.get("label") or source.partition(":")[2])
            if attributes.get("template"):
                made = node_id("template", label)
                kind = f"discovers ({attributes.get('provider')})"
                self.add(Node(made, "template", label, locked=True), None)
            elif label in self.design.entries:
                made, _port = self.tool_endpoint(label)
                kind = f"returns {attributes.get('chained')}"
                self.scene.nodes[made].locked = True  # runs once an object is bound
            else:
                continue
            start, port = self.tool_endpoint(producer)
            self.scene.edges.append(Edge(start, made, "chain", kind, port))


def build_scene(
    design: DesignView, trace: Trace | Sequence[Event] | Sequence[dict[str, Any]] | None = None
) -> Scene:
    """The picture of ``design``; with a trace, what the run did is marked on it."""
    return _Builder(design, read_marks(trace)).build()
