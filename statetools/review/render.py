"""render(graph, format=..., trace=None): diagrams of a design, with graphviz or Mermaid;
and the Mermaid flowchart of a scene (what ``render(..., format="mermaid")`` writes).

Playbooks, machines and facades are clusters; a machine's states list their tools,
prompt sections are a tree in a box of their own, each section listing its tools,
the initial state has a start dot and final states a double border; conditions label
their arrows; tools that start locked (a condition, or inside a facade) are dashed.
With a trace, the calls are numbered on the tools and transitions they took, in
blue (red for failed or blocked calls), and the current state is highlighted.

>>> diagram = render(graph, format="svg")  # doctest: +SKIP
>>> diagram.save("design.svg")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import attrs
import graphviz  # type: ignore[import-untyped]

from statetools.engine.events import Event, Trace
from statetools.errors import StatetoolsError
from statetools.review.dot import dot_source
from statetools.review.model import DesignView, as_graph
from statetools.review.picture import Cluster, Edge, Node, Scene, Step
from statetools.review.scene import build_scene

Format = Literal["dot", "svg", "png", "mermaid"]
FORMATS: tuple[Format, ...] = ("dot", "svg", "png", "mermaid")
TraceLike = Trace | Sequence[Event] | Sequence[dict[str, Any]]


@attrs.frozen
class Diagram:
    """A rendered diagram: ``data`` in ``format``, and the DOT ``source`` behind it.

    ``text`` is the data as text (not for png). In a notebook the diagram shows itself
    (``_repr_svg_``).

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    >>> diagram = render(research.unlocked_by(search), format="dot")
    >>> diagram.format, diagram.text.startswith("digraph statetools {")
    ('dot', True)
    """

    format: Format
    data: bytes
    source: str

    @property
    def text(self) -> str:
        """The diagram as text (dot, svg, mermaid).

        >>> diagram = render(Tool.create("ping", "Ping the host", lambda: "pong"), format="dot")
        >>> diagram.text.splitlines()[0]
        'digraph statetools {'
        """
        if self.format == "png":
            raise StatetoolsError(
                "a png diagram is binary", hint="use .data, or format='svg' for text"
            )
        return self.data.decode("utf-8")

    def save(self, path: str | Path) -> Path:
        """Write the diagram to ``path``; returns the path.

        >>> diagram = render(Tool.create("ping", "Ping the host", lambda: "pong"), format="dot")
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     saved = diagram.save(Path(folder) / "ping.dot")
        ...     saved.name, saved.read_text() == diagram.text
        ('ping.dot', True)
        """
        target = Path(path)
        target.write_bytes(self.data)
        return target

    def _repr_svg_(self) -> str:
        if self.format == "svg":
            return self.text
        return _pipe(self.source, "svg").decode("utf-8")

    def __str__(self) -> str:
        return self.text if self.format != "png" else f"<png diagram, {len(self.data)} bytes>"


def render(graph: Any, format: Format = "svg", trace: TraceLike | None = None) -> Diagram:
    """Draw a design as ``dot``, ``svg``, ``png`` or ``mermaid``.

    ``graph`` is a :class:`~statetools.DisclosureGraph` (or tools and definitions);
    ``trace`` a run's :class:`~statetools.Trace` (or its ``to_json()`` list) to mark
    the path taken. DOT and Mermaid text are the same on every run.

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    >>> diagram = render(st.disclosure_graph(research.unlocked_by(search)), format="mermaid")
    >>> print(diagram.text, end="")
    flowchart LR
      subgraph cluster_playbook_research["playbook research"]
        tool_search["search"]
        tool_analyze["analyze"]
      end
      tool_search -.->|"after search"| tool_analyze
      classDef locked stroke-dasharray: 5 5
      class tool_analyze locked
    """
    if format not in FORMATS:
        raise StatetoolsError(
            f"unknown diagram format {format!r}", hint=f"use one of: {', '.join(FORMATS)}"
        )
    scene = build_scene(DesignView(as_graph(graph)), trace)
    source = dot_source(scene)
    if format == "dot":
        return Diagram(format, source.encode("utf-8"), source)
    if format == "mermaid":
        from statetools.review.render import mermaid_source

        return Diagram(format, mermaid_source(scene).encode("utf-8"), source)
    return Diagram(format, _pipe(source, format), source)


def to_dot(graph: Any, trace: TraceLike | None = None) -> str:
    """The DOT text of a design (see :func:`render`).

    >>> search = st.Tool.create("search", "Search the web", lambda: "found")
    >>> dot = to_dot(st.disclosure_graph(st.PlaybookTool("research", "Research").with_tool(search)))
    >>> dot.splitlines()[0], "tool_search [label=<search>" in dot
    ('digraph statetools {', True)
    """
    return render(graph, "dot", trace).text


def to_mermaid(graph: Any, trace: TraceLike | None = None) -> str:
    """The Mermaid flowchart of a design (see :func:`render`).

    >>> search = st.Tool.create("search", "Search the web", lambda: "found")
    >>> research = st.PlaybookTool("research", "Research").with_tool(search)
    >>> print(to_mermaid(st.disclosure_graph(research)))
    flowchart LR
      subgraph cluster_playbook_research["playbook research"]
        tool_search["search"]
      end
    <BLANKLINE>
    """
    return render(graph, "mermaid", trace).text


def _pipe(source: str, format: str) -> bytes:
    try:
        data: bytes = graphviz.Source(source).pipe(format=format)
        return data
    except graphviz.ExecutableNotFound as error:
        raise StatetoolsError(
            "rendering svg or png needs the graphviz 'dot' program, which is not installed",
            hint="install graphviz (Debian: apt-get install graphviz), or use format='dot'",
        ) from error


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
