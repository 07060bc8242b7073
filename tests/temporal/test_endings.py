"""A turn of a Temporal session ends as a local run's does: on a final state (with
``end_on_final_state``) and on a ``return_direct`` result, with the same answer,
history, state and trace, after continue-as-new too; the next user message starts
the next run."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.engine.events import RunFinished
from statetools.engine.state import DisclosureState
from statetools.messages import messages_from_json
from statetools.temporal import (
    SessionSettings,
    ask,
    end_session,
    session_worker,
    start_session,
)
from tests.temporal.comparing import comparable
from tests.temporal.conftest import DevServer
from tests.temporal.ending_designs import BOTH_MODEL, DESIGN, MESSAGES, MODEL

REFERENCE = "tests.temporal.ending_designs:DESIGN"


def _session(
    server: DevServer, messages: list[str], settings: SessionSettings, model: Any = MODEL
) -> Any:
    async def main() -> Any:
        queue = f"q-{uuid.uuid4().hex}"
        async with session_worker(server.env.client, queue, [REFERENCE], model):
            handle = await start_session(
                server.env.client,
                REFERENCE,
                id=uuid.uuid4().hex,
                task_queue=queue,
                wait_for_messages=True,
                settings=settings,
            )
            asked = [await ask(handle, text) for text in messages]
            return asked, await end_session(handle)

    return server.loop.run_until_complete(main())


def _local(tmp_path: Path, messages: list[str], end_on_final_state: bool) -> list[st.LoopResult]:
    store = st.SqliteStore(tmp_path / "local.db")
    loop = st.ToolLoop(MODEL, end_on_final_state=end_on_final_state)
    return [loop.run(text, tools=DESIGN, session="s", store=store) for text in messages]


@pytest.mark.parametrize("turns_per_run", [200, 1])
def test_a_final_state_and_a_return_direct_tool_end_the_turn_as_locally(
    dev_server: DevServer, tmp_path: Path, turns_per_run: int
) -> None:
    settings = SessionSettings(end_on_final_state=True, turns_per_run=turns_per_run)
    asked, result = _session(dev_server, MESSAGES, settings)
    local = _local(tmp_path, MESSAGES, end_on_final_state=True)
    assert [r.output for r in local] == [
        "closed: fixed",
        {"delivered": "the fix"},
        "You are welcome.",
    ]
    assert [r.outcome for r in local] == ["final_state", "return_direct", "answer"]
    assert asked == result.answers == [r.output for r in local]
    assert result.output == "You are welcome."
    assert messages_from_json(result.messages) == list(local[-1].messages)
    assert DisclosureState.from_json(result.state) == local[-1].state
    assert comparable(result.trace) == comparable(local[-1].trace)
    finished = st.Trace.from_json(result.trace).of_type(RunFinished)
    assert [(e.iterations, e.outcome) for e in finished] == [
        (2, "final_state"),
        (3, "return_direct"),
        (4, "answer"),
    ]
    assert result.iterations == 4
    # one run per model call, and the turn that ended a message continues as new too
    assert result.runs == (5 if turns_per_run == 1 else 1)
    tool_texts = [m.content for m in messages_from_json(result.messages) if m.role == "tool"]
    assert tool_texts == [
        "took T1\n[now available: close; state is now WORKING]",
        "closed: fixed\n[state is now CLOSED (final)]",
        "step 1 done",
        "step 2 done",
        '{"delivered": "the fix"}',
        "step 3 done",
    ]


def test_without_end_on_final_state_only_the_return_direct_tool_ends_the_turn(
    dev_server: DevServer, tmp_path: Path
) -> None:
    messages = MESSAGES[:2]
    asked, result = _session(dev_server, messages, SessionSettings(turns_per_run=2))
    local = _local(tmp_path, messages, end_on_final_state=False)
    assert asked == result.answers == [{"delivered": "the fix"}, "You are welcome."]
    assert [r.output for r in local] == asked
    assert messages_from_json(result.messages) == list(local[-1].messages)
    assert DisclosureState.from_json(result.state) == local[-1].state
    assert comparable(result.trace) == comparable(local[-1].trace)
    finished = st.Trace.from_json(result.trace).of_type(RunFinished)
    assert [e.outcome for e in finished] == ["return_direct", "answer"]


def test_a_return_direct_result_wins_over_a_final_state_reached_before_it(
    dev_server: DevServer,
) -> None:
    settings = SessionSettings(end_on_final_state=True)
    asked, result = _session(dev_server, ["Close ticket T2."], settings, BOTH_MODEL)
    local = st.ToolLoop(BOTH_MODEL, end_on_final_state=True).run("Close ticket T2.", tools=DESIGN)
    assert (local.output, local.outcome) == ({"delivered": "the patch"}, "return_direct")
    assert asked == result.answers == [local.output]
    assert messages_from_json(result.messages) == list(local.messages)
    assert messages_from_json(result.messages)[-1].content == "step 4 done"
    assert DisclosureState.from_json(result.state) == local.state
    assert comparable(result.trace) == comparable(local.trace)
