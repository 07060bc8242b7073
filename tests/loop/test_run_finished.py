"""However a run ends, its listeners and its stream hear of it exactly once: one
``RunFinished`` with the outcome (and the error), the same as the trace's last event."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable
from typing import Any

import attrs
import pytest

import statetools as st
from statetools.engine.events import RunFinished
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse, ScriptedModel

NOT_RUN = "No result: the run stopped before this call was answered."


def echo(text: str) -> str:
    """Echo the text."""
    return text


@st.llm_tool("Deliver the work.", return_direct=True)
def deliver() -> str:
    return "delivered"


class Door(enum.Enum):
    OPEN = "open"
    SHUT = "shut"


def shut() -> str:
    """Shut the door."""
    return "shut"


DOOR = (
    st.StateMachineTool("door", "A door", Door)
    .with_initial_state(Door.OPEN)
    .in_state(Door.OPEN)
    .with_tool(shut)
    .transitions_to(Door.SHUT)
    .with_final_states(Door.SHUT)
)


@attrs.frozen
class Answer:
    text: str


class Unreachable:
    capabilities = ModelCapabilities()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise ConnectionError("no route to host")


class Broken:
    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        raise RuntimeError("strategy bug")


def interrupt() -> str:
    """Stop everything."""
    raise KeyboardInterrupt


class Halt(BaseException):
    """Not an ``Exception``: a framework's own control flow (a test runner's failure...)."""


def halt() -> str:
    """Stop in a framework's own way."""
    raise Halt("stop here")


def refusal(request: ModelRequest) -> ModelResponse:
    message = st.AssistantMessage("No.", (st.ToolCall("c1", "echo", {}),))
    return ModelResponse(message, stop_reason="refusal")


Case = tuple[Callable[[list[st.Event]], st.ToolLoop], dict[str, Any], str, str | None]

ENDINGS: dict[str, Case] = {
    "answer": (
        lambda e: st.ToolLoop(ScriptedModel(["hi"]), listeners=[e.append]),
        {},
        "answer",
        None,
    ),
    "return_direct": (
        lambda e: st.ToolLoop(ScriptedModel([("deliver", {})]), listeners=[e.append]),
        {"tools": [deliver]},
        "return_direct",
        None,
    ),
    "final_state": (
        lambda e: st.ToolLoop(
            ScriptedModel([("shut", {})]), listeners=[e.append], end_on_final_state=True
        ),
        {"tools": [DOOR]},
        "final_state",
        None,
    ),
    "refusal": (
        lambda e: st.ToolLoop(ScriptedModel([refusal]), listeners=[e.append]),
        {"tools": [echo]},
        "refusal",
        None,
    ),
    "max_iterations": (
        lambda e: st.ToolLoop(
            ScriptedModel([("echo", {"text": "a"})]), max_iterations=1, listeners=[e.append]
        ),
        {"tools": [echo]},
        "MaxIterationsExceeded",
        "ToolLoop: no final answer after 1 model call Hint: raise max_iterations, or check "
        "that the tools let the model finish",
    ),
    "unknown_tools": (
        lambda e: st.ToolLoop(
            ScriptedModel([[("a", {}), ("b", {}), ("c", {})]]), listeners=[e.append]
        ),
        {},
        "ToolNotFoundError",
        "iteration 1: the model called tools that do not exist 3 times in a row Hint: check "
        "the tool names in the prompt and the model's instructions",
    ),
    "output": (
        lambda e: st.ToolLoop(ScriptedModel(["x", "y"]), listeners=[e.append]),
        {"output_type": Answer},
        "OutputValidationError",
        "output: the final answer is not a valid Answer: it is not valid JSON (Expecting "
        "value at position 0) Hint: make the type easier to produce, or say more in the prompt",
    ),
    "provider": (
        lambda e: st.ToolLoop(Unreachable(), listeners=[e.append]),
        {},
        "ProviderError",
        "Unreachable: the model failed: ConnectionError: no route to host Hint: the "
        "exception is the __cause__",
    ),
    "aborted": (
        lambda e: st.ToolLoop(
            ScriptedModel([[("echo", {"text": "a"}), ("echo", {"text": "b"})]]),
            strategies=[Broken()],
            listeners=[e.append],
        ),
        {"tools": [echo]},
        "RunAborted",
        "iteration 1: the run stopped: RuntimeError: strategy bug Hint: the exception is the "
        "__cause__; its traceback shows the failing code",
    ),
    "interrupted": (
        lambda e: st.ToolLoop(ScriptedModel([("interrupt", {})]), listeners=[e.append]),
        {"tools": [interrupt]},
        "interrupted",
        "KeyboardInterrupt",
    ),
    "foreign_base_exception": (
        lambda e: st.ToolLoop(ScriptedModel([("halt", {})]), listeners=[e.append]),
        {"tools": [halt]},
        "interrupted",
        "Halt: stop here",
    ),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_every_ending_is_reported_once_as_the_trace_ends(ending: str) -> None:
    make, options, outcome, error = ENDINGS[ending]
    events: list[st.Event] = []
    loop = make(events)
    try:
        result = loop.run("go", **options)
    except BaseException as exc:  # each ending raises its own exception
        result = exc.result  # type: ignore[attr-defined]
    assert result.outcome == outcome
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert finished == [RunFinished(finished[0].at, result.iterations, outcome, error)]
    assert events == list(result.trace)
    assert result.trace.to_json()[-1].get("error") == error


def test_the_error_ended_run_answers_its_open_calls_to_the_listeners() -> None:
    events: list[st.Event] = []
    make, options, _, _ = ENDINGS["aborted"]
    with pytest.raises(st.RunAborted):
        make(events).run("go", **options)
    answered = [(e.call_id, e.text) for e in events if e.type == "tool_answered"]
    assert answered == [("call_1", NOT_RUN), ("call_2", NOT_RUN)]


def test_a_listener_failing_on_the_end_changes_the_outcome_but_is_not_told_twice(
    caplog: pytest.LogCaptureFixture,
) -> None:
    events: list[st.Event] = []

    def fussy(event: st.Event) -> None:
        if event.type == "run_finished":
            raise ValueError("cannot take the end")

    loop = st.ToolLoop(ScriptedModel(["hi"]), listeners=[events.append, fussy])
    with pytest.raises(st.RunAborted) as caught:
        loop.run("go")
    result = caught.value.result
    assert result is not None
    assert [e for e in events if isinstance(e, RunFinished)] == [
        RunFinished(events[-1].at, 1, "answer")  # told once, as it happened
    ]
    assert [e.type for e in result.trace].count("run_finished") == 1
    assert result.trace[-1] == RunFinished(result.trace[-1].at, 1, "RunAborted", str(caught.value))
    assert caplog.records == []


def test_a_listener_failing_on_an_event_does_not_keep_it_from_the_listeners_after_it() -> None:
    heard: list[str] = []

    def fussy(event: st.Event) -> None:
        if event.type in ("model_responded", "run_finished"):
            raise ValueError(f"cannot take {event.type}")

    def record(event: st.Event) -> None:
        heard.append(event.type)

    loop = st.ToolLoop(ScriptedModel(["hi"]), listeners=[fussy, record])
    with pytest.raises(st.RunAborted) as caught:
        loop.run("go")
    assert str(caught.value) == (
        "iteration 1: the run stopped: ValueError: cannot take model_responded Hint: the "
        "exception is the __cause__; its traceback shows the failing code"
    )
    assert heard == ["run_started", "iteration_started", "model_responded", "run_finished"]
    assert caught.value.result.trace[-1].outcome == "RunAborted"

    heard.clear()
    loop = st.ToolLoop(ScriptedModel(["hi"]), listeners=[fussy, fussy, record])
    with pytest.raises(st.RunAborted) as caught:
        loop.run("go")
    assert heard == ["run_started", "iteration_started", "model_responded", "run_finished"]
    assert repr(caught.value.__cause__) == "ValueError('cannot take model_responded')"


def test_a_failing_stream_yields_the_end_too() -> None:
    async def main() -> tuple[list[Any], st.LoopResult]:
        stream = st.ToolLoop(ScriptedModel([("echo", {"text": "a"})]), max_iterations=1).stream(
            "go", tools=[echo]
        )
        seen: list[Any] = []

        async def read() -> None:
            async for event in stream:
                seen.append(event)

        with pytest.raises(st.MaxIterationsExceeded) as caught:
            await read()
        assert caught.value.result is not None
        return seen, caught.value.result

    seen, result = asyncio.run(main())
    assert [e for e in seen if e.type not in ("text_delta", "tool_call_started")] == list(
        result.trace
    )
    assert seen[-1].type == "run_finished"
