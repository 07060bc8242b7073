"""The design every bridge is tested with: a playbook, a state machine and a facade.

The handlers note each call in ``ran``, so a test can tell that a locked call never ran.
"""

from __future__ import annotations

import enum
from typing import Any

import statetools as st


class Order(enum.Enum):
    DRAFT = "draft"
    CONFIRMED = "confirmed"


def design(ran: list[str]) -> list[Any]:
    """search unlocks analyze; the order machine starts in DRAFT (add_item, confirm)
    and confirm moves it to CONFIRMED (ship); the github facade holds whoami and
    list_issues."""

    def handler(name: str, text: str) -> Any:
        def run(**arguments: Any) -> str:
            ran.append(name)
            return text

        return run

    def tool(name: str, description: str, text: str, *params: st.Parameter) -> st.Tool:
        return st.Tool.create(
            name, description, handler(name, text), schema=st.InputSchema.of(*params)
        )

    search = tool("search", "Search the web.", "found 3 pages", st.Parameter.string("q", "Query"))
    analyze = tool("analyze", "Analyze the pages.", "analysis done")
    research = (
        st.PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    ).unlocked_by(search)
    order = (
        st.StateMachineTool("order", "Handle one order", Order)
        .with_initial_state(Order.DRAFT)
        .in_state(Order.DRAFT)
        .with_tool(tool("add_item", "Add an item.", "added", st.Parameter.string("sku", "SKU")))
        .with_tool(tool("confirm", "Confirm the order.", "confirmed"))
        .transitions_to(Order.CONFIRMED)
        .in_state(Order.CONFIRMED)
        .with_tool(tool("ship", "Ship the order.", "shipped"))
    )
    github = st.UnfoldingTool.of(
        "github",
        "Open the GitHub tools.",
        [tool("whoami", "Who am I.", "ada"), tool("list_issues", "List issues.", "none open")],
    )
    return [research, order, github]


SCRIPT: list[Any] = [
    ("analyze", {}),
    ("search", {"q": "tides"}),
    ("confirm", {}),
    ("github", {}),
    ("whoami", {}),
    "All done.",
]
"""The calls the test model makes, one per request, then its answer."""

FIRST = ["search", "add_item", "confirm", "github"]
REQUESTS = [
    FIRST,
    FIRST,
    ["search", "add_item", "confirm", "github", "analyze"],
    ["search", "github", "analyze", "ship"],
    ["search", "analyze", "ship", "whoami", "list_issues"],
    ["search", "analyze", "ship", "whoami", "list_issues"],
]
"""The tools of each model request, exactly, in order."""

LOCKED = "Tool 'analyze' is locked. Call first: search."
ANSWERS = [
    LOCKED,
    "found 3 pages\n[now available: analyze]",
    "confirmed\n[now available: ship; state is now CONFIRMED]",
    "Tools now available: whoami, list_issues.",
    "ada",
]
"""What the model reads back for each call of SCRIPT, exactly."""
RAN = ["search", "confirm", "whoami"]
