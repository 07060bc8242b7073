"""A run stopped after any turn and resumed from its JSON state and JSON history
continues exactly as the unbroken run, for every kind of design."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import statetools as st
from statetools.engine.events import InjectionSkipped
from statetools.models import ScriptedModel
from tests.disclosure.resume_designs import SCENARIOS, AddHelp, Answer, Scenario, World


def make_loop(model: ScriptedModel, world: World, scenario: Scenario) -> st.ToolLoop:
    ticks = itertools.count()
    if scenario.capabilities is not None:
        model.capabilities_value = scenario.capabilities
    return st.ToolLoop(
        model,
        clock=lambda: float(next(ticks)),
        id_factory=lambda: "run",
        instances=world.find,
        **scenario.options(world),
    )


def comparable(trace: st.Trace) -> list[dict[str, Any]]:
    skip = {"run_started", "run_finished"}
    return [
        {k: v for k, v in event.items() if k != "duration"}
        for event in trace.to_json()
        if event["type"] not in skip
    ]


CASES = [
    (name, stop) for name, scenario in SCENARIOS.items() for stop in range(1, len(scenario.steps))
]


@pytest.mark.parametrize(("kind", "stop_after"), CASES)
def test_resume_after_any_turn_matches_an_uninterrupted_run(kind: str, stop_after: int) -> None:
    scenario = SCENARIOS[kind]
    context = {"tenant": "acme"}
    world = World()
    full_model = ScriptedModel(scenario.steps)
    full = make_loop(full_model, world, scenario).run(
        "go", tools=scenario.tools(world), context=context, output_type=scenario.output_type
    )

    world = World()
    with pytest.raises(st.ScriptExhaustedError) as caught:
        make_loop(ScriptedModel(scenario.steps[:stop_after]), world, scenario).run(
            "go", tools=scenario.tools(world), context=context, output_type=scenario.output_type
        )
    first = caught.value.result
    assert first is not None
    saved_state = first.state.to_json()
    saved_messages = st.messages_to_json(first.messages)

    # Fresh objects: new tools from the same world (what a database would give back).
    model = ScriptedModel(scenario.steps[stop_after:])
    second = make_loop(model, world, scenario).run(
        st.messages_from_json(saved_messages),
        tools=scenario.tools(world),
        context=context,
        output_type=scenario.output_type,
        state=st.DisclosureState.from_json(saved_state),
    )

    assert second.messages == full.messages
    assert second.state == full.state
    # The model gets the same requests: history, tools, conversation and catalogue.
    assert model.requests == full_model.requests[stop_after:]
    # The interrupted run had started iteration stop_after + 1 when the script ran out;
    # the resumed run starts it again.
    interrupted = comparable(first.trace)
    cut = max(i for i, event in enumerate(interrupted) if event["type"] == "iteration_started")
    assert interrupted[cut]["iteration"] == stop_after + 1
    assert interrupted[:cut] + comparable(second.trace) == comparable(full.trace)


def test_every_scenario_runs_to_its_answer_without_errors_it_did_not_mean() -> None:
    for name, scenario in SCENARIOS.items():
        world = World()
        loop = make_loop(ScriptedModel(scenario.steps), world, scenario)
        result = loop.run(
            "go",
            tools=scenario.tools(world),
            context={"tenant": "acme"},
            output_type=scenario.output_type,
        )
        assert result.output in ("Done.", Answer("Done.")), name


def test_a_bad_state_is_a_spec_error() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.DisclosureState.from_json('{"call_counts": {"a": "many"}, "bogus": 1}')
    assert caught.value.problems == (
        "state.call_counts['a']: expected an integer, got str",
        "state: unknown fields: bogus",
    )


def _stopped(kind: str, stop_after: int) -> tuple[Scenario, World, st.LoopResult]:
    scenario = SCENARIOS[kind]
    world = World()
    with pytest.raises(st.ScriptExhaustedError) as caught:
        make_loop(ScriptedModel(scenario.steps[:stop_after]), world, scenario).run(
            "go", tools=scenario.tools(world)
        )
    assert caught.value.result is not None
    return scenario, world, caught.value.result


def skipped(result: st.LoopResult) -> list[tuple[str, str]]:
    return [(e.name, e.reason) for e in result.trace.of_type(InjectionSkipped)]


def test_objects_are_saved_by_type_and_id() -> None:
    _, _, first = _stopped("discovery", 3)
    assert first.state.objects == (
        ("discovery", "tests.disclosure.resume_designs.Customer", "c1"),
        ("discovery", "tests.disclosure.resume_designs.Customer", "c2"),
        ("discovery", "tests.disclosure.resume_designs.Order", "c2-o1"),
    )
    _, _, first = _stopped("chaining-from-a-type", 3)
    assert first.state.objects == (
        ("tests.disclosure.resume_designs.Repo", "tests.disclosure.resume_designs.Repo", "first"),
    )


def test_what_cannot_be_restored_is_reported_at_the_first_turn() -> None:
    scenario, world, first = _stopped("discovery", 3)
    model = ScriptedModel(["Done."])
    second = st.ToolLoop(model, instances=lambda kind, key: None).run(
        list(first.messages), tools=scenario.tools(world), state=first.state
    )
    reason = (
        "not restored on resume: Customer 'c1', Customer 'c2', Order 'c2-o1' not found by "
        "ToolLoop(instances=...)"
    )
    assert skipped(second) == [
        ("customer_c1_recent_orders", reason),
        ("customer_c2_recent_orders", reason),
        ("order_c2-o1_status", reason),
        ("order_c2-o1_cancel", reason),
    ]
    assert model.requests[0].tool_names == ["search_customers"]

    scenario, world, first = _stopped("chaining-from-a-type", 3)
    model = ScriptedModel([("star", {}), "Done."])
    second = st.ToolLoop(model).run(
        list(first.messages), tools=scenario.tools(world), state=first.state
    )
    assert skipped(second) == [
        ("star", "not restored on resume: Repo 'first' not found (no instances=)")
    ]
    assert second.messages[-2].content == "Tool 'star' needs a Repo first. Call first: open_repo."


def test_a_strategy_without_a_tool_method_cannot_restore_its_tools() -> None:
    class Forgetful(AddHelp):
        tool = None  # type: ignore[assignment]

    scenario, world, first = _stopped("injection-strategy", 2)
    model = ScriptedModel(["Done."])
    second = st.ToolLoop(model, strategies=[Forgetful()]).run(
        list(first.messages), tools=scenario.tools(world), state=first.state
    )
    assert skipped(second) == [
        (
            "help",
            "not restored on resume: no injection strategy gives it back (a tool(name) method)",
        )
    ]


def test_a_resolver_that_fails_restores_nothing_and_says_why() -> None:
    def broken(kind: str, key: str) -> object:
        raise ConnectionError("database down")

    scenario, world, first = _stopped("chaining-from-a-type", 3)
    model = ScriptedModel(["Done."])
    second = st.ToolLoop(model, instances=broken).run(
        list(first.messages), tools=scenario.tools(world), state=first.state
    )
    assert skipped(second) == [
        (
            "star",
            "not restored on resume: Repo 'first' (ConnectionError: database down) not found "
            "by ToolLoop(instances=...)",
        )
    ]
