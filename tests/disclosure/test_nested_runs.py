"""Agentic tools share the caller's blackboard both ways, and their nested runs' events
reach the outer run's listeners as NestedEvent (issue 30, seed rows)."""

from __future__ import annotations

import asyncio
from typing import Any

import attrs
import pytest

import statetools as st
from statetools.engine.events import (
    IterationStarted,
    ModelResponded,
    RunFinished,
    RunStarted,
    ToolAnswered,
    ToolCalled,
    ToolStarted,
    ToolsUnlocked,
)
from statetools.models import ScriptedModel


@attrs.frozen
class Brief:
    topic: str


@attrs.frozen
class Finding:
    text: str


def board_of(ctx: st.ToolCallContext) -> st.Blackboard:
    assert ctx.blackboard is not None
    return ctx.blackboard


def write_brief(topic: str, ctx: st.ToolCallContext) -> str:
    """Write the research brief."""
    board_of(ctx).post(Brief(topic))
    return "brief written"


def search(query: str, ctx: st.ToolCallContext) -> str:
    """Search the web."""
    board_of(ctx).post(Finding(f"{query} follow the moon"))
    return "found"


def cite(ctx: st.ToolCallContext) -> str:
    """Cite the brief."""
    brief = board_of(ctx).latest(Brief)
    return f"cited the brief on {brief.topic if brief else '?'}"


def publish(ctx: st.ToolCallContext) -> str:
    """Publish what is on the board."""
    return "; ".join(repr(value) for value in board_of(ctx))


def steady(event: Any) -> Any:
    """``event`` with its times and run id made fixed (the nested loop has its own clock)."""
    if isinstance(event, st.NestedEvent):
        return attrs.evolve(event, event=steady(event.event))
    fixed = {"at": 0.0, "duration": 0.0, "run_id": "run"}
    return attrs.evolve(event, **{k: v for k, v in fixed.items() if hasattr(event, k)})


def researcher(model: ScriptedModel, max_iterations: int = 20) -> st.SimpleAgenticTool:
    inner = st.PlaybookTool("inner", "Research.").with_tools(search).with_tool(cite)
    return (
        st.SimpleAgenticTool("researcher", "Research a topic.")
        .with_tools(inner.unlocked_by_blackboard(Brief))
        .with_model(model)
        .with_max_iterations(max_iterations)
    )


def outer_design(agent: Any) -> st.PlaybookTool:
    return (
        st.PlaybookTool("desk", "Write and publish.")
        .with_tools(write_brief, agent)
        .with_tool(publish)
        .unlocked_by_blackboard(Finding)
    )


def test_the_nested_run_reads_what_the_outer_run_posted_and_the_outer_run_reads_back() -> None:
    inner = ScriptedModel([("search", {"query": "tides"}), ("cite", {}), "Tides follow the moon."])
    outer = ScriptedModel(
        [("write_brief", {"topic": "tides"}), ("researcher", {"task": "t"}), ("publish", {}), "ok"]
    )
    result = st.ToolLoop(outer).run("go", tools=[outer_design(researcher(inner))])

    # the Brief the outer run posted unlocked `cite` before the nested run's first request
    assert inner.requests[0].tool_names == ["search", "cite"]
    assert [m.content for m in result.messages if isinstance(m, st.ToolMessage)] == [
        "brief written",
        "Tides follow the moon.\n[now available: publish]",
        "Brief(topic='tides'); Finding(text='tides follow the moon')",
    ]
    assert [m.content for m in inner.requests[-1].messages if isinstance(m, st.ToolMessage)] == [
        "found",
        "cited the brief on tides",
    ]
    assert outer.requests[2].tool_names == ["write_brief", "researcher", "publish"]
    assert result.state.blackboard == (f"{__name__}.Finding",)  # the types it waits for


def test_nested_events_reach_the_outer_listeners_marked_with_the_tool_and_not_its_trace() -> None:
    inner = ScriptedModel([("search", {"query": "tides"}), "Tides follow the moon."])
    outer = ScriptedModel([("researcher", {"task": "t"}), "ok"])
    heard: list[st.Event] = []
    loop = st.ToolLoop(outer, listeners=[heard.append], clock=lambda: 0.0, id_factory=lambda: "run")
    result = loop.run("go", tools=[outer_design(researcher(inner))])

    def nested(event: Any) -> st.NestedEvent:
        return st.NestedEvent(("researcher",), event)

    assert [steady(event) for event in heard] == [
        RunStarted("run", 0.0, ("write_brief", "researcher")),
        IterationStarted(1, ("write_brief", "researcher")),
        ModelResponded(1, "", ("researcher",), "tool_use"),
        ToolStarted(1, "call_1", "researcher"),
        nested(RunStarted("run", 0.0, ("search",))),
        nested(IterationStarted(1, ("search",))),
        nested(ModelResponded(1, "", ("search",), "tool_use")),
        nested(ToolStarted(1, "call_1", "search")),
        nested(ToolCalled(1, "call_1", "search", {"query": "tides"}, "text", 0.0)),
        nested(ToolAnswered(1, "call_1", "search", "found", False)),
        nested(IterationStarted(2, ("search",))),
        nested(ModelResponded(2, "Tides follow the moon.", (), "end_turn")),
        nested(RunFinished(0.0, 2, "answer")),
        ToolCalled(1, "call_1", "researcher", {"task": "t"}, "artifact", 0.0),
        ToolsUnlocked(1, ("publish",)),
        ToolAnswered(
            1, "call_1", "researcher", "Tides follow the moon.\n[now available: publish]", False
        ),
        IterationStarted(2, ("write_brief", "researcher", "publish")),
        ModelResponded(2, "ok", (), "end_turn"),
        RunFinished(0.0, 2, "answer"),
    ]
    assert heard[4].depth == 1  # type: ignore[union-attr]
    # the outer trace keeps its own events; the nested run's are in the call's result
    assert [steady(event) for event in result.trace] == [
        steady(event) for event in heard if not isinstance(event, st.NestedEvent)
    ]
    round_trip = st.Trace.from_json(st.Trace(tuple(heard)).to_json())
    assert round_trip == st.Trace(tuple(heard))


def test_an_inner_failure_two_levels_down_keeps_what_it_posted_and_is_heard_outside() -> None:
    inner = ScriptedModel([("search", {"query": "tides"}), ("search", {"query": "moons"}), "late"])
    planner = (
        st.SimpleAgenticTool("planner", "Plan the research.")
        .with_tools(researcher(inner, max_iterations=2))
        .with_model(ScriptedModel([("researcher", {"task": "t"}), "The research failed."]))
    )
    outer = ScriptedModel([("planner", {"task": "t"}), ("publish", {}), "ok"])
    heard: list[st.Event] = []
    loop = st.ToolLoop(outer, listeners=[heard.append])
    result = loop.run("go", tools=[outer_design(planner)])

    failed = (
        "ToolLoop: no final answer after 2 model calls "
        "Hint: raise max_iterations, or check that the tools let the model finish"
    )
    nested = [
        (event.path, steady(event.event)) for event in heard if isinstance(event, st.NestedEvent)
    ]
    deep, mid = ("planner", "researcher"), ("planner",)
    assert nested == [
        (mid, RunStarted("run", 0.0, ("researcher",))),
        (mid, IterationStarted(1, ("researcher",))),
        (mid, ModelResponded(1, "", ("researcher",), "tool_use")),
        (mid, ToolStarted(1, "call_1", "researcher")),
        (deep, RunStarted("run", 0.0, ("search",))),
        (deep, IterationStarted(1, ("search",))),
        (deep, ModelResponded(1, "", ("search",), "tool_use")),
        (deep, ToolStarted(1, "call_1", "search")),
        (deep, ToolCalled(1, "call_1", "search", {"query": "tides"}, "text", 0.0)),
        (deep, ToolAnswered(1, "call_1", "search", "found", False)),
        (deep, IterationStarted(2, ("search",))),
        (deep, ModelResponded(2, "", ("search",), "tool_use")),
        (deep, ToolStarted(2, "call_2", "search")),
        (deep, ToolCalled(2, "call_2", "search", {"query": "moons"}, "text", 0.0)),
        (deep, ToolAnswered(2, "call_2", "search", "found", False)),
        (deep, RunFinished(0.0, 2, "MaxIterationsExceeded", failed)),
        (mid, ToolCalled(1, "call_1", "researcher", {"task": "t"}, "error", 0.0)),
        (
            mid,
            ToolAnswered(
                1,
                "call_1",
                "researcher",
                "Tool 'researcher' failed: no final answer after 2 model calls",
                True,
            ),
        ),
        (mid, IterationStarted(2, ("researcher",))),
        (mid, ModelResponded(2, "The research failed.", (), "end_turn")),
        (mid, RunFinished(0.0, 2, "answer")),
    ]
    assert [e.depth for e in heard if isinstance(e, st.NestedEvent)][3:6] == [1, 2, 2]
    # what the failed run posted stays posted: the outer run's publish opened and reads it
    assert [m.content for m in result.messages if isinstance(m, st.ToolMessage)] == [
        "The research failed.\n[now available: publish]",
        "Finding(text='tides follow the moon'); Finding(text='moons follow the moon')",
    ]


def test_a_listener_failing_on_a_nested_event_stops_the_nested_and_the_outer_run() -> None:
    inner = ScriptedModel([("search", {"query": "tides"}), "never read"])
    outer = ScriptedModel([("researcher", {"task": "t"}), "never read"])

    def fail_on_nested_calls(event: st.Event) -> None:
        if isinstance(event, st.NestedEvent) and isinstance(event.event, ToolCalled):
            raise ValueError("the dashboard is down")

    heard: list[st.Event] = []
    loop = st.ToolLoop(outer, listeners=[heard.append, fail_on_nested_calls])
    with pytest.raises(st.RunAborted) as raised:
        loop.run("go", tools=[researcher(inner)])

    stopped = (
        "the run stopped: ValueError: the dashboard is down Hint: the exception is the "
        "__cause__; its traceback shows the failing code"
    )
    assert str(raised.value) == f"iteration 1: {stopped}"
    assert isinstance(raised.value.__cause__, ValueError)
    assert len(inner.requests) == 1
    assert len(outer.requests) == 1
    ends = [steady(e) for e in heard if isinstance(getattr(e, "event", e), RunFinished)]
    aborted = RunFinished(0.0, 1, "RunAborted", f"iteration 1: {stopped}")
    assert ends == [st.NestedEvent(("researcher",), aborted), aborted]
    # the call ran, and failed with the nested run, but the outer run stopped first
    assert [m.content for m in raised.value.result.messages] == [
        "go",
        "",
        "No result: the run stopped before this call was answered.",
    ]


def test_the_stream_of_a_run_yields_its_nested_runs_events_too() -> None:
    inner = ScriptedModel(["Tides follow the moon."])
    outer = ScriptedModel([("researcher", {"task": "t"}), "ok"])

    async def types() -> list[str]:
        stream = st.ToolLoop(outer).stream("go", tools=[researcher(inner)])
        return [
            f"{'>'.join(event.path)}:{event.event.type}"
            if isinstance(event, st.NestedEvent)
            else event.type
            async for event in stream
        ]

    assert asyncio.run(types()) == [
        "run_started",
        "iteration_started",
        "tool_call_started",
        "model_responded",
        "tool_started",
        "researcher:run_started",
        "researcher:iteration_started",
        "researcher:model_responded",
        "researcher:run_finished",
        "tool_called",
        "tool_answered",
        "iteration_started",
        "text_delta",
        "model_responded",
        "run_finished",
    ]


def test_outside_a_run_the_agentic_tool_uses_the_blackboard_its_context_carries() -> None:
    board = st.Blackboard()
    board.post(Brief("tides"))
    inner = ScriptedModel([("cite", {}), ("search", {"query": "tides"}), "done"])
    result = researcher(inner).call({"task": "t"}, st.ToolCallContext(blackboard=board))
    assert result.text == "done"
    assert inner.requests[0].tool_names == ["search", "cite"]
    assert list(board) == [Brief("tides"), Finding("tides follow the moon")]
    alone = ScriptedModel([("search", {"query": "x"}), "done"])
    assert researcher(alone).call({"task": "t"}).text == "done"  # a board of its own
    assert alone.requests[0].tool_names == ["search"]
