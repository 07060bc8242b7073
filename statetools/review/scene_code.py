"""Code mode in a picture: an arrow from each script tool (``run_code``) to what its
scripts call (the boxes of its playbooks, machines and facades, its plain tools)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from statetools.review.model import DesignView
from statetools.review.picture import Cluster, Edge, Scene, node_id

__all__ = ["code_mode_edges"]

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
