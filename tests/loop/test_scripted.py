"""ScriptedModel: steps in Python and YAML, recorded requests, a clear end of script."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st
from statetools.models import ModelCapabilities, ModelRequest, ScriptedModel


def test_steps_computed_from_the_request() -> None:
    model = ScriptedModel(
        [lambda request: f"I saw {len(request.messages)} message(s) and {request.tool_names}"]
    )
    result = st.ToolLoop(model).run("hi")
    assert result.output == "I saw 1 message(s) and []"


def test_an_async_step_function_is_awaited() -> None:
    async def step(request: ModelRequest) -> str:
        return "async answer"

    assert st.ToolLoop(ScriptedModel([step])).run("hi").output == "async answer"


def test_running_out_of_script_is_a_clear_error_that_keeps_the_run() -> None:
    model = ScriptedModel([("echo", {"text": "a"})])
    echo = st.Tool.create("echo", "Echo text", lambda text: text)
    with pytest.raises(st.ScriptExhaustedError) as caught:
        st.ToolLoop(model).run("go", tools=[echo])
    assert str(caught.value) == (
        "ScriptedModel: the script has no step left for request 2 (it has 1 step) "
        "Hint: add a step, or end the script with a final text answer"
    )
    assert caught.value.result is not None
    assert caught.value.result.messages[-1] == st.ToolMessage("call_1", "echo", "a")
    assert model.remaining == 0


def test_a_script_used_up_by_a_saved_conversation_says_so() -> None:
    first = st.ToolLoop(ScriptedModel(["The moon."])).run("Why tides?")

    again = ScriptedModel(["The moon."])  # `statetools run --session` in a new process
    again.continue_after(first.messages)
    with pytest.raises(st.ScriptExhaustedError) as caught:
        st.ToolLoop(again).run([*first.messages, st.UserMessage("And why?")])

    assert str(caught.value) == (
        "ScriptedModel: the script has no step left for request 1 "
        "(it has 1 step, 1 used by the saved conversation) "
        "Hint: add a step, or end the script with a final text answer"
    )


def test_yaml_script(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(
        "- call: {name: echo, arguments: {text: hi}}\n"
        "- calls:\n"
        "    - {name: echo, arguments: {text: a}}\n"
        "    - {name: echo}\n"
        "- answer: Done.\n",
        encoding="utf-8",
    )
    model = ScriptedModel.from_yaml(path)
    echo = st.Tool.create("echo", "Echo text", lambda text="-": text)
    result = st.ToolLoop(model).run("go", tools=[echo])
    assert result.output == "Done."
    calls = [c for m in result.messages if isinstance(m, st.AssistantMessage) for c in m.tool_calls]
    assert calls == [
        st.ToolCall("call_1", "echo", {"text": "hi"}),
        st.ToolCall("call_2", "echo", {"text": "a"}),
        st.ToolCall("call_3", "echo", {}),
    ]


def test_yaml_script_errors_are_all_reported_with_paths() -> None:
    text = "- answer: 3\n- call: {arguments: {}}\n- talk: hi\n- answer: fine\n"
    with pytest.raises(st.SpecError) as caught:
        ScriptedModel.from_yaml(text)
    assert caught.value.problems == (
        "script[0].answer: 'answer' must be text",
        "script[1].call: a call needs a 'name' Hint: write {name: tool, arguments: {...}}",
        "script[2]: unknown step kind 'talk' Hint: use answer, call or calls",
    )


def test_yaml_script_that_is_not_a_list_or_not_yaml() -> None:
    with pytest.raises(st.SpecError, match="a script must be a list of steps"):
        ScriptedModel.from_yaml("answer: hi\nmore: x\n")
    with pytest.raises(st.SpecError, match="invalid YAML"):
        ScriptedModel.from_yaml("- [unclosed\n- x\n")
    with pytest.raises(st.SpecError, match="cannot read script"):
        ScriptedModel.from_yaml(Path("/nonexistent/script.yaml"))


def test_a_bad_python_step_stops_the_run_with_the_spec_error_as_cause() -> None:
    model = ScriptedModel([("echo", {"text": "a"}), 42])  # type: ignore[list-item]
    echo = st.Tool.create("echo", "Echo text", lambda text: text)
    with pytest.raises(st.RunAborted) as caught:
        st.ToolLoop(model).run("go", tools=[echo])
    cause = caught.value.__cause__
    assert isinstance(cause, st.SpecError)
    assert str(cause).startswith("ScriptedModel step 2: invalid script step 42")
    assert caught.value.result is not None
    assert caught.value.result.messages[-1] == st.ToolMessage("call_1", "echo", "a")


def test_capabilities_are_configurable() -> None:
    static = ScriptedModel([], capabilities=ModelCapabilities(supports_dynamic_tools=False))
    assert static.capabilities.supports_dynamic_tools is False
    assert ScriptedModel([]).capabilities == ModelCapabilities(True, True)
