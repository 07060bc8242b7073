"""A small agent run in a subprocess by the durable-session tests.

Usage: python session_app.py DB LOG [PROMPT]. With CRASH=call:N it dies while the Nth
``step`` call runs (before its side effect), once; with CRASH=turn:N it dies as
iteration N starts, once; with CRASH=finish:1 it dies as the run finishes (every answer
saved, the end not yet), once (the marker file says it already crashed). DESIGN picks
the design: ``plain`` (a playbook and a facade, ending on the model's answer),
``direct`` (ending on a ``return_direct`` tool) or ``machine`` (ending when a state
machine reaches its final state). Every model request adds a line to LOG.requests.
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import Any

import statetools as st
from statetools.engine.events import IterationStarted, RunFinished
from statetools.messages import AssistantMessage, ToolCall
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse

DB, LOG = sys.argv[1], Path(sys.argv[2])
PROMPT = sys.argv[3] if len(sys.argv) > 3 else None
CRASH = os.environ.get("CRASH", "")
DESIGN = os.environ.get("DESIGN", "plain")
MARKER = LOG.with_suffix(".crashed")
REQUESTS = LOG.with_suffix(".requests")


def crash_once(kind: str, number: int) -> None:
    if f"{kind}:{number}" == CRASH and not MARKER.exists():
        MARKER.write_text("crashed")
        os._exit(3)


@st.llm_tool("Do one step of the work.")
def step(n: int) -> str:
    crash_once("call", n)
    with LOG.open("a") as log:
        log.write(f"step {n}\n")
    return f"step {n} done"


@st.llm_tool("Write the report.")
def report() -> str:
    with LOG.open("a") as log:
        log.write("report\n")
    return "report written"


def note(line: str) -> None:
    with LOG.open("a") as log:
        log.write(f"{line}\n")


@st.llm_tool("Deliver the work.", return_direct=True)
def deliver() -> dict[str, int]:
    note("deliver")
    return {"delivered": 2}


class Review(enum.Enum):
    OPEN = "open"
    APPROVED = "approved"


@st.llm_tool("Approve the work.")
def approve() -> str:
    note("approve")
    return "approved"


review = (
    st.StateMachineTool("review", "Review the work", Review)
    .with_initial_state(Review.OPEN)
    .in_state(Review.OPEN)
    .with_tool(approve)
    .transitions_to(Review.APPROVED)
    .with_final_states(Review.APPROVED)
)

work = st.PlaybookTool("work", "Do the work").with_tool(step)
work = work.with_tool(report).unlocked_by(step)
archive = st.UnfoldingTool.of(
    "archive",
    "Open the archive tools.",
    [
        st.Tool.create("file_report", "File the report.", lambda: "filed"),
    ],
)

PLANS: dict[str, list[Any]] = {
    "plain": [
        [("step", {"n": 1}), ("step", {"n": 2}), ("step", {"n": 3})],
        [("archive", {})],
        [("report", {}), ("file_report", {})],
        "All done.",
    ],
    "direct": [
        [("step", {"n": 1}), ("step", {"n": 2})],
        [("deliver", {}), ("step", {"n": 3})],
    ],
    "machine": [
        [("step", {"n": 1}), ("step", {"n": 2})],
        [("approve", {}), ("step", {"n": 3})],
    ],
}
PLAN = PLANS[DESIGN]
TOOLS: dict[str, list[Any]] = {
    "plain": [work, archive],
    "direct": [work, deliver],
    "machine": [work, review],
}


class Planned:
    """Answers by how many answers the history already holds (the same in every process)."""

    capabilities = ModelCapabilities()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        done = sum(isinstance(m, AssistantMessage) for m in request.messages)
        with REQUESTS.open("a") as requests:
            requests.write(f"request {done + 1}\n")
        step = PLAN[done]
        if isinstance(step, str):
            return ModelResponse(AssistantMessage(step))
        calls = tuple(
            ToolCall(f"call_{done}_{i}", name, args) for i, (name, args) in enumerate(step)
        )
        return ModelResponse(AssistantMessage("", calls), stop_reason="tool_use")


def crash_on(event: st.Event) -> None:
    if isinstance(event, IterationStarted):
        crash_once("turn", event.iteration)
    if isinstance(event, RunFinished):
        crash_once("finish", 1)


def main() -> None:
    loop = st.ToolLoop(
        Planned(),
        clock=lambda: 0.0,
        id_factory=lambda: "run-1",
        listeners=[crash_on],
        end_on_final_state=DESIGN == "machine",
    )
    with st.SqliteStore(DB) as store:
        loop.run(PROMPT, tools=TOOLS[DESIGN], session="s1", store=store)


if __name__ == "__main__":
    main()
