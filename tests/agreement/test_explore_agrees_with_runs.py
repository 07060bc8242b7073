"""Property test: explore() and real runs agree on random designs.

Designs mix a playbook (After/InState conditions), a state machine (tools bound to
states, transitions, also on facades) and facades (nested, some exclusive). Every tool
set a run sends to the model is one explore() found, and replaying the path explore()
gives for each set shows exactly that set: the scheduler and the analysis share one
visibility rule.
"""

from __future__ import annotations

import contextlib
import enum
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import statetools as st
from statetools.models import ScriptedModel
from tests.strategies import conditions

LEAVES = [f"t{i}" for i in range(5)]
FACADES = ["f0", "f1"]
STATES = ["S0", "S1", "S2"]
States = enum.Enum("States", STATES)  # type: ignore[misc]
PLACES = ["playbook", "machine", "global"]


@hs.composite
def designs(draw: hs.DrawFn) -> dict[str, Any]:
    """{name: where}: a place (playbook, machine, global) or the facade holding it, with
    conditions (playbook), states and transitions (machine) and exclusive facades."""
    facades = FACADES[: draw(hs.integers(0, len(FACADES)))]
    where: dict[str, str] = {}
    for name in facades:
        holders = [f for f in facades if f < name]  # f1 may sit inside f0
        where[name] = draw(hs.sampled_from([*PLACES, *holders]))
    for name in LEAVES[: draw(hs.integers(1, len(LEAVES)))]:
        where[name] = draw(hs.sampled_from([*PLACES, *facades]))
    names = list(where)
    spec: dict[str, Any] = {
        "where": where,
        "exclusive": {f: draw(hs.booleans()) for f in facades},
        "conditions": {},
        "states": {},
        "transitions": [],
    }
    for name, place in where.items():
        if place == "playbook" and draw(hs.booleans()):
            spec["conditions"][name] = draw(conditions(names, width=2, leaves=3))
        if place == "machine":
            states = draw(hs.lists(hs.sampled_from(STATES), min_size=1, max_size=3, unique=True))
            spec["states"][name] = states
            for state in states:
                if draw(hs.booleans()):
                    spec["transitions"].append((state, name, draw(hs.sampled_from(STATES))))
    return spec


def build(spec: dict[str, Any]) -> list[Any]:
    where: dict[str, str] = spec["where"]
    made: dict[str, Any] = {}

    def make(name: str) -> Any:
        if name not in made:
            if name in FACADES:
                inner = [make(child) for child, place in where.items() if place == name]
                if not inner:
                    inner = [st.Tool.create(f"{name}_help", f"Help of {name}.", lambda: "ok")]
                exclusive = spec["exclusive"][name]
                made[name] = st.UnfoldingTool.of(name, f"Open {name}.", inner, exclusive=exclusive)
            else:
                made[name] = st.Tool.create(name, f"Tool {name}.", lambda: "ok")
        return made[name]

    playbook = st.PlaybookTool("p", "A playbook.")
    machine = st.StateMachineTool("m", "A machine.", States).with_initial_state("S0")
    for name, place in where.items():
        if place == "playbook":
            playbook = playbook.with_tool(make(name))
            if name in spec["conditions"]:
                playbook = playbook.unlocked(spec["conditions"][name])
        elif place == "global":
            machine = machine.with_global_tools(make(name))
        elif place == "machine":
            for state in spec["states"][name]:
                machine = machine.in_state(state).with_tool(make(name))
                for source, tool, target in spec["transitions"]:
                    if source == state and tool == name:
                        machine = machine.transitions_to(target)
    items: list[Any] = [machine]
    if playbook.entries:
        items.append(playbook)
    return items


def run(items: list[Any], calls: list[str]) -> list[frozenset[str]]:
    """The tool sets the model was sent, one call per turn."""
    model = ScriptedModel([*((name, {}) for name in calls), "end"])
    with contextlib.suppress(st.ToolNotFoundError):  # three unknown names in a row
        st.ToolLoop(model, max_iterations=len(calls) + 1).run("go", tools=items)
    return [frozenset(request.tool_names) for request in model.requests]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=designs(), data=hs.data())
def test_runs_show_only_sets_explore_found_and_explore_paths_show_their_set(
    spec: dict[str, Any], data: hs.DataObject
) -> None:
    exploration = st.explore(st.disclosure_graph(*build(spec)))
    found = {frozenset(v.tools) for v in exploration.visible_sets}

    for visible_set in exploration.visible_sets:
        seen = run(build(spec), list(visible_set.path))
        assert seen[-1] == frozenset(visible_set.tools), visible_set.path

    names = [*spec["where"], *(f"{f}_help" for f in FACADES), "ghost"]
    calls = data.draw(hs.lists(hs.sampled_from(names), max_size=8))
    for index, tools in enumerate(run(build(spec), calls)):
        assert tools in found, (calls[:index], sorted(tools))
