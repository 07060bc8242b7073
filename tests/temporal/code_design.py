"""A code-mode design for the Temporal tests: a playbook behind ``run_code``.

``WHERE`` notes, for each run of a tool, whether it ran in an activity (in a Temporal
session a script's calls must run as tool activities, never in the workflow or in the
script's own step).
"""

from __future__ import annotations

from typing import Any

from temporalio import activity

import statetools as st
from statetools.temporal import ScriptByRequest

WHERE: list[str] = []


def _note(what: str) -> None:
    info = activity.info().activity_type if activity.in_activity() else "the workflow"
    WHERE.append(f"{what} in {info}")


def find(order: int) -> dict[str, Any]:
    """Find an order."""
    _note("find")
    return {"order": order, "status": "late", "total": 40.0}


def refund(order: int, amount: float) -> str:
    """Refund part of an order."""
    _note("refund")
    return f"refunded {amount} on order {order}"


DESK = (
    st.PlaybookTool("desk", "Handle an order")
    .with_tool(st.Tool.from_function(find))
    .with_tool(st.Tool.from_function(refund))
    .unlocked_by(find)
)
DESIGN = [st.CodeMode(DESK, seconds=1.0)]

SCRIPT = """
try:
    refund(7, 5.0)
except PermissionError as error:
    print("refused:", error)
found = find(7)
print(found["status"])
if found["status"] == "late":
    print(refund(7, found["total"] / 4))
len(found)
"""
STEPS: list[Any] = [
    ("run_code", {"code": SCRIPT}),
    ("run_code", {"code": "print(refund(7, 1.0))\nwhile True:\n    pass"}),
    "Order 7 got 10.0 back.",
]
MODEL = ScriptByRequest(STEPS)
