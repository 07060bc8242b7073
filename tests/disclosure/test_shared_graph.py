"""A compiled graph is only read by the runs over it: any number of runs, one after
another or in threads at once, leave every index of the graph as it was (the same keys,
holding the very same objects), and each run gives what it gives over a graph of its own."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel
from tests.disclosure.resume_designs import SCENARIOS, Scenario, World
from tests.disclosure.test_resume import make_loop

NOT_INDEXES = {"_networkx", "_graph", "_analysis_lock"}
"""The networkx graph, built for the analyses on first use (never by a run), and its lock."""

WITHOUT_WORLD_STATE = [
    "playbook-and-machine",
    "facades",
    "selectable-facade",
    "exclusive-facade",
    "declared-visibility",
    "artifacts-and-blackboard",
    "when-conditions",
    "searchable-facade",
    "layered",
    "unknown-tools-in-a-row",
    "output-correction",
    "facade-in-a-machine",
]
"""Scenarios whose tools keep nothing between calls (threads may share their tools)."""


def frozen(value: Any) -> Any:
    """``value`` as nested tuples of what it holds: containers by their contents, every
    other object by its identity (so a run that replaced or mutated anything shows)."""
    if isinstance(value, Mapping):
        return ("map", tuple((key, frozen(item)) for key, item in value.items()))
    if isinstance(value, set | frozenset):
        return ("set", frozenset(frozen(item) for item in value))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(frozen(item) for item in value))
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return ("object", id(value))


def indexes(graph: st.DisclosureGraph) -> dict[str, Any]:
    """Every attribute of ``graph`` a run may read, frozen."""
    return {name: frozen(value) for name, value in vars(graph).items() if name not in NOT_INDEXES}


def run(scenario: Scenario, world: World, tools: list[Any], steps: list[Any]) -> st.LoopResult:
    """Run ``steps`` of ``scenario`` (the result so far when the script runs out)."""
    loop = make_loop(ScriptedModel(steps), world, scenario)
    try:
        return loop.run(
            "go", tools=tools, context={"tenant": "acme"}, output_type=scenario.output_type
        )
    except st.ScriptExhaustedError as stopped:
        result: st.LoopResult = stopped.result
    return result


def same_run(a: st.LoopResult, b: st.LoopResult) -> bool:
    return (a.messages, a.state, a.output, a.outcome) == (b.messages, b.state, b.output, b.outcome)


@pytest.mark.parametrize("kind", sorted(SCENARIOS))
def test_runs_over_a_compiled_graph_leave_it_as_it_was(kind: str) -> None:
    scenario = SCENARIOS[kind]
    world = World()
    items = scenario.tools(world)
    graph = st.disclosure_graph(*items)
    before = indexes(graph)

    whole = run(scenario, world, [graph], scenario.steps)
    half = run(scenario, world, [graph], scenario.steps[: len(scenario.steps) // 2])
    assert half.iterations < whole.iterations  # two different runs
    assert indexes(graph) == before

    if scenario.capabilities is None:  # a model that searches adds its tool to a graph
        own = World()
        assert same_run(whole, run(scenario, own, scenario.tools(own), scenario.steps))


def test_threads_share_compiled_graphs_and_get_what_runs_one_at_a_time_get() -> None:
    shared: dict[str, tuple[Scenario, World, st.DisclosureGraph]] = {}
    for kind in WITHOUT_WORLD_STATE:
        world = World()
        shared[kind] = (SCENARIOS[kind], world, st.disclosure_graph(*SCENARIOS[kind].tools(world)))
    before = {kind: indexes(graph) for kind, (_, _, graph) in shared.items()}
    alone = {
        kind: run(scenario, world, [graph], scenario.steps)
        for kind, (scenario, world, graph) in shared.items()
    }
    start = threading.Barrier(8)
    differing: list[str] = []

    def work(offset: int) -> None:
        start.wait()
        kinds = WITHOUT_WORLD_STATE[offset:] + WITHOUT_WORLD_STATE[:offset]
        for _ in range(3):
            for kind in kinds:
                scenario, world, graph = shared[kind]
                if not same_run(run(scenario, world, [graph], scenario.steps), alone[kind]):
                    differing.append(kind)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert differing == []
    assert {kind: indexes(graph) for kind, (_, _, graph) in shared.items()} == before
