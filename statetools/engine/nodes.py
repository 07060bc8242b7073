"""The vocabulary of the disclosure graph: node and edge kinds, node ids, tool entries.

>>> tool_node("search"), state_node("order", "DRAFT"), section_node("read_section", "a.b")
('tool:search', 'state:order.DRAFT', 'section:read_section/a.b')
"""

from __future__ import annotations

import attrs

from statetools.definitions.conditions import Condition
from statetools.tools.tool import BaseTool

NODE_KINDS = ("tool", "state", "machine", "playbook", "gate", "facade", "section")
EDGE_KINDS = (
    "requires",
    "unlocks",
    "available_in",
    "transitions_to",
    "contains",
    "chains_from",
    "expands",
)


def tool_node(name: str) -> str:
    """The node id of a tool."""
    return f"tool:{name}"


def facade_node(name: str) -> str:
    """The node id of a facade (an UnfoldingTool)."""
    return f"facade:{name}"


def state_node(machine: str, state: str) -> str:
    """The node id of a machine's state."""
    return f"state:{machine}.{state}"


def section_node(facade: str, path: str) -> str:
    """The node id of the prompt section at ``path`` (``billing.disputes``) read with
    the tool ``facade`` (``read_section``)."""
    return f"section:{facade}/{path}"


@attrs.frozen
class ToolEntry:
    """A registered tool and where it sits: its owner, condition, machine states and
    enclosing facade (the facade that must unfold before it shows)."""

    tool: BaseTool
    owner: str | None = None
    condition: Condition | None = None
    machine: str | None = None
    states: frozenset[str] = frozenset()
    is_global: bool = False
    facade: str | None = None
