"""A run stopped after any turn and resumed from its JSON state gives the same trace."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel
from tests.disclosure.test_machine import order_machine
from tests.disclosure.test_playbook import research

STEPS: list[Any] = [
    ("search", {"query": "q"}),
    ("add_item", {"sku": "a"}),
    ("analyze", {}),
    ("confirm", {}),
    ("ship", {"carrier": "c"}),
    ("summarize", {}),
    ("deliver", {}),
    "Done.",
]


def make_loop(model: ScriptedModel) -> st.ToolLoop:
    ticks = itertools.count()
    return st.ToolLoop(model, clock=lambda: float(next(ticks)), id_factory=lambda: "run")


def comparable(trace: st.Trace) -> list[dict[str, Any]]:
    skip = {"run_started", "run_finished"}
    return [event for event in trace.to_json() if event["type"] not in skip]


def without_timing(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "duration"} for e in events]


@pytest.mark.parametrize("stop_after", range(1, len(STEPS)))
def test_resume_after_any_turn_matches_an_uninterrupted_run(stop_after: int) -> None:
    def tools() -> list[Any]:
        return [research(), order_machine()]

    full = make_loop(ScriptedModel(STEPS)).run("go", tools=tools())

    with pytest.raises(st.ScriptExhaustedError) as caught:
        make_loop(ScriptedModel(STEPS[:stop_after])).run("go", tools=tools())
    first = caught.value.result
    assert first is not None
    saved = first.state.to_json()

    restored = st.DisclosureState.from_json(saved)
    second = make_loop(ScriptedModel(STEPS[stop_after:])).run(
        list(first.messages), tools=tools(), state=restored
    )

    assert second.messages == full.messages
    assert second.state == full.state
    # The interrupted run had started iteration stop_after + 1 when the script ran out;
    # the resumed run starts it again.
    interrupted = comparable(first.trace)
    assert interrupted[-1]["type"] == "iteration_started"
    joined = interrupted[:-1] + comparable(second.trace)
    assert without_timing(joined) == without_timing(comparable(full.trace))


def test_a_bad_state_is_a_spec_error() -> None:
    with pytest.raises(st.SpecError, match="not a disclosure state"):
        st.DisclosureState.from_json('{"call_counts": {"a": "many"}, "bogus": 1}')
