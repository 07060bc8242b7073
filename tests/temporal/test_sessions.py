"""Sessions on a real Temporal dev server and a real worker (no mock of Temporal)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

import statetools as st
from statetools.engine.events import RunFinished
from statetools.engine.state import DisclosureState
from statetools.messages import messages_from_json
from statetools.temporal import (
    SessionSettings,
    ask,
    disclosure_state,
    end_session,
    session_worker,
    start_session,
    trace,
    visible_tools,
)
from tests.temporal.comparing import comparable
from tests.temporal.conftest import DevServer
from tests.temporal.session_designs import DESIGN, MODEL

REFERENCE = "tests.temporal.session_designs:DESIGN"
PROMPT = "Research tides and save a note."
T = TypeVar("T")


def _on_worker(server: DevServer, body: Callable[[Any, str], Awaitable[T]]) -> T:
    async def main() -> T:
        queue = f"q-{uuid.uuid4().hex}"
        worker = session_worker(server.env.client, queue, [REFERENCE], MODEL)
        async with worker:
            return await body(server.env.client, queue)

    return server.loop.run_until_complete(main())


def _unbroken() -> st.LoopResult:
    return st.ToolLoop(MODEL).run(PROMPT, tools=DESIGN)


def test_a_session_with_a_playbook_and_a_facade_completes_as_a_local_run_does(
    dev_server: DevServer,
) -> None:
    async def body(client: Any, queue: str) -> Any:
        handle = await start_session(
            client, REFERENCE, PROMPT, id=uuid.uuid4().hex, task_queue=queue
        )
        return await handle.result()

    result = _on_worker(dev_server, body)
    local = _unbroken()
    assert result.output == "Saved a note on tides."
    assert result.answers == ["Saved a note on tides."]
    assert messages_from_json(result.messages) == list(local.messages)
    assert DisclosureState.from_json(result.state) == local.state
    assert result.iterations == 5
    assert result.runs == 1
    assert comparable(result.trace) == comparable(local.trace)
    tool_texts = [m.content for m in local.messages if m.role == "tool"]
    assert tool_texts == [
        "3 articles about tides\n[now available: summarize]",
        "summary: Tides follow the moo",
        "Tools now available: read_note, write_note.",
        "wrote 22 characters to tides",
        "Tool 'nope' does not exist. Available tools: search, summarize, read_note, write_note.",
    ]


def test_continue_as_new_after_n_turns_keeps_the_state(dev_server: DevServer) -> None:
    async def body(client: Any, queue: str) -> Any:
        handle = await start_session(
            client,
            REFERENCE,
            PROMPT,
            id=uuid.uuid4().hex,
            task_queue=queue,
            settings=SessionSettings(turns_per_run=2),
        )
        return await handle.result()

    result = _on_worker(dev_server, body)
    local = _unbroken()
    assert result.runs == 3  # turns 1-2, 3-4, then 5 (the answer)
    assert result.output == "Saved a note on tides."
    assert comparable(result.trace) == comparable(local.trace)
    assert messages_from_json(result.messages) == list(local.messages)
    assert DisclosureState.from_json(result.state) == local.state


def test_a_waiting_session_takes_messages_and_answers_queries(
    dev_server: DevServer, tmp_path: Path
) -> None:
    async def body(client: Any, queue: str) -> Any:
        handle = await start_session(
            client,
            REFERENCE,
            id=uuid.uuid4().hex,
            task_queue=queue,
            wait_for_messages=True,
            settings=SessionSettings(turns_per_run=3),
        )
        before = await visible_tools(handle)
        first = await ask(handle, PROMPT)
        after = await visible_tools(handle)
        state = await disclosure_state(handle)
        second = await ask(handle, "What is in the note?")
        so_far = await trace(handle)
        result = await end_session(handle)
        return before, first, after, state, second, so_far, result

    before, first, after, state, second, so_far, result = _on_worker(dev_server, body)
    assert before == ["search", "notes"]
    assert first == "Saved a note on tides."
    assert after == ["search", "summarize", "read_note", "write_note"]
    assert state.call_counts == {"notes": 1, "search": 1, "summarize": 1, "write_note": 1}
    assert second == "The note is empty."
    assert result.answers == ["Saved a note on tides.", "The note is empty."]
    assert result.runs == 3
    history = messages_from_json(result.messages)
    assert [m.role for m in history[-4:]] == ["user", "assistant", "tool", "assistant"]
    assert history[-2].content == "note tides is empty"

    # the same two messages in a local session: the same history and trace
    store = st.SqliteStore(tmp_path / "sessions.db")
    st.ToolLoop(MODEL).run(PROMPT, tools=DESIGN, session="s", store=store)
    local = st.ToolLoop(MODEL).run("What is in the note?", tools=DESIGN, session="s", store=store)
    assert history == list(local.messages)
    assert comparable(result.trace) == comparable(local.trace) == comparable(so_far)
    finished = [e.outcome for e in st.Trace.from_json(result.trace).of_type(RunFinished)]
    assert finished == ["answer", "answer"]


def test_a_session_that_runs_out_of_model_calls_fails_and_its_trace_says_why(
    dev_server: DevServer,
) -> None:
    async def body(client: Any, queue: str) -> Any:
        handle = await start_session(
            client,
            REFERENCE,
            PROMPT,
            id=uuid.uuid4().hex,
            task_queue=queue,
            settings=SessionSettings(max_iterations=2),
        )
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
        return failed.value.cause, await trace(handle)

    cause, events = _on_worker(dev_server, body)
    assert isinstance(cause, ApplicationError)
    assert (cause.type, cause.message) == (
        "MaxIterationsExceeded",
        "no final answer after 2 model calls",
    )
    finished = events.of_type(RunFinished)
    assert [(e.iterations, e.outcome, e.error) for e in finished] == [
        (2, "MaxIterationsExceeded", "no final answer after 2 model calls")
    ]
