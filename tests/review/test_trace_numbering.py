"""Trace diagrams number calls as turn.call, like the transcript, and highlight only what
the run took: the called tool's line of a transition label, the conditions that fired."""

from __future__ import annotations

import enum

import statetools as st
from statetools.engine.events import StateEntered, ToolCalled, ToolsUnlocked
from statetools.review.render import to_dot, to_mermaid
from statetools.review.scene import Step
from tests.review.designs import tool

PATH = "#2563eb"


def called(turn: int, call: str, name: str) -> ToolCalled:
    return ToolCalled(turn, call, name, {}, "text", 0.0)


def line_of(dot: str, start: str) -> str:
    return next(line.strip() for line in dot.splitlines() if line.strip().startswith(start))


class Cart(enum.Enum):
    OPEN = "open"
    PAID = "paid"


def cart() -> st.StateMachineTool[Cart]:
    return (
        st.StateMachineTool("cart", "A cart", Cart)
        .in_state(Cart.OPEN)
        .with_tool(tool("pay"))
        .transitions_to(Cart.PAID)
        .with_tool(tool("pay_with_points"))
        .transitions_to(Cart.PAID)
        .with_final_states(Cart.PAID)
    )


def test_calls_of_one_turn_are_numbered_turn_dot_call() -> None:
    playbook = st.PlaybookTool("p", "P").with_tool(tool("a")).with_tool(tool("b"))
    trace = st.Trace((called(1, "c1", "a"), called(3, "c2", "a"), called(3, "c3", "b")))

    dot = to_dot(st.disclosure_graph(playbook), trace=trace)

    assert f'<font color="{PATH}">1.1</font>, <font color="{PATH}">3.1</font>' in line_of(
        dot, "tool_a "
    )
    assert f'<font color="{PATH}">3.2</font>' in line_of(dot, "tool_b ")
    assert Step(3, 2, "ok").number == "3.2"


def test_only_the_called_tool_of_a_transition_label_is_highlighted() -> None:
    trace = st.Trace(
        (called(8, "c1", "pay_with_points"), StateEntered(8, "cart", "PAID", "OPEN", True))
    )

    dot = to_dot(st.disclosure_graph(cart()), trace=trace)
    mermaid = to_mermaid(st.disclosure_graph(cart()), trace=trace)

    assert line_of(dot, "state_cart__OPEN -> state_cart__PAID") == (
        f'state_cart__OPEN -> state_cart__PAID [label=<pay<br/><font color="{PATH}">8.1: '
        f'pay_with_points</font>> color="{PATH}" fontcolor="#374151" fontsize=11 penwidth=2]'
    )
    assert '  state_cart__OPEN -->|"pay<br/>8.1: pay_with_points"| state_cart__PAID' in mermaid


def test_the_edges_of_conditions_that_fired_are_highlighted() -> None:
    playbook = (
        st.PlaybookTool("shop", "Shop")
        .with_tool(tool("search"))
        .with_tool(tool("browse"))
        .with_tool(tool("apply_points"))
        .unlocked_by_any("search", "browse")
        .with_tool(tool("checkout"))
        .unlocked(st.AllOf(st.After("apply_points"), st.When(lambda view: True, "cart is full")))
    )
    trace = st.Trace(
        (
            called(1, "c1", "search"),
            ToolsUnlocked(1, ("apply_points",)),
            called(2, "c2", "apply_points"),
            ToolsUnlocked(2, ("checkout",)),
        )
    )

    dot = to_dot(st.disclosure_graph(playbook), trace=trace)

    def edge(start: str) -> str:
        return line_of(dot, start)

    def taken(line: str) -> bool:
        return f'color="{PATH}"' in line

    gates = [
        line.split()[0] for line in dot.splitlines() if "label=or" in line or "label=and" in line
    ]
    or_gate, and_gate = sorted(gates, key=lambda gate: "apply_points" not in gate)
    assert taken(edge(f"{or_gate} -> tool_apply_points"))
    assert taken(edge(f"tool_search -> {or_gate}"))
    assert not taken(edge(f"tool_browse -> {or_gate}"))
    assert taken(edge(f"{and_gate} -> tool_checkout"))
    assert taken(edge(f"tool_apply_points -> {and_gate}"))
    leaf = next(line.split()[0] for line in dot.splitlines() if line.strip().startswith("leaf_"))
    assert taken(edge(f"{leaf} -> {and_gate}"))


class Ticket(enum.Enum):
    OPEN = "open"
    RESOLVED = "resolved"
    ESCALATED = "escalated"
    CLOSED = "closed"


def ticket() -> st.StateMachineTool[Ticket]:
    close = tool("close")
    return (
        st.StateMachineTool("ticket", "A ticket", Ticket)
        .in_state(Ticket.OPEN)
        .with_tool(tool("resolve"))
        .transitions_to(Ticket.RESOLVED)
        .with_tool(tool("escalate"))
        .transitions_to(Ticket.ESCALATED)
        .in_state(Ticket.RESOLVED)
        .with_tool(close)
        .transitions_to(Ticket.CLOSED)
        .in_state(Ticket.ESCALATED)
        .with_tool(close)
        .transitions_to(Ticket.CLOSED)
        .with_final_states(Ticket.CLOSED)
    )


def test_a_tool_held_by_several_states_is_marked_only_in_the_state_it_was_called_in() -> None:
    """Issue 30: ``close`` was marked in RESOLVED and ESCALATED; only RESOLVED was entered."""
    trace = st.Trace(
        (
            called(1, "c1", "resolve"),
            StateEntered(1, "ticket", "RESOLVED", "OPEN", False),
            called(2, "c2", "close"),
            StateEntered(2, "ticket", "CLOSED", "RESOLVED", True),
        )
    )

    dot = to_dot(st.disclosure_graph(ticket()), trace=trace)

    resolved = line_of(dot, "state_ticket__RESOLVED ")
    escalated = line_of(dot, "state_ticket__ESCALATED ")
    assert f'<font color="{PATH}"><b>close</b></font> <font color="{PATH}">2.1</font>' in resolved
    assert '<font point-size="11">close</font>' in escalated
    assert "2.1" not in escalated
