"""Prompt sections as the disclosure graph sees them.

A facade that reads prompt sections (``read_section``, built by
:class:`~statetools.Sections` in a higher layer) describes its tree with an
:class:`Outline`; :func:`outline_elements` turns it into the graph's ``section`` nodes
and their edges:

- ``expands``: the facade -> each top-level section, a section -> each child section
  (reading a section shows its children), and a section -> each tool attached to it
  that waits for a read (reading the section, or one above it, opens the tool);
- ``contains``: a section -> a tool attached to it that is shown from the start (no
  summary section at or above it).

>>> outline = Outline((OutlineSection("a", "A", None, "summary", "About A.", ("t",), True),))
>>> nodes, edges = outline_elements("read_section", outline, tool_node)
>>> [node for node, _ in nodes], edges
(['section:read_section/a'], [('facade:read_section', 'section:read_section/a', 'expands'), \
('section:read_section/a', 'tool:t', 'expands')])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

from statetools.engine.graph_index import facade_node, section_node, tool_node
from statetools.errors import DefinitionError


@attrs.frozen
class OutlineSection:
    """One section: its ``path`` (``billing.disputes``), ``title``, ``parent`` path,
    ``visibility``, ``summary``, the names of the ``tools`` attached to it, and whether
    those tools wait for a read (``gated``: a summary section at or above it)."""

    path: str
    title: str
    parent: str | None
    visibility: Literal["summary", "full"]
    summary: str | None
    tools: tuple[str, ...] = ()
    gated: bool = False
    opens: tuple[str, ...] = ()
    """The tools reading it opens (its own, its descendants', and those opened by any
    read), in order."""


@attrs.frozen
class Outline:
    """A facade's sections in document order, and the paths defined more than once:
    ``(path, occurrence)`` with occurrence 2 for the second definition, 3 for the
    third, ... (only the first of them is read; ``check`` reports the others)."""

    sections: tuple[OutlineSection, ...]
    duplicates: tuple[tuple[str, int], ...] = ()


@runtime_checkable
class Outlined(Protocol):
    """A facade whose unfolding reads prompt sections.

    >>> class Notes:
    ...     name = "notes"
    ...     def outline(self) -> Outline:
    ...         return Outline(())
    >>> isinstance(Notes(), Outlined)
    True
    """

    name: str

    def outline(self) -> Outline:
        """The sections the facade reads."""
        ...


Element = tuple[str, dict[str, Any]]
Link = tuple[str, str, str]


def outline_elements(
    facade: str, outline: Outline, node_of: Callable[[str], str] = tool_node
) -> tuple[list[Element], list[Link]]:
    """The ``section`` nodes (id, attributes) and the edges (source, target, kind) of
    the sections of ``facade``; ``node_of`` gives a tool's node id."""
    nodes: list[Element] = []
    edges: list[Link] = []
    for section in outline.sections:
        node = section_node(facade, section.path)
        attributes = {
            "label": section.title,
            "facade": facade,
            "path": section.path,
            "visibility": section.visibility,
            "summary": section.summary,
            "gated": section.gated,
            "opens": section.opens,
        }
        nodes.append((node, attributes))
        parent = facade_node(facade) if section.parent is None else None
        edges.append((parent or section_node(facade, str(section.parent)), node, "expands"))
        for tool in section.tools:
            edges.append((node, node_of(tool), "expands" if section.gated else "contains"))
    return nodes, edges


def refuse_duplicate_sections(outlines: Mapping[str, Outline]) -> None:
    """Raise :class:`~statetools.DefinitionError` when two sections of a facade share a
    path (a run refuses them; ``check`` reports them as ST017).

    >>> refuse_duplicate_sections({"read_section": Outline((), (("a", 2),))})
    Traceback (most recent call last):
    statetools.errors.DefinitionError: read_section: more than one section has the key a ...
    """
    for facade, outline in outlines.items():
        if outline.duplicates:
            paths = ", ".join(dict.fromkeys(path for path, _ in outline.duplicates))
            raise DefinitionError(
                f"more than one section has the key {paths}",
                path=facade,
                hint="give every section its own key among its siblings "
                "(statetools check lists them)",
            )
