"""Small designs written for the review tests."""

from __future__ import annotations

import enum

import statetools as st


def tool(name: str, description: str | None = None) -> st.Tool:
    """A tool that takes no arguments and returns its name."""
    return st.Tool.create(name, description or f"The {name} step.", lambda: name)


def research() -> st.PlaybookTool:
    """search -> analyze -> report (report needs both)."""
    return (
        st.PlaybookTool("research", "Research a topic")
        .with_tool(tool("search"))
        .with_tool(tool("analyze"))
        .unlocked_by("search")
        .with_tool(tool("report"))
        .unlocked_by_all("search", "analyze")
    )


class Order(enum.Enum):
    DRAFT = "draft"
    SENT = "sent"
    DONE = "done"


def order() -> st.StateMachineTool[Order]:
    """DRAFT -confirm-> SENT -ship-> DONE (final); help in every state."""
    return (
        st.StateMachineTool("order", "Handle one order", Order)
        .with_initial_state(Order.DRAFT)
        .in_state(Order.DRAFT)
        .with_tool(tool("confirm"))
        .transitions_to(Order.SENT)
        .in_state(Order.SENT)
        .with_tool(tool("ship"))
        .transitions_to(Order.DONE)
        .with_global_tools(tool("help"))
        .with_final_states(Order.DONE)
    )
