"""The parts of a picture beyond playbooks, machines and facades.

Prompt sections: the tree of sections a facade reads (``read_section``,
``load_skill``), each section listing the tools attached to it. Code mode: an arrow
from each script tool (``run_code``) to what its scripts call (the boxes of its
playbooks, machines and facades, its plain tools).

A box per such facade holds a node per section; ``expands`` arrows lead from the facade
to the top-level sections and from each section to its children. A summary section is
dashed (it shows only its summary until it is read); tools attached to no section that
any read opens (``read_skill_file``) stand in the box too. With a trace, the reads are
numbered on the sections they read, and the calls on the tools' rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import attrs

from statetools.engine.prompt_sections import OutlineSection
from statetools.review.model import DesignView
from statetools.review.picture import Cluster, Edge, Marks, Node, Row, Scene, Step, node_id


@attrs.define
class SectionsPicture:
    """What the scene adds for one section-reading facade."""

    cluster: Cluster
    nodes: list[Node] = attrs.Factory(list)
    edges: list[Edge] = attrs.Factory(list)
    ports: dict[str, tuple[str, str]] = attrs.Factory(dict)
    """Tool -> (section node, row port) where it is listed (the first section)."""
    facades: list[tuple[str, str]] = attrs.Factory(list)
    """(section node, facade) for facades attached to a section: drawn as facades."""
    common: list[str] = attrs.Factory(list)
    """Tools any read opens, attached to no section."""


def section_id(facade: str, path: str) -> str:
    """The picture id of a section node.

    >>> section_id("read_section", "billing.disputes")
    'section_read_section__billing__disputes'
    """
    return node_id("section", facade, *path.split("."))


def _reads(design: DesignView, facade: str, marks: Marks | None) -> dict[str, list[Step]]:
    """The trace's reads of each section path."""
    found: dict[str, list[Step]] = {}
    if marks is None:
        return found
    parameter = design.facades[facade].parameter
    for name, arguments, step in marks.calls:
        key = arguments.get(parameter) if name == facade else None
        if isinstance(key, str):
            found.setdefault(key, []).append(step)
    return found


def _node(facade: str, section: OutlineSection, reads: list[Step]) -> Node:
    title = section.title.strip() or section.path
    note = None if title == section.path else section.path  # the key, when not the title
    if section.visibility == "full":
        note = f"{note} (full)" if note else "(full)"
    return Node(
        section_id(facade, section.path),
        "section",
        title,
        locked=section.visibility == "summary",
        steps=reads,
        tooltip=section.summary or None,
        note=note,
    )


def section_picture(design: DesignView, facade: str, marks: Marks | None) -> SectionsPicture:
    """The sections of ``facade`` as a box of nodes with ``expands`` arrows."""
    outline = design.graph.outlines[facade]
    picture = SectionsPicture(Cluster(node_id("cluster_sections", facade), "sections", facade))
    reads = _reads(design, facade, marks)
    steps = marks.steps if marks is not None else {}
    attached: set[str] = set()
    for section in outline.sections:
        read = reads.get(section.path, [])
        node = _node(facade, section, read)
        picture.nodes.append(node)
        parent = (
            node_id("facade", facade)
            if section.parent is None
            else section_id(facade, section.parent)
        )
        taken = any(step.outcome == "ok" for step in read)
        picture.edges.append(Edge(parent, node.id, "expands", taken=taken))
        for tool in section.tools:
            attached.add(tool)
            if tool in design.facades:
                picture.facades.append((node.id, tool))
                continue
            port = node_id("port", tool)
            node.rows.append(Row(tool, port, list(steps.get(tool, []))))
            picture.ports.setdefault(tool, (node.id, port))
    inner = design.facades[facade].inner
    picture.common = [tool for tool in inner if tool not in attached and tool in design.entries]
    return picture


LABEL = "calls in a script"


def code_mode_edges(
    scene: Scene, design: DesignView, endpoint: Callable[[str], tuple[str, str | None]]
) -> None:
    """Add the arrows of every code-mode item of ``design`` to ``scene``; ``endpoint``
    gives the node (and port) of a tool.

    >>> import statetools as st
    >>> ping = st.Tool.create("ping", "Ping.", lambda: "pong")
    >>> scene = st.render(st.disclosure_graph(st.CodeMode(ping)), format="dot").source
    >>> "tool_run_code -> tool_ping" in scene
    True
    """
    graph = design.graph
    if not graph.code_modes:
        return
    nx_graph = graph.to_networkx()
    for script in graph.code_modes:
        start, port = endpoint(script)
        targets = sorted(
            str(target)
            for _, target, data in nx_graph.out_edges(f"tool:{script}", data=True)
            if data.get("kind") == "contains"
        )
        for target in targets:
            kind, _, name = target.partition(":")
            if kind == "tool":
                scene.edges.append(Edge(start, endpoint(name)[0], "chain", LABEL, port))
            elif kind == "facade":
                scene.edges.append(Edge(start, node_id("facade", name), "chain", LABEL, port))
            else:
                box = _find(scene.clusters, node_id(f"cluster_{kind}", name))
                first = next(_nodes(box), None) if box is not None else None
                if box is not None and first is not None:
                    scene.edges.append(Edge(start, first, "chain", LABEL, port, lhead=box.id))


def _find(clusters: list[Cluster], wanted: str) -> Cluster | None:
    for cluster in clusters:
        if cluster.id == wanted:
            return cluster
        found = _find(cluster.clusters, wanted)
        if found is not None:
            return found
    return None


def _nodes(cluster: Cluster) -> Iterator[str]:
    yield from cluster.nodes
    for inner in cluster.clusters:
        yield from _nodes(inner)
