"""A design for the worker-kill test, loaded by reference in the test process and in
a ``statetools worker`` subprocess.

Every tool call and model call appends a line to ``$STATETOOLS_KILL_DIR/log`` (the
session's run id first, so sessions sharing the folder can be told apart). While the
file ``hold`` exists, ``step`` 2 waits after logging its start: the test knows the
worker is in the middle of that call and kills it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from temporalio import activity

import statetools as st
from statetools.models import ModelRequest, ModelResponse
from statetools.temporal import ScriptByRequest
from statetools.tools.context import RUN_ID_KEY

HELD_STEP = 2


def folder() -> Path:
    return Path(os.environ["STATETOOLS_KILL_DIR"])


def log(line: str) -> None:
    with (folder() / "log").open("a", encoding="utf-8") as file:
        file.write(f"{line}\n")


@st.llm_tool("Do one step of the work.")
def step(n: int, context: st.ToolCallContext) -> str:
    run = context[RUN_ID_KEY]
    log(f"{run} step {n} started by {os.getpid()}")
    while n == HELD_STEP and (folder() / "hold").exists():
        time.sleep(0.02)
    log(f"{run} step {n} done")
    return f"step {n} done"


@st.llm_tool("Write the report.")
def report(context: st.ToolCallContext) -> str:
    log(f"{context[RUN_ID_KEY]} report")
    return "report written"


WORK = st.PlaybookTool("work", "Do the work").with_tool(step).with_tool(report).unlocked_by(step)
ARCHIVE = st.UnfoldingTool.of(
    "archive",
    "Open the archive tools.",
    [st.Tool.create("file_report", "File it.", lambda: "filed")],
)
DESIGN = [WORK, ARCHIVE]

STEPS: list[Any] = [
    [("step", {"n": 1}), ("step", {"n": 2}), ("step", {"n": 3})],
    [("archive", {}), ("report", {})],
    ("file_report", {}),
    "Three steps done, the report is filed.",
]


class LoggedScript(ScriptByRequest):
    """The script, logging each model call under its session's workflow id."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        run = activity.info().workflow_id if activity.in_activity() else "local"
        turn = sum(m.role == "assistant" for m in request.messages) + 1
        log(f"{run} model {turn}")
        return await super().complete(request)


MODEL = LoggedScript(STEPS)
