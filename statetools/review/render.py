"""render(graph, format=..., trace=None): diagrams of a design, with graphviz or Mermaid.

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
        from statetools.review.mermaid import mermaid_source

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
