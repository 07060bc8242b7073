"""A model call that fails every try fails the Temporal session as it fails a local
run: a statetools error as it is, anything else a ``ProviderError``; the trace ends
with the ``RunFinished`` that says so."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

import statetools as st
from statetools.engine.events import RunFinished
from statetools.models import ModelRequest, ModelResponse, ScriptedModel
from statetools.temporal import ScriptByRequest, SessionSettings, session_worker, start_session
from statetools.temporal import trace as session_trace
from tests.temporal.comparing import comparable
from tests.temporal.conftest import DevServer
from tests.temporal.output_designs import DESIGN, PROMPT

REFERENCE = "tests.temporal.output_designs:DESIGN"
STEPS: list[Any] = [("grade_of", {"student": "Ada"})]


def _fail(server: DevServer, model: Any) -> tuple[ApplicationError, st.Trace]:
    async def main() -> tuple[ApplicationError, st.Trace]:
        queue = f"q-{uuid.uuid4().hex}"
        async with session_worker(server.env.client, queue, [REFERENCE], model):
            handle = await start_session(
                server.env.client,
                REFERENCE,
                PROMPT,
                id=uuid.uuid4().hex,
                task_queue=queue,
                settings=SessionSettings(model_attempts=1),
            )
            with pytest.raises(WorkflowFailureError) as failed:
                await handle.result()
            cause = failed.value.cause
            assert isinstance(cause, ApplicationError)
            return cause, await session_trace(handle)

    return server.loop.run_until_complete(main())


def test_a_model_out_of_script_fails_the_session_as_a_local_run(dev_server: DevServer) -> None:
    cause, events = _fail(dev_server, ScriptByRequest(STEPS))
    with pytest.raises(st.ScriptExhaustedError) as raised:
        st.ToolLoop(ScriptedModel(STEPS)).run(PROMPT, tools=DESIGN)
    local = raised.value.result
    assert local is not None
    assert (cause.type, cause.non_retryable) == ("ScriptExhaustedError", True)
    assert cause.message == (
        "ScriptByRequest: the script has no step for request 2 (it has 1 step) "
        "Hint: add a step, or end the script with a final text answer"
    )
    assert comparable(events)[:-1] == comparable(local.trace)[:-1]
    assert events[-1] == RunFinished(events[-1].at, 1, "ScriptExhaustedError", cause.message)
    assert local.trace[-1].outcome == "ScriptExhaustedError"


def _broken(request: ModelRequest) -> ModelResponse:
    raise RuntimeError("the provider is down")


def test_any_other_model_failure_is_a_provider_error(dev_server: DevServer) -> None:
    cause, events = _fail(dev_server, ScriptByRequest([_broken]))
    with pytest.raises(st.ProviderError) as raised:
        st.ToolLoop(ScriptedModel([_broken])).run(PROMPT, tools=DESIGN)
    local = raised.value.result
    assert local is not None
    assert (cause.type, cause.non_retryable) == ("ProviderError", True)
    assert cause.message == (
        "statetools.model activity: the model failed: RuntimeError: the provider is down "
        "Hint: the workflow's history has each try's failure"
    )
    assert comparable(events)[:-1] == comparable(local.trace)[:-1]
    assert events[-1] == RunFinished(events[-1].at, 0, "ProviderError", cause.message)
