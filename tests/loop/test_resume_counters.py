"""The loop's own counters survive a resume from ``result.state`` + ``result.messages``."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import statetools as st
from statetools.models import ScriptedModel


def echo(text: str) -> str:
    """Echo the text."""
    return text


@attrs.frozen
class Count:
    n: int


def stop_after(turns: int, steps: list[Any], **options: Any) -> st.LoopResult:
    """The run stopped after ``turns`` model calls (as a saved run would be)."""
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        st.ToolLoop(ScriptedModel(steps), max_iterations=turns).run("go", tools=[echo], **options)
    assert caught.value.result is not None
    return caught.value.result


def resume(saved: st.LoopResult, steps: list[Any], **options: Any) -> Any:
    state = st.DisclosureState.from_json(saved.state.to_json())
    messages = st.messages_from_json(st.messages_to_json(saved.messages))
    return st.ToolLoop(ScriptedModel(steps)).run(messages, tools=[echo], state=state, **options)


def test_unknown_calls_in_a_row_are_counted_across_a_resume() -> None:
    steps: list[Any] = [("nope", {}), ("nah", {}), ("never", {}), "unreachable"]
    with pytest.raises(st.ToolNotFoundError) as unbroken:
        st.ToolLoop(ScriptedModel(steps)).run("go", tools=[echo])

    saved = stop_after(2, steps[:2])
    assert saved.state.loop.unknown_calls_in_a_row == 2
    with pytest.raises(st.ToolNotFoundError) as resumed:
        resume(saved, steps[2:])

    assert (
        str(resumed.value)
        == str(unbroken.value)
        == (
            "iteration 3: the model called tools that do not exist 3 times in a row "
            "Hint: check the tool names in the prompt and the model's instructions"
        )
    )
    assert resumed.value.result is not None
    assert unbroken.value.result is not None
    assert resumed.value.result.messages == unbroken.value.result.messages
    assert resumed.value.result.state == unbroken.value.result.state


def test_a_real_call_resets_the_counter_in_the_saved_state() -> None:
    saved = stop_after(2, [("nope", {}), ("echo", {"text": "x"})])
    assert saved.state.loop.unknown_calls_in_a_row == 0


def test_the_output_correction_is_given_once_across_a_resume() -> None:
    steps: list[Any] = ['{"n": "x"}', '{"m": 1}']
    with pytest.raises(st.OutputValidationError) as unbroken:
        st.ToolLoop(ScriptedModel(steps)).run("go", tools=[echo], output_type=Count)

    saved = stop_after(1, steps[:1], output_type=Count)
    assert saved.state.loop.output_corrected is True
    with pytest.raises(st.OutputValidationError) as resumed:
        resume(saved, steps[1:], output_type=Count)

    assert str(resumed.value) == str(unbroken.value)
    assert resumed.value.result is not None
    assert unbroken.value.result is not None
    assert resumed.value.result.messages == unbroken.value.result.messages
    assert resumed.value.result.state == unbroken.value.result.state


def test_the_counters_round_trip_through_json() -> None:
    state = st.DisclosureState(
        iteration=3, loop=st.LoopCounters(unknown_calls_in_a_row=2, output_corrected=True)
    )
    assert st.DisclosureState.from_json(state.to_json()) == state
