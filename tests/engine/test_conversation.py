"""A Conversation driven by hand, with no event loop of its own, gives the run ToolLoop
gives: the same messages, state, trace, output and requests, for every kind of design."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import statetools as st
from statetools.engine import Call, Conversation
from statetools.engine.events import CallBlocked, StateEntered, ToolsUnlocked
from statetools.messages import AssistantMessage, ToolCall
from statetools.models import ScriptedModel
from statetools.models.base import ModelResponse


class Ticks:
    """A clock that moves one tick per reading: the runs must read it alike."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def run_tool(call: Call, conversation: Conversation) -> st.ToolResult:
    """What a host does with a call handed out: run it (arguments that could not be
    read are the error result)."""
    if call.invalid_arguments is not None:
        return st.ToolResult.error(call.invalid_arguments)
    return call.tool.call(dict(call.arguments), conversation.context)


def by_hand(
    items: Sequence[Any], prompt: str, steps: list[Any], **options: Any
) -> tuple[st.LoopResult, ScriptedModel]:
    model = ScriptedModel(steps)
    conversation = Conversation(items, prompt, run_id="run-1", clock=Ticks(), **options)
    while not conversation.finished:
        request = conversation.next_request()
        for call in conversation.take(model.respond(request)):
            with pytest.raises(RuntimeError):  # no event loop runs the conversation
                asyncio.get_running_loop()
            conversation.answer(call, run_tool(call, conversation))
    return conversation.result, model


def by_loop(
    items: Sequence[Any], prompt: str, steps: list[Any], **options: Any
) -> tuple[st.LoopResult, ScriptedModel]:
    model = ScriptedModel(steps)
    chaining = options.pop("chaining", ())
    loop = st.ToolLoop(model, clock=Ticks(), id_factory=lambda: "run-1", **options)
    loop.chaining = tuple(chaining)
    return loop.run(prompt, tools=items), model


def assert_same_run(
    items: Callable[[], Sequence[Any]], steps: list[Any], **options: Any
) -> st.LoopResult:
    hand, hand_model = by_hand(items(), "Go.", list(steps), **options)
    loop, loop_model = by_loop(items(), "Go.", list(steps), **options)
    assert hand.messages == loop.messages
    assert hand.trace == loop.trace
    assert hand.state == loop.state
    assert (hand.output, hand.iterations, hand.outcome, hand.stop_reason) == (
        loop.output,
        loop.iterations,
        loop.outcome,
        loop.stop_reason,
    )
    assert [r.tool_names for r in hand_model.requests] == [
        r.tool_names for r in loop_model.requests
    ]
    assert [r.messages for r in hand_model.requests] == [r.messages for r in loop_model.requests]
    return hand


def search(query: str) -> str:
    """Search the notes."""
    return f"2 notes about {query}"


def analyze() -> str:
    """Analyze what was found."""
    return "tides follow the moon"


def research() -> list[Any]:
    return [
        st.PlaybookTool("research", "Research a topic")
        .with_tools(search)
        .with_tool(st.Tool.from_function(analyze))
        .unlocked_by(search)
    ]


def test_a_playbook_with_a_lock_hit() -> None:
    result = assert_same_run(
        research,
        [("analyze", {}), ("search", {"query": "tides"}), ("analyze", {}), "The moon."],
    )

    assert [m.content for m in result.messages if isinstance(m, st.ToolMessage)] == [
        "Tool 'analyze' is locked. Call first: search.",
        "2 notes about tides\n[now available: analyze]",
        "tides follow the moon",
    ]
    assert result.trace.of_type(CallBlocked)[0].name == "analyze"
    assert result.trace.of_type(ToolsUnlocked)[0].names == ("analyze",)
    assert result.output == "The moon."


class Order(enum.Enum):
    DRAFT = "draft"
    CONFIRMED = "confirmed"
    SHIPPED = "shipped"


@st.llm_tool("Confirm the order.")
def confirm() -> str:
    return "confirmed"


@st.llm_tool("Ship the order with a carrier.")
def ship(carrier: str) -> str:
    return "shipped"


def order() -> list[Any]:
    return [
        st.StateMachineTool("order", "Handle one order", Order)
        .with_initial_state(Order.DRAFT)
        .in_state(Order.DRAFT)
        .with_tool(confirm)
        .transitions_to(Order.CONFIRMED)
        .in_state(Order.CONFIRMED)
        .with_tool(ship)
        .transitions_to(Order.SHIPPED)
        .with_final_states(Order.SHIPPED)
    ]


def test_a_state_machine_to_its_final_state() -> None:
    result = assert_same_run(
        order,
        [("ship", {"carrier": "ups"}), ("confirm", {}), ("ship", {"carrier": "ups"}), "never"],
        end_on_final_state=True,
    )

    assert [(e.previous, e.state) for e in result.trace.of_type(StateEntered)] == [
        ("DRAFT", "CONFIRMED"),
        ("CONFIRMED", "SHIPPED"),
    ]
    assert (result.outcome, result.output, result.iterations) == ("final_state", "shipped", 3)


def lookup(order_id: str) -> str:
    """Look an order up."""
    return f"order {order_id}: paid"


def refund(order_id: str) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


def desk() -> list[Any]:
    inner = [st.Tool.from_function(lookup), st.Tool.from_function(refund)]
    return [st.UnfoldingTool.of("orders", "Work with orders", inner)]


def test_a_facade_that_unfolds() -> None:
    result = assert_same_run(
        desk,
        [("lookup", {"order_id": "7"}), ("orders", {}), ("lookup", {"order_id": "7"}), "Paid."],
    )

    assert [m.content for m in result.messages if isinstance(m, st.ToolMessage)] == [
        "Tool 'lookup' is locked. Call first: orders.",
        "Tools now available: lookup, refund.",
        "order 7: paid",
    ]


class Repo:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Repo({self.name!r})"

    @st.llm_tool("Star the repository.")
    def star(self) -> str:
        return f"{self.name}: starred"


def open_repo(name: str) -> Repo:
    """Open a repository by name."""
    return Repo(name)


def test_chaining_binds_the_returned_object() -> None:
    chaining = st.ToolLoop(ScriptedModel([])).with_tool_chaining_from(Repo).chaining
    result = assert_same_run(
        lambda: [open_repo],
        [("star", {}), ("open_repo", {"name": "tides"}), ("star", {}), "Starred."],
        chaining=chaining,
    )

    assert [m.content for m in result.messages if isinstance(m, st.ToolMessage)] == [
        "Tool 'star' needs a Repo first. Call first: open_repo.",
        "\"Repo('tides')\"\n[now available: star]",
        "tides: starred",
    ]


def crash(reason: str) -> str:
    """A tool that fails."""
    raise ValueError(f"bad {reason}")


def test_an_error_result_and_arguments_that_are_not_json() -> None:
    broken = ToolCall("call_9", "crash", {}, invalid_arguments="arguments are not JSON")
    steps = [
        ("crash", {"reason": "disk"}),
        ModelResponse(AssistantMessage("", (broken,)), stop_reason="tool_use"),
        "It failed.",
    ]
    result = assert_same_run(lambda: [crash], steps)

    answers = [(m.content, m.is_error) for m in result.messages if isinstance(m, st.ToolMessage)]
    assert answers == [
        ("Tool 'crash' failed: bad disk", True),
        ("arguments are not JSON", True),
    ]


def test_max_iterations_ends_both_with_the_same_partial_result() -> None:
    steps = [("search", {"query": "a"}), ("search", {"query": "b"})]
    with pytest.raises(st.MaxIterationsExceeded) as by_hand_error:
        by_hand([search], "Go.", list(steps), max_iterations=2)
    with pytest.raises(st.MaxIterationsExceeded) as by_loop_error:
        by_loop([search], "Go.", list(steps), max_iterations=2)

    hand, loop = by_hand_error.value.result, by_loop_error.value.result
    assert hand is not None
    assert loop is not None
    assert (hand.messages, hand.trace, hand.state) == (loop.messages, loop.trace, loop.state)
    assert hand.outcome == "MaxIterationsExceeded"
    assert str(by_hand_error.value) == str(by_loop_error.value)


def test_calls_are_checked_in_order_and_answered_one_at_a_time() -> None:
    conversation = Conversation(research(), "Go.", run_id="r1", clock=Ticks())
    conversation.next_request()
    both = (ToolCall("c1", "search", {"query": "tides"}), ToolCall("c2", "analyze"))
    calls = conversation.take(ModelResponse(AssistantMessage("", both), stop_reason="tool_use"))

    first = next(calls)
    with pytest.raises(st.StatetoolsError, match="call 'c1' \\(search\\) has no answer yet"):
        next(calls)
    with pytest.raises(st.StatetoolsError, match="answer every call first"):
        conversation.next_request()
    events = conversation.answer(first, st.ToolResult.text("found"))
    second = next(calls)  # unlocked by the first call's answer: it runs
    conversation.answer(second, st.ToolResult.text("done"))

    # the answer's events, and the next call's check that the answer made possible
    assert [e.type for e in events] == [
        "tool_called",
        "tools_unlocked",
        "tool_answered",
        "tool_started",
    ]
    assert second.name == "analyze"
    assert list(calls) == []
    with pytest.raises(st.StatetoolsError, match="call 'c2' is not waiting for an answer"):
        conversation.answer(second, st.ToolResult.text("again"))


def test_a_finished_conversation_refuses_more_and_an_unfinished_one_has_no_result() -> None:
    conversation = Conversation([], "Hi", run_id="r1")
    with pytest.raises(st.StatetoolsError, match="has not finished"):
        _ = conversation.result
    with pytest.raises(st.StatetoolsError, match="take\\(\\) answers a request"):
        conversation.take(ModelResponse(AssistantMessage("Hello!")))
    conversation.next_request()
    conversation.take(ModelResponse(AssistantMessage("Hello!")))

    with pytest.raises(st.StatetoolsError, match="the conversation has finished"):
        conversation.next_request()
    assert conversation.result.output == "Hello!"
