"""The DOT text of a design's picture: its scene drawn as graphviz nodes, edges and
clusters, in the house style (colours, fonts, facades wrapped into rows).

>>> from statetools.review.model import DesignView, as_graph
>>> from statetools.review.scene import build_scene
>>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
>>> print(dot_source(build_scene(DesignView(as_graph([ping])), None)).splitlines()[0])
digraph statetools {
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import graphviz  # type: ignore[import-untyped]

from statetools.review.picture import Cluster, Edge, Node, Scene, Step

FONT = "Helvetica,Arial,sans-serif"
INK = "#374151"
MUTED = "#6b7280"
PATH = "#2563eb"
PATH_FILL = "#dbeafe"
FAIL = "#dc2626"
CURRENT = "#d97706"
CURRENT_FILL = "#fef3c7"
PER_ROW = 3
"""Top-level facades per row of the picture, when there are more than WRAP_AFTER."""
WRAP_AFTER = 4
CLUSTER_STYLE: dict[str, tuple[str, str, str]] = {
    # kind: (style, fill, border)
    "playbook": ("rounded,filled", "#eef4fb", "#93b4d8"),
    "machine": ("rounded,filled", "#f3f0fa", "#b0a3d4"),
    "facade": ("rounded,dashed,filled", "#fdf8e8", "#c9a93e"),
    "sections": ("rounded,filled", "#eff7f1", "#8fbf9a"),
}


def _plain(value: str) -> str:
    """A plain DOT label: backslashes kept, one line per line."""
    return value.replace("\\", "\\\\").replace("\n", "\\n")


def _text(value: str) -> str:
    return html.escape(value, quote=True)


def _steps(steps: Sequence[Step]) -> str:
    parts = []
    for step in steps:
        color = PATH if step.outcome == "ok" else FAIL
        mark = {"ok": "", "error": " (failed)", "blocked": " (blocked)"}[step.outcome]
        parts.append(f'<font color="{color}">{step.number}{mark}</font>')
    return ", ".join(parts)


def _tool_label(node: Node) -> str:
    title = f"<b>{_text(node.title)}</b>" if node.kind == "facade" else _text(node.title)
    if node.note:
        title += f'<br/><font color="{MUTED}" point-size="9">{_text(node.note)}</font>'
    if not node.steps:
        return f"<{title}>"
    return f'<{title}<br/><font point-size="10">{_steps(node.steps)}</font>>'


def _table_label(node: Node) -> str:
    header = _text(node.title)
    if node.kind in ("state", "section"):
        header = f"<b>{header}</b>"
    else:
        header = f'<font color="{MUTED}"><i>{header}</i></font>'
    if node.note:  # a section's key
        header += f'<br/><font color="{MUTED}" point-size="9">{_text(node.note)}</font>'
    if node.steps:  # a section's reads
        header += f'<br/><font point-size="10">{_steps(node.steps)}</font>'
    rows = [f'<tr><td align="center">{header}</td></tr>']
    if node.rows:
        rows.append("<hr/>")
    for row in node.rows:
        name = _text(row.tool)
        if row.steps:
            ok = any(step.outcome == "ok" for step in row.steps)
            color = PATH if ok else FAIL
            name = f'<font color="{color}"><b>{name}</b></font> {_steps(row.steps)}'
        rows.append(
            f'<tr><td align="left" port="{row.port}"><font point-size="11">{name}</font></td></tr>'
        )
    table = "".join(rows)
    return f'<<table border="0" cellborder="0" cellspacing="0" cellpadding="2">{table}</table>>'


def _node_attrs(node: Node) -> dict[str, str]:
    if node.kind in ("tool", "facade"):
        style = ["rounded", "filled"]
        if node.locked:
            style.append("dashed")
        called = any(step.outcome == "ok" for step in node.steps)
        attrs_ = {
            "shape": "folder" if node.kind == "facade" else "box",
            "style": ",".join(style),
            "label": _tool_label(node),
            "fillcolor": PATH_FILL if called else "white",
            "color": PATH if called else INK,
        }
        if node.tooltip:
            attrs_["tooltip"] = graphviz.nohtml(_plain(node.tooltip))
        if called:
            attrs_["penwidth"] = "2"
        return attrs_
    if node.kind in ("state", "global"):
        attrs_ = {
            "shape": "box",
            "style": "rounded,filled",
            "label": _table_label(node),
            "fillcolor": "white" if node.kind == "state" else "#f9fafb",
            "color": INK,
        }
        if node.final:
            attrs_["peripheries"] = "2"
        if node.current:
            attrs_.update(fillcolor=CURRENT_FILL, color=CURRENT, penwidth="2.5")
        return attrs_
    if node.kind == "section":
        read = any(step.outcome == "ok" for step in node.steps)
        attrs_ = {
            "shape": "box",
            "style": "rounded,filled,dashed" if node.locked else "rounded,filled",
            "label": _table_label(node),
            "fillcolor": PATH_FILL if read else "white",
            "color": PATH if read else INK,
        }
        if node.tooltip:
            attrs_["tooltip"] = graphviz.nohtml(_plain(node.tooltip))
        return attrs_
    if node.kind == "start":
        return {"shape": "point", "width": "0.18", "color": INK, "label": ""}
    if node.kind == "gate":
        return {
            "shape": "circle",
            "label": node.title,
            "fontsize": "10",
            "width": "0.3",
            "margin": "0.02",
            "color": MUTED,
            "fontcolor": MUTED,
            "tooltip": node.tooltip or node.title,
        }
    if node.kind == "template":
        return {
            "shape": "box",
            "style": "rounded,dotted",
            "color": MUTED,
            "fontcolor": MUTED,
            "label": graphviz.nohtml(_plain(node.title)),
        }
    if node.kind == "missing":
        return {
            "shape": "box",
            "style": "dashed",
            "color": FAIL,
            "fontcolor": FAIL,
            "label": graphviz.nohtml(_plain(f"{node.title}\n(not registered)")),
        }
    return {
        "shape": "note",
        "style": "filled",
        "fillcolor": "#f9fafb",
        "color": MUTED,
        "fontcolor": MUTED,
        "fontsize": "10",
        "label": graphviz.nohtml(_plain(node.title)),
    }


def _edge_attrs(edge: Edge) -> dict[str, str]:
    result: dict[str, str] = {}
    if edge.label:
        result["label"] = graphviz.nohtml(_plain(edge.label))
    if edge.kind in ("condition", "in_state"):
        result.update(color=MUTED, fontcolor=MUTED, fontsize="10")
        if edge.kind == "in_state":
            result["style"] = "dotted"
    elif edge.kind == "chain":
        result.update(color=MUTED, fontcolor=MUTED, fontsize="10", style="dashed")
    elif edge.kind == "expands":
        result.update(color=MUTED, arrowhead="vee")
    elif edge.kind == "unfolds":
        result.update(color=INK, fontcolor=MUTED, fontsize="10", style="bold")
    elif edge.kind == "transition":
        result.update(color=INK, fontsize="11")
    if edge.lhead:
        result["lhead"] = edge.lhead
    if edge.taken:
        result.update(color=PATH, fontcolor=PATH, penwidth="2")
    if edge.taken_lines and edge.label:
        lines = edge.label.split("\n")
        shown = [
            f'<font color="{PATH}">{_text(line)}</font>'
            if index in edge.taken_lines
            else _text(line)
            for index, line in enumerate(lines)
        ]
        result["label"] = f"<{'<br/>'.join(shown)}>"
        result["fontcolor"] = INK
    return result


def _cluster(parent: graphviz.Digraph, cluster: Cluster, scene: Scene) -> None:
    with parent.subgraph(name=cluster.id) as sub:
        style, fill, border = CLUSTER_STYLE[cluster.kind]
        note = (
            f' <font color="{MUTED}" point-size="10">{cluster.note}</font>' if cluster.note else ""
        )
        kind = f'<font color="{MUTED}" point-size="10">{cluster.kind}</font>'
        sub.attr(
            label=f"<{kind} <b>{_text(cluster.name)}</b>{note}>",
            style=style,
            fillcolor=fill,
            color=border,
            labeljust="l",
            margin="12",
        )
        stacked = {n for column in cluster.columns for n in column}
        for node_id in cluster.nodes:
            if node_id not in stacked:
                sub.node(node_id, **_node_attrs(scene.nodes[node_id]))
        for index, nodes in enumerate(cluster.columns):
            with sub.subgraph() as column:  # the facade's tools in columns
                column.attr(rank="same")
                for node_id in nodes:
                    column.node(node_id, **_node_attrs(scene.nodes[node_id]))
            if index:
                sub.edge(cluster.columns[index - 1][0], nodes[0], style="invis")
        for inner in cluster.clusters:
            _cluster(sub, inner, scene)


def _wrap_facades(dot: graphviz.Digraph, scene: Scene) -> None:
    """Top-level facades side by side, :data:`PER_ROW` to a row, instead of one tall
    column: an invisible edge leads from each facade's box to the next facade."""
    boxes = {c.name: c for c in scene.clusters if c.kind == "facade" and c.columns}
    facades = [
        node
        for node in scene.top
        if scene.nodes[node].kind == "facade" and scene.nodes[node].title in boxes
    ]
    if len(facades) <= WRAP_AFTER:
        return
    for index in range(1, len(facades)):
        if index % PER_ROW:
            previous = boxes[scene.nodes[facades[index - 1]].title]
            dot.edge(previous.columns[-1][0], facades[index], style="invis")


def dot_source(scene: Scene) -> str:
    """The DOT text of a scene."""
    dot = graphviz.Digraph("statetools")
    dot.attr(
        rankdir="LR",
        compound="true",
        newrank="true",
        fontname=FONT,
        nodesep="0.3",
        ranksep="0.45",
        bgcolor="white",
    )
    dot.attr("node", fontname=FONT, fontsize="12", color=INK, fontcolor="#111827")
    dot.attr("edge", fontname=FONT, arrowsize="0.7", color=INK)
    for node_id in scene.top:
        dot.node(node_id, **_node_attrs(scene.nodes[node_id]))
    for cluster in scene.clusters:
        _cluster(dot, cluster, scene)
    for edge in scene.edges:
        source = f"{edge.source}:{edge.tail_port}" if edge.tail_port else edge.source
        dot.edge(source, edge.target, **_edge_attrs(edge))
    _wrap_facades(dot, scene)
    text: str = dot.source
    return text
