"""Exact texts the model gets for every kind of blocked call and announcement."""

from __future__ import annotations

import enum
from typing import Any

import attrs

import statetools as st
from statetools.engine.events import ToolsHidden, ToolsUnlocked
from statetools.models import ScriptedModel


def tool(name: str, result: Any = "ok") -> st.Tool:
    return st.Tool.create(name, f"Tool {name}", lambda: result)


@attrs.frozen
class Ticket:
    number: int


def test_blocked_texts_for_every_condition_kind() -> None:
    playbook = (
        st.PlaybookTool("p", "d")
        .with_tools(tool("a"), tool("b"))
        .with_tool(tool("when"))
        .unlocked_when(lambda view: view.calls("a") > 5, "a ran more than five times")
        .with_tool(tool("board"))
        .unlocked_by_blackboard(Ticket)
        .with_tool(tool("mixed"))
        .unlocked(st.AnyOf(st.After("a"), st.OnArtifact(Ticket)))
        .with_tool(tool("twice"))
        .unlocked(st.After(["a", "b"], count=2))
        .with_tool(tool("both"))
        .unlocked(st.AllOf(st.After("a"), st.InState("m", "B")))
    )
    scheduler = st.Scheduler.for_items([playbook])
    assert {
        name: scheduler.explain(name) for name in ["when", "board", "mixed", "twice", "both"]
    } == {
        "when": "Tool 'when' is locked. It unlocks when a ran more than five times.",
        "board": "Tool 'board' is locked. It unlocks when a Ticket is on the blackboard.",
        "mixed": "Tool 'mixed' is locked. It unlocks when a succeeded or a tool returned a Ticket.",
        "twice": "Tool 'twice' is locked. Call first: a (2 more), b (2 more).",
        "both": "Tool 'both' is locked. Call first: a. It unlocks in state B.",
    }
    scheduler.remove(["a"])
    assert scheduler.explain("a") == "Tool 'a' was removed from this run."
    assert scheduler.resolve("a") == st.Blocked("Tool 'a' was removed from this run.")


class Two(enum.Enum):
    A = 1
    B = 2


def test_announcements_name_the_machine_when_there_are_several() -> None:
    first = (
        st.StateMachineTool("first", "d", Two)
        .in_state(Two.A)
        .with_tool(tool("go"))
        .transitions_to(Two.B)
    )
    second = st.StateMachineTool("second", "d", Two).in_state(Two.B).with_tool(tool("late"))
    model = ScriptedModel([("go", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[first, second])
    assert result.messages[2].content == "ok\n[state of first is now B]"
    assert result.trace.of_type(ToolsHidden) == [ToolsHidden(1, ("go",))]


def test_when_conditions_are_rechecked_each_turn_with_the_run_context() -> None:
    playbook = (
        st.PlaybookTool("p", "d")
        .with_tool(tool("a"))
        .with_tool(tool("vip"))
        .unlocked_when(
            lambda view: view.context.get("tier") == "gold" and view.calls("a") >= 1, "gold after a"
        )
    )
    model = ScriptedModel([("a", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[playbook], context={"tier": "gold"})
    assert [r.tool_names for r in model.requests] == [["a"], ["a", "vip"]]
    assert result.trace.of_type(ToolsUnlocked) == [ToolsUnlocked(1, ("vip",))]


def test_a_blackboard_post_unlocks_on_the_next_turn() -> None:
    class PostTicket:
        def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
            context.blackboard.post(Ticket(7))
            return None

    playbook = (
        st.PlaybookTool("p", "d")
        .with_tool(tool("a"))
        .with_tool(tool("close"))
        .unlocked_by_blackboard(Ticket)
    )
    model = ScriptedModel([("a", {}), ("close", {}), "ok"])
    result = st.ToolLoop(model, strategies=[PostTicket()]).run("go", tools=[playbook])
    assert [r.tool_names for r in model.requests] == [["a"], ["a", "close"], ["a", "close"]]
    assert result.state.blackboard == (f"{__name__}.Ticket",)


def test_an_artifact_unlocks_and_lists_count() -> None:
    playbook = (
        st.PlaybookTool("p", "d")
        .with_tool(tool("find", [Ticket(1), Ticket(2)]))
        .with_tool(tool("close"))
        .unlocked_by_artifact(Ticket)
    )
    model = ScriptedModel([("find", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[playbook])
    assert result.messages[2].content == ('[{"number": 1}, {"number": 2}]\n[now available: close]')


def test_agentic_parameters_are_honoured() -> None:
    inner = ScriptedModel(["inner done"])
    agent = (
        st.PlaybookTool("helper", "Helps")
        .with_tool(tool("a"))
        .with_model(inner)
        .with_parameter(st.Parameter.string("topic", "Topic"))
        .with_parameter(st.Parameter.integer("depth", "Depth"))
        .with_max_iterations(1)
    )
    outer = ScriptedModel(
        [("helper", {"topic": "tides"}), ("helper", {"topic": "tides", "depth": 2}), "ok"]
    )
    result = st.ToolLoop(outer).run("go", tools=[agent])
    assert outer.requests[0].tools[0].input_schema["required"] == ["topic", "depth"]
    assert result.messages[2].content == (
        "Invalid arguments for tool 'helper': missing required argument 'depth'. "
        "Call it again with corrected arguments."
    )
    assert inner.requests[0].messages == (st.UserMessage('{"topic": "tides", "depth": 2}'),)
    assert result.messages[4].content == "inner done"
