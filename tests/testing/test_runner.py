"""run_scripted: one line from a definition and a script to a LoopResult."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.testing import ScriptedModelFactory, run_scripted
from tests.disclosure.test_machine import Order, order_machine
from tests.disclosure.test_playbook import research, search

STEPS: list[Any] = [("search", {"query": "tides"}), ("analyze", {}), "Done."]


def test_a_definition_and_steps() -> None:
    result = run_scripted(research(), STEPS)
    assert isinstance(result, st.LoopResult)
    assert result.output == "Done."
    assert result.messages[0] == st.UserMessage("Go.")
    assert result.iterations == 3


def test_a_list_of_tools_a_prompt_and_a_context() -> None:
    @st.llm_tool("Who asks?")
    def whoami(ctx: st.ToolCallContext) -> str:
        return str(ctx["user"])

    result = run_scripted(
        [search, whoami], [("whoami", {}), "ada"], prompt="Who am I?", context={"user": "ada"}
    )
    assert result.messages[0] == st.UserMessage("Who am I?")
    assert result.messages[2] == st.ToolMessage("call_1", "whoami", "ada")


def test_the_trace_is_the_same_in_every_run() -> None:
    first = run_scripted(research(), STEPS).trace.to_json()
    assert first == run_scripted(research(), STEPS).trace.to_json()
    assert first[0] == {
        "type": "run_started",
        "run_id": "scripted-run",
        "at": 0.0,
        "tools": ["search"],
    }


def test_loop_options_are_passed_on() -> None:
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        run_scripted(research(), STEPS, max_iterations=1)
    assert caught.value.result is not None
    assert caught.value.result.iterations == 1

    result = run_scripted(
        research(), ["hi"], id_factory=lambda: "mine", clock=lambda: 7.0, system_prompt="Be brief."
    )
    assert result.messages[0] == st.SystemMessage("Be brief.")
    assert result.trace.to_json()[0]["run_id"] == "mine"
    assert result.trace.to_json()[0]["at"] == 7.0


def test_state_and_output_type() -> None:
    result = run_scripted(
        order_machine().starting_in(Order.SHIPPED), [("deliver", {}), "42"], output_type=int
    )
    assert result.output == 42
    resumed = run_scripted(order_machine(), ["done"], state=result.state)
    assert resumed.state.machine_states == {"order": "DELIVERED"}


def test_a_yaml_script_as_text_or_path(tmp_path: Path) -> None:
    script = "- call: {name: search, arguments: {query: tides}}\n- answer: Found.\n"
    assert run_scripted(research(), script).output == "Found."
    path = tmp_path / "script.yaml"
    path.write_text(script, encoding="utf-8")
    assert run_scripted(research(), path).output == "Found."
    assert run_scripted(research(), str(path)).output == "Found."


def test_a_model_of_your_own(scripted_model: ScriptedModelFactory) -> None:
    model = scripted_model(STEPS)
    run_scripted(research(), model)
    assert [r.tool_names for r in model.requests] == [
        ["search"],
        ["search", "analyze"],
        ["search", "analyze", "summarize"],
    ]


def test_a_bad_script_says_where() -> None:
    with pytest.raises(st.SpecError) as caught:
        run_scripted(research(), "- hello: x\n")
    assert str(caught.value) == (
        "script: 1 problem(s) in the script: script[0]: unknown step kind 'hello' "
        "Hint: use answer, call or calls"
    )
