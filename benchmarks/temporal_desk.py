"""The design and the scripted model of ``benchmarks/temporal_sessions.py``: a small
customer-desk playbook and a notes facade, and a model whose answers depend only on
the request (so any worker, on any retry, answers the same).

Session ``n`` is opened with :func:`prompt` and makes 2, 3 or 4 model calls (by
``n % 3``); its final answer joins the texts of every tool result it received, so a
wrong tool result, a missing announcement or a tool shown at the wrong time changes
the answer. Each model step also checks the tools it was shown against
:data:`SHOWN` and answers ``wrong tools ...`` if they differ.

The worker imports this module by name (``temporal_desk:DESIGN``), with
``benchmarks/`` on its path.
"""

from __future__ import annotations

import re
from typing import Any

import statetools as st
from statetools.messages import ToolMessage, UserMessage
from statetools.models.base import ModelRequest
from statetools.temporal import ScriptByRequest

STATUSES = ("shipped", "packed", "delivered")


def find_customer(email: str) -> str:
    """Find a customer by email."""
    number = int(email.split("@")[0].removeprefix("u"))
    return f"customer C{number:05d}"


def order_status(order: str) -> str:
    """The status of an order."""
    return f"order {order} is {STATUSES[int(order.removeprefix('W')) % 3]}"


def write_note(customer: str, text: str) -> str:
    """Add a note to a customer's file."""
    return f"noted for {customer}: {len(text)} characters"


def read_notes(customer: str) -> str:
    """Read the notes of a customer's file."""
    return f"no notes for {customer}"


DESK = (
    st.PlaybookTool("desk", "Look up customers and their orders")
    .with_tool(find_customer)
    .with_tool(order_status)
    .unlocked_by(find_customer)
)
NOTES = st.UnfoldingTool.of("notes", "Read and write customer notes", [write_note, read_notes])
DESIGN = [DESK, NOTES]

START = ["find_customer", "notes"]
AFTER_CUSTOMER = ["find_customer", "notes", "order_status"]
OPEN = ["find_customer", "order_status", "write_note", "read_notes"]
SHOWN: dict[int, list[list[str]]] = {
    0: [START, AFTER_CUSTOMER],
    1: [START, OPEN, OPEN],
    2: [START, AFTER_CUSTOMER, OPEN, OPEN],
}
"""The tools each model call of a session of kind ``n % 3`` is shown, in order."""


def prompt(n: int) -> str:
    """The first user message of session ``n``."""
    return f"I am u{n}@example.com. Where is my order W{n}?"


def _number(request: ModelRequest) -> int:
    first = next(m for m in request.messages if isinstance(m, UserMessage))
    found = re.search(r"u(\d+)@", first.content)
    assert found is not None
    return int(found.group(1))


def _answer(request: ModelRequest) -> str:
    return " | ".join(m.content for m in request.messages if isinstance(m, ToolMessage))


def _step(index: int) -> Any:
    def step(request: ModelRequest) -> Any:
        n = _number(request)
        kind = n % 3
        expected = SHOWN[kind][index]
        if list(request.tool_names) != expected:
            return f"wrong tools at call {index + 1}: {list(request.tool_names)}"
        customer = f"C{n:05d}"
        email = f"u{n}@example.com"
        plan: dict[int, list[Any]] = {
            0: [("find_customer", {"email": email})],
            1: [
                [("find_customer", {"email": email}), ("notes", {})],
                [
                    ("order_status", {"order": f"W{n}"}),
                    ("write_note", {"customer": customer, "text": f"asked about W{n}"}),
                ],
            ],
            2: [
                ("find_customer", {"email": email}),
                [("order_status", {"order": f"W{n}"}), ("notes", {})],
                ("read_notes", {"customer": customer}),
            ],
        }[kind]
        return plan[index] if index < len(plan) else _answer(request)

    return step


MODEL = ScriptByRequest([_step(index) for index in range(4)])


def expected_answer(n: int) -> str:
    """The final answer session ``n`` must end with."""
    customer, order = f"C{n:05d}", f"W{n}"
    status = f"order {order} is {STATUSES[n % 3]}"
    found = f"customer {customer}\n[now available: order_status]"
    return {
        0: found,
        1: " | ".join(
            [
                found,
                "Tools now available: write_note, read_notes.",
                status,
                f"noted for {customer}: {len(f'asked about {order}')} characters",
            ]
        ),
        2: " | ".join(
            [
                found,
                status,
                "Tools now available: write_note, read_notes.",
                f"no notes for {customer}",
            ]
        ),
    }[n % 3]


def model_calls(n: int) -> int:
    """How many model calls session ``n`` makes."""
    return len(SHOWN[n % 3])
