"""The loop's counters travel in their own value beside the disclosure: the scheduler
neither keeps nor gives them, the names still read and build them, and the JSON is the
flat object saved runs already hold."""

from __future__ import annotations

import json

import pytest

import statetools as st
from statetools.disclosure.state import LoopCounters

OLD_JSON = (
    '{"artifacts": [], "blackboard": [], "call_counts": {"search": 1}, "catalogue": null, '
    '"conversation": 1, "conversation_tools": "abc", "ending": "return_direct", '
    '"iteration": 2, "machine_states": {}, "objects": [], "output_corrected": true, '
    '"removed": [], "unfolds": [], "unknown_calls_in_a_row": 2, "visible_order": ["search"]}'
)
"""A state as every earlier version wrote it: one flat object."""


def search() -> str:
    """Search."""
    return "found"


def test_a_flat_saved_state_reads_into_the_disclosure_and_the_loops_counters() -> None:
    state = st.DisclosureState.from_json(OLD_JSON)
    assert state.loop == LoopCounters(
        unknown_calls_in_a_row=2,
        output_corrected=True,
        conversation=1,
        conversation_tools="abc",
        ending="return_direct",
    )
    assert (state.unknown_calls_in_a_row, state.output_corrected, state.ending) == (
        2,
        True,
        "return_direct",
    )
    assert state.disclosure() == st.DisclosureState(
        call_counts={"search": 1}, iteration=2, visible_order=["search"]
    )
    assert json.loads(state.to_json()) == json.loads(OLD_JSON)


def test_counters_by_name_and_in_their_value_build_the_same_state() -> None:
    by_name = st.DisclosureState(iteration=1, unknown_calls_in_a_row=1, catalogue="{}")
    assert by_name == st.DisclosureState(
        iteration=1, loop=LoopCounters(unknown_calls_in_a_row=1, catalogue="{}")
    )
    with pytest.raises(TypeError) as wrong:
        st.DisclosureState(unknown_calls=1)
    assert str(wrong.value) == "DisclosureState has no field unknown_calls"


def test_the_scheduler_keeps_and_gives_the_disclosure_only() -> None:
    graph = st.disclosure_graph(search)
    counted = st.DisclosureState(unknown_calls_in_a_row=2, output_corrected=True)
    scheduler = st.Scheduler(graph, counted)
    assert scheduler.snapshot() == st.DisclosureState(visible_order=["search"])
    assert scheduler.snapshot().loop == LoopCounters()
    # a state with counters only is a fresh run: it starts from the graph's shared view
    assert scheduler.shown() is st.Scheduler(graph).shown()


def test_a_run_saves_its_counters_beside_the_disclosure() -> None:
    with pytest.raises(st.MaxIterationsExceeded) as stopped:
        st.ToolLoop(st.models.ScriptedModel([("nope", {})]), max_iterations=1).run(
            "go", tools=[search]
        )
    result = stopped.value.result
    assert result is not None
    assert result.state.loop == LoopCounters(unknown_calls_in_a_row=1)
    assert result.state.disclosure() == st.DisclosureState(iteration=1, visible_order=["search"])
