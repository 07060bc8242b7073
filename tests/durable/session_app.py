"""A small agent run in a subprocess by the durable-session tests.

Usage: python session_app.py DB LOG [PROMPT]. With CRASH=call:N it dies while the Nth
``step`` call runs (before its side effect), once; with CRASH=turn:N it dies as
iteration N starts, once (the marker file says it already crashed).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import statetools as st
from statetools.loop.events import IterationStarted
from statetools.messages import AssistantMessage, ToolCall
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse

DB, LOG = sys.argv[1], Path(sys.argv[2])
PROMPT = sys.argv[3] if len(sys.argv) > 3 else None
CRASH = os.environ.get("CRASH", "")
MARKER = LOG.with_suffix(".crashed")


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


work = st.PlaybookTool("work", "Do the work").with_tool(step)
work = work.with_tool(report).unlocked_by(step)
archive = st.UnfoldingTool.of(
    "archive",
    "Open the archive tools.",
    [
        st.Tool.create("file_report", "File the report.", lambda: "filed"),
    ],
)

PLAN: list[Any] = [
    [("step", {"n": 1}), ("step", {"n": 2}), ("step", {"n": 3})],
    [("archive", {})],
    [("report", {}), ("file_report", {})],
    "All done.",
]


class Planned:
    """Answers by how many answers the history already holds (the same in every process)."""

    capabilities = ModelCapabilities()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        done = sum(isinstance(m, AssistantMessage) for m in request.messages)
        step = PLAN[done]
        if isinstance(step, str):
            return ModelResponse(AssistantMessage(step))
        calls = tuple(
            ToolCall(f"call_{done}_{i}", name, args) for i, (name, args) in enumerate(step)
        )
        return ModelResponse(AssistantMessage("", calls), stop_reason="tool_use")


def crash_on_turn(event: st.Event) -> None:
    if isinstance(event, IterationStarted):
        crash_once("turn", event.iteration)


def main() -> None:
    loop = st.ToolLoop(
        Planned(), clock=lambda: 0.0, id_factory=lambda: "run-1", listeners=[crash_on_turn]
    )
    with st.SqliteStore(DB) as store:
        loop.run(PROMPT, tools=[work, archive], session="s1", store=store)


if __name__ == "__main__":
    main()
