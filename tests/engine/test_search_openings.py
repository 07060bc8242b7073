"""What a search facade may open, kept per run: a request after a call nothing depends on
asks the scheduler nothing again; a call that unlocks a tool under the facade makes it
loadable in the very next request (on the wire, with the real anthropic client); and
the kept answer equals the one worked out from scratch after every kind of change."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import pytest

import statetools as st
from statetools.engine import Conversation
from statetools.engine.catalogue import SearchOpenings
from statetools.engine.scheduler import Scheduler
from statetools.engine.tool_search import open_found, searchable_now
from statetools.messages import AssistantMessage, ToolCall
from statetools.models import AnthropicModel
from statetools.models.base import ModelCapabilities, ModelResponse
from tests.providers.provider_wire import WireServer, anthropic_message, text, tool_use

SERVER_SEARCH = ModelCapabilities(declares_all_tools=True, search_tool="tool_search_tool_bm25")


def ping(host: str) -> str:
    """Ping a host."""
    return f"{host} is up"


def list_orders(customer: str) -> str:
    """List the orders of a customer."""
    return f"orders of {customer}: o7"


def refund_order(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def note(text: str) -> str:
    """Write a note."""
    return "noted"


PING = st.Tool.from_function(ping)
LIST = st.Tool.from_function(list_orders)
REFUND = st.Tool.from_function(refund_order)
NOTE = st.Tool.from_function(note)


def design() -> list[object]:
    """ping and note from the start; a search facade holding list_orders, and
    refund_order that only a call of ping unlocks."""
    return [
        PING,
        NOTE,
        st.Facade.searchable(
            "find_tools",
            "Find tools for orders.",
            [LIST, st.PlaybookTool("after_ping", "After ping").with_tool(REFUND).unlocked_by(PING)],
        ),
    ]


def counted(conv: Conversation, names: tuple[str, ...]) -> dict[str, int]:
    """Count the scheduler's calls of ``names`` (the questions that cost per tool)."""
    calls = dict.fromkeys(names, 0)
    scheduler = conv.scheduler
    for name in names:
        method: Callable[..., Any] = getattr(scheduler, name)

        def wrapper(*args: Any, _name: str = name, _method: Any = method) -> Any:
            calls[_name] += 1
            return _method(*args)

        setattr(scheduler, name, wrapper)
    return calls


def step(conv: Conversation, *calls: ToolCall) -> None:
    conv.next_request()
    message = AssistantMessage("", calls)
    for call in conv.take(ModelResponse(message, stop_reason="tool_use")):
        conv.answer(call, call.tool.call(call.arguments, conv.context))


def test_a_request_after_a_call_nothing_depends_on_asks_the_scheduler_nothing_again() -> None:
    conv = Conversation(design(), "Go.", capabilities=SERVER_SEARCH, run_id="r1")
    asked = counted(conv, ("search_lock", "explain"))
    first = conv.next_request().catalogue
    assert first is not None
    assert first.searchable == {"find_tools": ("list_orders",)}
    assert asked == {"search_lock": 1, "explain": 1}  # refund_order under its playbook; the facade
    conv._asked = None  # only looked at

    step(conv, ToolCall("c1", "note", {"text": "x"}))
    asked.update(search_lock=0, explain=0)
    second = conv.next_request().catalogue
    assert second is not None
    assert asked == {"search_lock": 0, "explain": 0}
    assert second.searchable is first.searchable


def test_a_call_that_unlocks_a_tool_under_the_facade_asks_only_about_the_gated_tools() -> None:
    conv = Conversation(design(), "Go.", capabilities=SERVER_SEARCH, run_id="r1")
    asked = counted(conv, ("search_lock",))
    step(conv, ToolCall("c1", "ping", {"host": "h"}))
    asked.update(search_lock=0)
    catalogue = conv.next_request().catalogue
    assert catalogue is not None
    assert catalogue.searchable == {"find_tools": ("list_orders", "refund_order")}
    assert asked == {"search_lock": 1}  # refund_order only: list_orders opens with the facade


def schema(name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string"}},
        "required": [name],
        "additionalProperties": False,
    }


def wire_tool(tool: st.Tool, parameter: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": schema(parameter),
        **extra,
    }


@pytest.fixture
def wire() -> Any:
    server = WireServer()
    server.start()
    yield server
    server.stop()


def test_a_call_that_unlocks_a_tool_under_the_facade_makes_it_loadable_next(
    wire: WireServer,
) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "note", {"text": "start"})))
    wire.reply(anthropic_message(tool_use("toolu_2", "ping", {"host": "h"})))
    wire.reply(anthropic_message(text("Done.")))
    model = AnthropicModel(
        "claude-test", base_url=wire.url, api_key="sk-ant", disclosure="tool_search"
    )

    result = st.ToolLoop(model).run("Go.", tools=design())

    bm25 = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
    start = [bm25, wire_tool(PING, "host"), wire_tool(NOTE, "text")]
    listed = wire_tool(LIST, "customer", defer_loading=True)
    refund = wire_tool(REFUND, "order", defer_loading=True)
    assert [body["tools"] for body in wire.bodies] == [
        [*start, listed],
        [*start, listed],
        [*start, listed, refund],
    ]
    assert result.output == "Done."


def test_the_kept_answer_equals_the_one_worked_out_from_scratch_after_every_change() -> None:
    class Phase(enum.Enum):
        OPEN = "open"
        CLOSED = "closed"

    tools = {n: st.Tool.create(n, f"Tool {n}", lambda: "ok") for n in "abcdefghij"}
    machine = (
        st.StateMachineTool("desk", "Desk", Phase)
        .with_initial_state(Phase.OPEN)
        .in_state(Phase.OPEN)
        .with_tool(tools["c"])
        .transitions_to(Phase.CLOSED)
        .in_state(Phase.CLOSED)
        .with_tool(tools["d"])
    )
    finder = st.Facade.searchable(
        "finder",
        "Find tools",
        [
            tools["a"],
            tools["b"],
            st.PlaybookTool("later", "Later").with_tool(tools["e"]).unlocked_by(tools["g"]),
            machine,
        ],
    )
    only = st.Facade.of("only", "Only these", [tools["h"]], exclusive=True)
    gate = st.PlaybookTool("gate", "Gate").with_tools(tools["g"], tools["i"])
    scheduler = Scheduler.for_items([finder, only, gate])
    openings = SearchOpenings(scheduler)

    def check() -> None:
        assert openings.now() == searchable_now(scheduler)

    check()
    scheduler.record(ToolCall("1", "i"), st.ToolResult.text("ok"))  # nothing depends on it
    check()
    scheduler.record(ToolCall("2", "g"), st.ToolResult.text("ok"))  # unlocks e
    check()
    assert openings.now()["finder"] == ("a", "b", "e", "c")
    scheduler.remove(["b"])
    check()
    assert openings.now()["finder"] == ("a", "e", "c")
    open_found(scheduler, ["c"], "s1")
    scheduler.record(ToolCall("3", "c"), st.ToolResult.text("ok"))  # the machine moves on
    check()
    assert openings.now()["finder"] == ("a", "e", "d")
    only_tool = scheduler.resolve("only")
    assert isinstance(only_tool, st.Tool | st.Facade)
    scheduler.record(ToolCall("4", "only"), only_tool.call({}))  # takes finder away
    check()
    assert openings.now() == {"finder": ()}
