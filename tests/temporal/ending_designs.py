"""A design for the Temporal tests of how a turn ends: a ticket state machine whose
``close`` reaches a final state, a ``return_direct`` tool and a plain tool, with a
script whose answers depend only on the request (see ScriptByRequest)."""

from __future__ import annotations

import enum
from typing import Any

import statetools as st
from statetools.temporal import ScriptByRequest


class Ticket(enum.Enum):
    OPEN = "open"
    WORKING = "working"
    CLOSED = "closed"


def take(ticket: str) -> str:
    """Take a ticket."""
    return f"took {ticket}"


def close(note: str) -> str:
    """Close the ticket."""
    return f"closed: {note}"


def step(n: int) -> str:
    """Do one step."""
    return f"step {n} done"


@st.llm_tool("Deliver the work.", return_direct=True)
def deliver(what: str) -> dict[str, str]:
    return {"delivered": what}


TICKET = (
    st.StateMachineTool("ticket", "Work on a ticket", Ticket)
    .with_initial_state(Ticket.OPEN)
    .in_state(Ticket.OPEN)
    .with_tool(take)
    .transitions_to(Ticket.WORKING)
    .in_state(Ticket.WORKING)
    .with_tool(close)
    .transitions_to(Ticket.CLOSED)
    .with_final_states(Ticket.CLOSED)
)
DESIGN = [TICKET, step, deliver]

MESSAGES = ["Close ticket T1.", "Deliver the fix.", "Thanks."]
STEPS: list[Any] = [
    ("take", {"ticket": "T1"}),
    [("close", {"note": "fixed"}), ("step", {"n": 1})],  # a final state, then a plain call
    [("step", {"n": 2}), ("deliver", {"what": "the fix"}), ("step", {"n": 3})],
    "You are welcome.",
]
MODEL = ScriptByRequest(STEPS)

BOTH: list[Any] = [
    ("take", {"ticket": "T2"}),
    [("close", {"note": "done"}), ("deliver", {"what": "the patch"}), ("step", {"n": 4})],
]
BOTH_MODEL = ScriptByRequest(BOTH)
"""A final state reached, then a ``return_direct`` result, in one response."""
