"""Failures of code around the model and tools end the run without losing it."""

from __future__ import annotations

from typing import Any

import pytest

import statetools as st
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse, ScriptedModel

NOT_RUN = "No result: the run stopped before this call was answered."


def echo(text: str) -> str:
    """Echo the text."""
    return text


ECHO = st.Tool.from_function(echo)


class Boom:
    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        raise RuntimeError("strategy bug")


def test_a_failing_strategy_aborts_and_every_call_id_is_answered() -> None:
    model = ScriptedModel([[("echo", {"text": "a"}), ("echo", {"text": "b"})], "never"])
    with pytest.raises(st.RunAborted) as caught:
        st.ToolLoop(model, strategies=[Boom()]).run("go", tools=[ECHO])
    error = caught.value
    assert str(error) == (
        "iteration 1: the run stopped: RuntimeError: strategy bug Hint: the exception is the "
        "__cause__; its traceback shows the failing code"
    )
    assert isinstance(error.__cause__, RuntimeError)
    assert error.result is not None
    assert error.result.messages[-2:] == (
        st.ToolMessage("call_1", "echo", NOT_RUN, True),
        st.ToolMessage("call_2", "echo", NOT_RUN, True),
    )
    assert error.result.trace[-1].outcome == "RunAborted"


def test_a_failing_listener_aborts_with_the_history() -> None:
    def listener(event: st.Event) -> None:
        if event.type == "tool_called":
            raise ValueError("listener bug")

    model = ScriptedModel([("echo", {"text": "a"}), "never"])
    with pytest.raises(st.RunAborted, match="ValueError: listener bug") as caught:
        st.ToolLoop(model, listeners=[listener]).run("go", tools=[ECHO])
    assert caught.value.result is not None
    assert caught.value.result.messages[-1] == st.ToolMessage("call_1", "echo", NOT_RUN, True)


def test_a_failing_guard_aborts() -> None:
    import enum

    class S(enum.Enum):
        A = 1
        B = 2

    def guard(result: st.ToolResult) -> bool:
        raise KeyError("guard bug")

    machine = (
        st.StateMachineTool("m", "d", S)
        .in_state(S.A)
        .with_tool(ECHO)
        .transitions_to(S.B, when=guard)
    )
    with pytest.raises(st.RunAborted, match="KeyError: 'guard bug'"):
        st.ToolLoop(ScriptedModel([("echo", {"text": "a"})])).run("go", tools=[machine])


class Unreachable:
    capabilities = ModelCapabilities()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise ConnectionError("no route to host")


def test_a_model_that_raises_becomes_a_provider_error() -> None:
    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(Unreachable()).run("go")
    assert str(caught.value) == (
        "Unreachable: the model failed: ConnectionError: no route to host "
        "Hint: the exception is the __cause__"
    )
    assert caught.value.result is not None
    assert caught.value.result.messages == (st.UserMessage("go"),)


def test_outputs_do_not_carry_the_announcement_line() -> None:
    @st.llm_tool("Finish and report.", return_direct=True)
    def finish() -> str:
        return "report"

    after: Any = st.Tool.create("after", "After", lambda: "x")
    playbook = st.PlaybookTool("p", "d").with_tool(finish).with_tool(after).unlocked_by("finish")
    result = st.ToolLoop(ScriptedModel([("finish", {})])).run("go", tools=[playbook])
    assert result.output == "report"
    assert result.messages[-1].content == "report\n[now available: after]"


def test_a_listener_failing_on_the_first_event_aborts_too() -> None:
    def listener(event: st.Event) -> None:
        raise ValueError("no")

    with pytest.raises(st.RunAborted, match="ValueError: no") as caught:
        st.ToolLoop(ScriptedModel(["x"]), listeners=[listener]).run("go")
    assert caught.value.result is not None
    assert caught.value.result.messages == (st.UserMessage("go"),)
