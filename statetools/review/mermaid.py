"""The Mermaid flowchart of a scene (what ``render(..., format="mermaid")`` writes)."""

from __future__ import annotations

from statetools.review.marks import Step
from statetools.review.picture import Cluster, Edge, Node, Scene

CLASSES = {
    "locked": "stroke-dasharray: 5 5",
    "missing": "stroke:#dc2626,color:#dc2626,stroke-dasharray: 3 3",
    "start": "fill:#374151,stroke:#374151",
    "current": "fill:#fef3c7,stroke:#d97706,stroke-width:3px",
    "called": "fill:#dbeafe,stroke:#2563eb,stroke-width:2px",
}


def _quote(text: str) -> str:
    """Text for inside a Mermaid ``"..."`` label."""
    replacements = {"&": "#amp;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "\n": "<br/>"}
    return "".join(replacements.get(char, char) for char in text)


def _steps(steps: list[Step]) -> str:
    marks = {"ok": "", "error": " (failed)", "blocked": " (blocked)"}
    return ", ".join(f"{step.number}{marks[step.outcome]}" for step in steps)


def _label(node: Node) -> str:
    if node.kind in ("state", "global", "section"):
        bold = node.kind != "global"
        title = f"<b>{_quote(node.title)}</b>" if bold else _quote(node.title)
        lines = [title]
        if node.kind == "section":  # its key, and the reads of it
            if node.note:
                lines.append(f"<i>{_quote(node.note)}</i>")
            if node.steps:
                lines.append(_quote(_steps(node.steps)))
        for row in node.rows:
            suffix = f" ({_steps(row.steps)})" if row.steps else ""
            lines.append(_quote(row.tool + suffix))
        return "<br/>".join(lines)
    text = _quote(node.title)
    if node.note:
        text += f"<br/><i>{_quote(node.note)}</i>"
    if node.steps:
        text += f"<br/>{_quote(_steps(node.steps))}"
    return text


def _shape(node: Node) -> str:
    label = _label(node)
    match node.kind:
        case "start":
            return '((" "))'
        case "gate":
            return f'(("{label}"))'
        case "facade":
            return f'[/"{label}"/]'
        case "state" if node.final:
            return f'[["{label}"]]'
        case "state" | "global" | "section":
            return f'("{label}")'
        case "leaf":
            return f'>"{label}"]'
    return f'["{label}"]'


def _classes(node: Node) -> list[str]:
    classes = []
    if node.locked:
        classes.append("locked")
    if node.kind == "missing":
        classes.append("missing")
    if node.kind == "template":
        classes.append("locked")
    if node.kind == "start":
        classes.append("start")
    if node.current:
        classes.append("current")
    if any(step.outcome == "ok" for step in node.steps):
        classes.append("called")
    return classes


def _edge(edge: Edge) -> str:
    arrow = "-.->" if edge.kind in ("condition", "in_state", "chain") else "-->"
    if edge.kind == "unfolds":
        arrow = "==>"
    label = edge.label or ""
    text = f'|"{_quote(label)}"|' if label else ""
    target = edge.lhead or edge.target
    return f"{edge.source} {arrow}{text} {target}"


def _cluster(cluster: Cluster, scene: Scene, indent: str, lines: list[str]) -> None:
    lines.append(f'{indent}subgraph {cluster.id}["{_quote(cluster.title)}"]')
    for node_id in cluster.nodes:
        lines.append(f"{indent}  {node_id}{_shape(scene.nodes[node_id])}")
    for inner in cluster.clusters:
        _cluster(inner, scene, indent + "  ", lines)
    lines.append(f"{indent}end")


def mermaid_source(scene: Scene) -> str:
    """A ``flowchart LR`` with one subgraph per playbook, machine and facade."""
    lines = ["flowchart LR"]
    for node_id in scene.top:
        lines.append(f"  {node_id}{_shape(scene.nodes[node_id])}")
    for cluster in scene.clusters:
        _cluster(cluster, scene, "  ", lines)
    taken: list[str] = []
    for index, edge in enumerate(scene.edges):
        lines.append(f"  {_edge(edge)}")
        if edge.taken:
            taken.append(str(index))
    assigned = [(node_id, name) for node_id, node in scene.nodes.items() for name in _classes(node)]
    used = {name for _, name in assigned}
    lines += [f"  classDef {name} {style}" for name, style in CLASSES.items() if name in used]
    lines += [f"  class {node_id} {name}" for node_id, name in assigned]
    if taken:
        lines.append(f"  linkStyle {','.join(taken)} stroke:#2563eb,stroke-width:2px")
    return "\n".join(lines) + "\n"
