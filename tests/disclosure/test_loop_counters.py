"""The loop's counters travel in their own value beside the disclosure (``state.loop``):
the scheduler neither keeps nor gives them, a counter given or read by its name on the
state is refused with its new spelling, and the JSON is the flat object saved runs
already hold."""

from __future__ import annotations

import json

import pytest

import statetools as st
from statetools import LoopCounters

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
    assert (state.loop.unknown_calls_in_a_row, state.loop.output_corrected) == (2, True)
    assert state.iteration == 2
    assert state.disclosure() == st.DisclosureState(
        call_counts={"search": 1}, iteration=2, visible_order=["search"]
    )
    assert json.loads(state.to_json()) == json.loads(OLD_JSON)


def test_a_state_built_with_its_counters_writes_the_flat_json_of_before() -> None:
    state = st.DisclosureState(
        call_counts={"search": 1},
        visible_order=["search"],
        iteration=2,
        loop=LoopCounters(
            unknown_calls_in_a_row=2,
            output_corrected=True,
            conversation=1,
            conversation_tools="abc",
            ending="return_direct",
        ),
    )
    assert state.to_json() == OLD_JSON
    assert st.DisclosureState.from_json(OLD_JSON) == state


def test_a_counter_given_by_its_name_is_refused_with_its_new_spelling() -> None:
    with pytest.raises(TypeError) as one:
        st.DisclosureState(iteration=1, output_corrected=True)  # type: ignore[arg-type]
    assert str(one.value) == (
        "DisclosureState has no field output_corrected: the loop's counters are given as "
        "loop=LoopCounters(output_corrected=...) and read as state.loop.output_corrected"
    )
    with pytest.raises(TypeError) as two:
        st.DisclosureState(unknown_calls_in_a_row=1, catalogue="{}")  # type: ignore[arg-type]
    assert str(two.value) == (
        "DisclosureState has no fields catalogue, unknown_calls_in_a_row: the loop's "
        "counters are given as loop=LoopCounters(catalogue=..., unknown_calls_in_a_row=...) "
        "and read as state.loop.catalogue"
    )
    with pytest.raises(TypeError) as unknown:
        st.DisclosureState(unknown_calls=1)  # type: ignore[arg-type]
    assert str(unknown.value) == "DisclosureState has no field unknown_calls"


def test_a_counter_read_by_its_name_is_refused_with_its_new_spelling() -> None:
    state = st.DisclosureState(loop=LoopCounters(ending="return_direct"))
    assert state.loop.ending == "return_direct"
    with pytest.raises(AttributeError) as read:
        _ = state.ending  # type: ignore[attr-defined]
    assert str(read.value) == (
        "DisclosureState has no field ending: the loop's counters are given as "
        "loop=LoopCounters(ending=...) and read as state.loop.ending"
    )
    assert not hasattr(state, "conversation")
    with pytest.raises(AttributeError) as other:
        _ = state.no_such_field  # type: ignore[attr-defined]
    assert str(other.value) == "'DisclosureState' object has no attribute 'no_such_field'"


def test_the_scheduler_keeps_and_gives_the_disclosure_only() -> None:
    graph = st.disclosure_graph(search)
    counted = st.DisclosureState(loop=LoopCounters(unknown_calls_in_a_row=2, output_corrected=True))
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
