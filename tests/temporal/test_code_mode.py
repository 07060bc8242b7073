"""Code mode in a Temporal session: each stretch of a script runs in the script
activity, each of its tool calls in the tool activity, checked and recorded by the
workflow; the session ends as a local run of the same design does, and its history
replays."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.worker import Replayer

import statetools as st
from statetools.engine.state import DisclosureState
from statetools.messages import messages_from_json
from statetools.temporal import SessionSettings, SessionWorkflow, session_worker, start_session
from tests.temporal.code_design import DESIGN, MODEL, WHERE
from tests.temporal.comparing import comparable
from tests.temporal.conftest import DevServer

REFERENCE = "tests.temporal.code_design:DESIGN"
PROMPT = "Order 7 is late."


def _session(server: DevServer, settings: SessionSettings) -> tuple[Any, list[str]]:
    async def main() -> tuple[Any, list[str]]:
        queue = f"q-{uuid.uuid4().hex}"
        async with session_worker(server.env.client, queue, [REFERENCE], MODEL):
            handle = await start_session(
                server.env.client,
                REFERENCE,
                PROMPT,
                id=uuid.uuid4().hex,
                task_queue=queue,
                settings=settings,
            )
            result = await handle.result()
            history = await handle.fetch_history()
        await Replayer(workflows=[SessionWorkflow]).replay_workflow(history)  # deterministic
        activities = [
            event.activity_task_scheduled_event_attributes.activity_type.name
            for event in history.events
            if event.HasField("activity_task_scheduled_event_attributes")
        ]
        return result, activities

    return server.loop.run_until_complete(main())


@pytest.mark.parametrize("turns_per_run", [200, 1])
def test_a_script_runs_as_activities_and_the_session_ends_as_a_local_run(
    dev_server: DevServer, turns_per_run: int
) -> None:
    WHERE.clear()
    result, activities = _session(dev_server, SessionSettings(turns_per_run=turns_per_run))
    in_temporal = list(WHERE)
    WHERE.clear()
    local = st.ToolLoop(MODEL).run(PROMPT, tools=DESIGN)

    assert in_temporal == [
        "find in statetools.tool",
        "refund in statetools.tool",
        "refund in statetools.tool",
    ]  # the locked refund never ran
    assert WHERE == ["find in the workflow", "refund in the workflow", "refund in the workflow"]
    if turns_per_run == 200:  # one run: its whole history
        assert activities == [
            "statetools.model",
            "statetools.script",  # to the locked refund (answered in the workflow)
            "statetools.script",  # to find
            "statetools.tool",
            "statetools.script",  # to refund
            "statetools.tool",
            "statetools.script",  # to the end
            "statetools.model",
            "statetools.script",
            "statetools.tool",
            "statetools.script",  # stopped at its time limit
            "statetools.model",
        ]
    assert result.output == local.output == "Order 7 got 10.0 back."
    assert messages_from_json(result.messages) == list(local.messages)
    assert DisclosureState.from_json(result.state) == local.state
    assert comparable(result.trace) == comparable(local.trace)
    first, second = (m.content for m in local.messages if m.role == "tool")
    assert first == (
        "refused: Tool 'refund' is locked. Call first: find.\n"
        "late\n"
        "refunded 10.0 on order 7\n"
        "3\n"
        "[now callable: refund]"
    )
    assert second == (
        "refunded 1.0 on order 7\nrun_code: the script was stopped: it ran longer than 1.0 s."
    )
