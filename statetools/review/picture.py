"""The picture of a design, independent of the output language (DOT or Mermaid):
nodes, edges and clusters with stable, escaped ids.

>>> node_id("section", "read_section", "billing")
'section_read_section__billing'
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

import attrs

from statetools.review.marks import Step

NodeKind = Literal[
    "tool",
    "facade",
    "state",
    "global",
    "start",
    "leaf",
    "gate",
    "missing",
    "template",
    "section",
]
EdgeKind = Literal["condition", "in_state", "transition", "unfolds", "start", "chain", "expands"]
ClusterKind = Literal["playbook", "machine", "facade", "sections"]

_SAFE = re.compile(r"[^A-Za-z0-9_]")
COLUMN = 8
"""Tools per column inside a facade's box."""


def node_id(kind: str, *parts: str) -> str:
    """A DOT/Mermaid-safe id: ``tool_search``; names with other characters get a hash.

    Ids never contain ``:`` (which DOT reads as a port) and are the same on every run.

    >>> node_id("tool", "search"), node_id("state", "order", "DRAFT")
    ('tool_search', 'state_order__DRAFT')
    >>> node_id("tool", "a:b")
    'tool_a_b_dcea6d'
    """
    cleaned = [_SAFE.sub("_", part) for part in parts]
    text = "__".join([kind, *cleaned]).replace(f"{kind}__", f"{kind}_", 1)
    if cleaned != list(parts) or any("__" in part for part in parts):
        digest = hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:6]
        text = f"{text}_{digest}"
    return text


@attrs.define
class Row:
    """A tool listed inside a state (or the every-state box) of a machine."""

    tool: str
    port: str
    steps: list[Step] = attrs.Factory(list)


@attrs.define
class Node:
    """A box, state, gate or marker of the picture."""

    id: str
    kind: NodeKind
    title: str
    locked: bool = False
    initial: bool = False
    final: bool = False
    current: bool = False
    rows: list[Row] = attrs.Factory(list)
    steps: list[Step] = attrs.Factory(list)
    tooltip: str | None = None
    note: str | None = None


@attrs.define
class Edge:
    """An arrow: a condition, a transition, an unfolding, the start marker."""

    source: str
    target: str
    kind: EdgeKind
    label: str | None = None
    tail_port: str | None = None
    lhead: str | None = None
    taken: bool = False
    taken_lines: frozenset[int] = frozenset()
    """Lines of a several-line label that the run took (the others are not highlighted)."""


@attrs.define
class Cluster:
    """A playbook, machine or facade box holding nodes and inner clusters."""

    id: str
    kind: ClusterKind
    name: str
    note: str | None = None
    nodes: list[str] = attrs.Factory(list)
    clusters: list[Cluster] = attrs.Factory(list)
    columns: list[list[str]] = attrs.Factory(list)
    """A facade's tools in columns of at most :data:`COLUMN` (drawn side by side)."""

    @property
    def title(self) -> str:
        """``playbook research``, ``facade files (exclusive)``."""
        note = f" ({self.note})" if self.note else ""
        return f"{self.kind} {self.name}{note}"


@attrs.define
class Scene:
    """Everything to draw, in a stable order."""

    nodes: dict[str, Node] = attrs.Factory(dict)
    edges: list[Edge] = attrs.Factory(list)
    clusters: list[Cluster] = attrs.Factory(list)
    top: list[str] = attrs.Factory(list)
    traced: bool = False
