"""Tools, types, predicates and definitions that the spec tests name by import path."""

from __future__ import annotations

import enum

import attrs

import statetools as st
from statetools.definitions.conditions import ConditionView
from statetools.tools.calling import ToolResult

P = "tests.spec.sample"
"""The import path prefix of this module."""


@st.llm_tool("Search the catalogue")
def search(query: str) -> str:
    return f"results for {query}"


@st.llm_tool("Analyze the results")
def analyze() -> str:
    return "analysis"


@st.llm_tool("Write the report")
def report() -> str:
    return "report"


def fetch(url: str) -> str:
    """Fetch a page."""
    return f"page {url}"


lookup = st.Tool.create("lookup", "Look an order up", lambda order_id: f"order {order_id}")
"""A module-level Tool whose handler is a lambda: found by the attribute name."""


@attrs.frozen
class Order:
    id: str


@attrs.frozen
class Summary:
    text: str


def cart_not_empty(view: ConditionView) -> bool:
    return view.calls("add_item") > 0


def approved(result: ToolResult) -> bool:
    return "approved" in result.text


class OrderState(enum.Enum):
    DRAFT = "draft"
    CONFIRMED = "confirmed"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"


add_item = st.Tool.create("add_item", "Add an item", lambda item: f"added {item}")
confirm = st.Tool.create("confirm", "Confirm the order", lambda: "approved")
ship = st.Tool.create("ship", "Ship the order", lambda: "shipped")
cancel = st.Tool.create("cancel", "Cancel the order", lambda: "cancelled")
help_tool = st.Tool.create("help", "Explain the process", lambda: "help")

research = (
    st.PlaybookTool("research", "Research a topic")
    .with_tools(search)
    .with_tool(analyze)
    .unlocked_by(search)
    .with_tool(report)
    .unlocked_by_all(search, analyze)
)
"""A Python-built playbook, named by import path in some tests."""

order_machine = (
    st.StateMachineTool("order", "Handle one order", OrderState)
    .with_initial_state(OrderState.DRAFT)
    .in_state(OrderState.DRAFT)
    .with_tool(add_item)
    .with_tool(confirm)
    .transitions_to(OrderState.CONFIRMED, approved)
    .transitions_to(OrderState.CANCELLED)
    .in_state(OrderState.CONFIRMED)
    .with_tool(ship)
    .transitions_to(OrderState.SHIPPED)
    .with_tool(cancel)
    .transitions_to(OrderState.CANCELLED, label="cancelled by the user")
    .with_global_tools(help_tool)
    .with_final_states(OrderState.SHIPPED, OrderState.CANCELLED)
)
"""A Python-built machine with a Python enum and a guard."""

REGISTRY = [add_item, confirm, ship, cancel, help_tool]
"""Tools named in YAML by name."""


def new_context() -> dict[str, object]:
    """A fresh run context with its own cart."""
    return {"cart": []}
