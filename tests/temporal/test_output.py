"""Structured output in a Temporal session: the output type by reference, each final
answer read on the worker as a local run reads it (one correction, then an error)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

import statetools as st
from statetools.engine.events import RunFinished
from statetools.engine.state import DisclosureState
from statetools.messages import messages_from_json
from statetools.models import Model, ModelRequest, ModelResponse, ScriptedModel
from statetools.temporal import (
    ScriptByRequest,
    SessionSettings,
    session_worker,
    start_session,
    trace,
)
from statetools.temporal.designs import output_value
from tests.temporal.comparing import comparable
from tests.temporal.conftest import DevServer
from tests.temporal.output_designs import DESIGN, MODEL, NEVER, PROMPT, Verdict

REFERENCE = "tests.temporal.output_designs:DESIGN"
CORRECTION = (
    "Your answer could not be read as Verdict: it is not valid JSON (Expecting value at "
    "position 0). Answer again with only a JSON value matching this schema: "
    '{"type":"object","properties":{"grade":{"type":"string"},"score":{"type":"integer"}},'
    '"required":["grade","score"],"additionalProperties":false}'
)


def _run(server: DevServer, model: Model, output_type: Any, turns_per_run: int = 200) -> Any:
    async def main() -> Any:
        queue = f"q-{uuid.uuid4().hex}"
        async with session_worker(server.env.client, queue, [REFERENCE], model):
            handle = await start_session(
                server.env.client,
                REFERENCE,
                PROMPT,
                id=uuid.uuid4().hex,
                task_queue=queue,
                output_type=output_type,
                settings=SessionSettings(turns_per_run=turns_per_run),
            )
            try:
                return await handle.result(), None
            except WorkflowFailureError as failed:
                return failed.cause, await trace(handle)

    return server.loop.run_until_complete(main())


@pytest.mark.parametrize(
    ("output_type", "turns_per_run"),
    [(Verdict, 200), ("tests.temporal.output_designs:Verdict", 1)],
)
def test_an_answer_is_read_as_the_output_type_as_locally(
    dev_server: DevServer, output_type: Any, turns_per_run: int
) -> None:
    result, _ = _run(dev_server, MODEL, output_type, turns_per_run)
    local = st.ToolLoop(MODEL).run(PROMPT, tools=DESIGN, output_type=Verdict)
    assert local.output == Verdict("B", 7)
    assert result.output == result.answers[0] == {"grade": "B", "score": 7}
    assert output_value(result.output, output_type) == local.output
    history = messages_from_json(result.messages)
    assert history == list(local.messages)
    assert history[4] == st.UserMessage(CORRECTION)
    state = DisclosureState.from_json(result.state)
    assert state == local.state
    assert state.loop.output_corrected
    assert comparable(result.trace) == comparable(local.trace)
    assert [e["type"] for e in result.trace].count("output_rejected") == 1
    assert result.runs == (4 if turns_per_run == 1 else 1)


def test_an_answer_that_never_fits_fails_the_session_as_a_local_run_fails(
    dev_server: DevServer,
) -> None:
    cause, events = _run(dev_server, NEVER, Verdict)
    with pytest.raises(st.OutputValidationError) as failed:
        st.ToolLoop(NEVER).run(PROMPT, tools=DESIGN, output_type=Verdict)
    local = failed.value.result
    assert isinstance(cause, ApplicationError)
    assert cause.type == "OutputValidationError"
    assert cause.message == str(failed.value)
    assert str(failed.value).startswith(
        "output: the final answer is not a valid Verdict: missing required field 'score'"
    )
    assert comparable(events) == comparable(local.trace)


def test_an_output_type_workers_cannot_import_is_refused_clearly(dev_server: DevServer) -> None:
    with pytest.raises(st.SpecError) as refused:
        _run(dev_server, MODEL, list[int])
    assert str(refused.value).startswith("output_type: list[int] has no import path")
    cause, events = _run(dev_server, MODEL, "tests.temporal.output_designs:Nothing")
    assert isinstance(cause, ApplicationError)
    assert cause.type == "SpecError"
    assert cause.message == (
        "output_type: cannot import 'tests.temporal.output_designs:Nothing': "
        "tests.temporal.output_designs has no attribute 'Nothing' "
        "Hint: check the spelling; the part after ':' is an attribute of the module"
    )
    finished = events.of_type(RunFinished)
    assert [(e.iterations, e.outcome, e.error) for e in finished] == [
        (2, "SpecError", cause.message)
    ]


def _refuse(request: ModelRequest) -> ModelResponse:
    call = st.ToolCall("c1", "grade_of", {"student": "Ada"})
    return ModelResponse(st.AssistantMessage("I won't grade.", (call,)), stop_reason="refusal")


@pytest.mark.parametrize(
    ("output_type", "answer"), [(None, "I won't grade."), (str, "I won't grade."), (Verdict, None)]
)
def test_a_refusal_answers_as_a_local_run_does_for_each_output_type(
    dev_server: DevServer, output_type: Any, answer: str | None
) -> None:
    result, _ = _run(dev_server, ScriptByRequest([_refuse]), output_type)
    local = st.ToolLoop(ScriptedModel([_refuse])).run(PROMPT, tools=DESIGN, output_type=output_type)
    assert (local.output, local.outcome) == (answer, "refusal")
    assert result.output == result.answers[0] == answer
    assert messages_from_json(result.messages) == list(local.messages)
    assert comparable(result.trace) == comparable(local.trace)
    assert result.trace[-1]["outcome"] == "refusal"
