"""Property tests: random facade trees against random call sequences."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import statetools as st
from statetools.models import ScriptedModel


@hs.composite
def trees(draw: hs.DrawFn) -> dict[str, Any]:
    """A forest of facades: {name: (children, exclusive, by_category)} and leaf names."""
    counter = iter(range(100))
    facades: dict[str, tuple[list[str], bool, bool]] = {}
    leaves: list[str] = []

    def node(depth: int) -> str:
        if depth < 3 and draw(hs.booleans()):
            name = f"f{next(counter)}"
            children = [node(depth + 1) for _ in range(draw(hs.integers(1, 3)))]
            facades[name] = (children, draw(hs.booleans()) and depth > 0, draw(hs.booleans()))
            return name
        name = f"t{next(counter)}"
        leaves.append(name)
        return name

    roots = [node(0) for _ in range(draw(hs.integers(1, 3)))]
    return {"roots": roots, "facades": facades, "leaves": leaves}


def build(spec: dict[str, Any], ran: list[tuple[str, int]], step: list[int]) -> list[st.BaseTool]:
    def make(name: str) -> st.BaseTool:
        if name in spec["facades"]:
            children, exclusive, by_category = spec["facades"][name]
            inner = [make(child) for child in children]
            if by_category:
                half = {"a": inner[::2], "b": inner[1::2] or inner[:1]}
                return st.UnfoldingTool.by_category(
                    name, f"Open {name}.", half, exclusive=exclusive
                )
            return st.UnfoldingTool.of(name, f"Open {name}.", inner, exclusive=exclusive)
        return st.Tool.create(name, f"Tool {name}.", lambda: ran.append((name, step[0])) or "ok")

    return [make(root) for root in spec["roots"]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=trees(), data=hs.data())
def test_locked_tools_never_run_and_a_resume_sees_the_same_tools(
    spec: dict[str, Any], data: hs.DataObject
) -> None:
    names = [*spec["facades"], *spec["leaves"], "ghost"]
    calls = data.draw(
        hs.lists(
            hs.tuples(
                hs.sampled_from(names),
                hs.sampled_from([{}, {"category": "a"}, {"category": "b"}]),
            ),
            max_size=10,
        )
    )
    ran: list[tuple[str, int]] = []
    seen: list[set[str]] = []
    current = [-1]

    def step(name: str, arguments: dict[str, Any]) -> Any:
        def respond(request: Any) -> Any:
            seen.append(set(request.tool_names))
            current[0] = len(seen) - 1
            return (name, arguments)

        return respond

    model = ScriptedModel([*(step(n, a) for n, a in calls), "done"])
    tools = build(spec, ran, current)
    loop = st.ToolLoop(model, max_iterations=len(calls) + 1)
    try:
        result = loop.run("go", tools=tools)
    except st.ToolNotFoundError as error:  # "ghost" three times in a row
        partial = error.result
        result = partial if partial is not None else pytest.fail("no partial result")

    # A tool ran only in a turn where the model could see it.
    for name, turn in ran:
        assert name in seen[turn]
    # Every call id is answered exactly once.
    asked = [
        c.id for m in result.messages if isinstance(m, st.AssistantMessage) for c in m.tool_calls
    ]
    answered = [m.tool_call_id for m in result.messages if isinstance(m, st.ToolMessage)]
    assert asked == answered
    # The state replays to the same visible tools, in the same order.
    live = st.Scheduler.for_items(build(spec, [], [0]), result.state)
    fresh_model = ScriptedModel(["done"])
    st.ToolLoop(fresh_model).run(
        list(result.messages), tools=build(spec, [], [0]), state=result.state
    )
    assert [t.name for t in live.visible()] == fresh_model.requests[0].tool_names
    if calls:
        last = ScriptedModel([*(step(n, a) for n, a in calls), "done"])
        again = st.ToolLoop(last, max_iterations=len(calls) + 1)
        with contextlib.suppress(st.ToolNotFoundError):
            again.run("go", tools=build(spec, [], [0]))
        assert last.requests[-1].tool_names == fresh_model.requests[0].tool_names
