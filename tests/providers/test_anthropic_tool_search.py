"""Anthropic's tool search (``disclosure="tool_search"``) on the wire, with the real
``anthropic`` client against a local server: only tools the design lets the model
have are declared, the server's search blocks go back verbatim, what a search found
is callable at once, a locked tool is never declared and its call gets guidance, and
a resumed run sends the same tools."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.engine.events import ToolsUnlocked
from statetools.models import AnthropicModel
from tests.providers.provider_streams import anthropic_stream
from tests.providers.provider_wire import WireServer, anthropic_message, text, tool_use


def lookup_customer(email: str) -> str:
    """Find a customer by email."""
    return f"customer c1 ({email})"


def escalate(reason: str) -> str:
    """Hand the case to a human."""
    return "escalated"


def list_orders(customer: str) -> str:
    """List the orders of a customer."""
    return f"orders of {customer}: o7"


def refund_order(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def delete_account(customer: str) -> str:
    """Delete a customer's account."""
    return "deleted"


LOOKUP = st.Tool.from_function(lookup_customer)
ESCALATE = st.Tool.from_function(escalate)
LIST = st.Tool.from_function(list_orders)
REFUND = st.Tool.from_function(refund_order)
DELETE = st.Tool.from_function(delete_account)


def design() -> list[object]:
    """lookup_customer from the start; escalate after it; the order tools behind a
    search facade (refund_order only after list_orders); delete_account only after
    escalate, which this run never calls."""
    return [
        st.PlaybookTool("desk", "Desk").with_tools(LOOKUP).with_tool(ESCALATE).unlocked_by(LOOKUP),
        st.Facade.searchable(
            "find_tools",
            "Find tools for orders.",
            [LIST, st.PlaybookTool("refunds", "Refunds").with_tool(REFUND).unlocked_by(LIST)],
        ),
        st.PlaybookTool("danger", "Danger").with_tool(DELETE).unlocked_by(ESCALATE),
    ]


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


BM25 = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
LOOKUP_WIRE = wire_tool(LOOKUP, "email", cache_control={"type": "ephemeral"})
LIST_WIRE = wire_tool(LIST, "customer", defer_loading=True)
REFUND_WIRE = wire_tool(REFUND, "order", defer_loading=True)
ESCALATE_WIRE = wire_tool(ESCALATE, "reason", defer_loading=True)
LOCKED_DELETE = "Tool 'delete_account' is locked. Call first: escalate."


def searched(search_id: str, query: str, *names: str) -> list[dict[str, Any]]:
    """A server-side search as the API returns it: the call and its result."""
    return [
        {
            "type": "server_tool_use",
            "id": search_id,
            "name": "tool_search_tool_bm25",
            "input": {"query": query},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": search_id,
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": n} for n in names],
            },
        },
    ]


FIRST = [
    text("Looking for order tools."),
    *searched("srvtoolu_1", "customer orders", "list_orders"),
    tool_use("toolu_1", "list_orders", {"customer": "c1"}),
    tool_use("toolu_2", "delete_account", {"customer": "c1"}),
]
THIRD = [
    *searched("srvtoolu_2", "refund an order", "refund_order"),
    tool_use("toolu_4", "refund_order", {"order": "o7"}),
]


def reply_run(wire: WireServer) -> None:
    wire.reply(anthropic_message(*FIRST))
    wire.reply(anthropic_message(tool_use("toolu_3", "lookup_customer", {"email": "a@b.c"})))
    wire.reply(anthropic_message(*THIRD))
    wire.reply(anthropic_message(text("Refunded o7.")))


def model(wire: WireServer, **options: Any) -> AnthropicModel:
    return AnthropicModel(
        "claude-test",
        base_url=wire.url,
        api_key="sk-ant",
        disclosure="tool_search",
        cache_control=True,
        **options,
    )


def result_block(call_id: str, content: Any, *, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def expected_history() -> list[dict[str, Any]]:
    """The messages of the fourth request: the server blocks as they came, the result
    that made escalate visible loading it with a tool_reference."""
    return [
        {"role": "user", "content": "Refund the last order of a@b.c."},
        {"role": "assistant", "content": FIRST},
        {
            "role": "user",
            "content": [
                result_block("toolu_1", "orders of c1: o7"),
                result_block("toolu_2", LOCKED_DELETE, is_error=True),
            ],
        },
        {
            "role": "assistant",
            "content": [tool_use("toolu_3", "lookup_customer", {"email": "a@b.c"})],
        },
        {
            "role": "user",
            "content": [
                result_block(
                    "toolu_3",
                    [
                        {
                            "type": "text",
                            "text": "customer c1 (a@b.c)\n[now available: escalate]",
                        },
                        {"type": "tool_reference", "tool_name": "escalate"},
                    ],
                )
            ],
        },
        {"role": "assistant", "content": THIRD},
        {"role": "user", "content": [result_block("toolu_4", "refunded o7")]},
    ]


def test_server_search_declares_only_unlocked_tools_and_sends_its_blocks_back(
    wire: WireServer,
) -> None:
    reply_run(wire)

    result = st.ToolLoop(model(wire)).run("Refund the last order of a@b.c.", tools=design())

    assert [body["tools"] for body in wire.bodies] == [
        [BM25, LOOKUP_WIRE, LIST_WIRE],
        [BM25, LOOKUP_WIRE, LIST_WIRE, REFUND_WIRE],
        [BM25, LOOKUP_WIRE, ESCALATE_WIRE, LIST_WIRE, REFUND_WIRE],
        [BM25, LOOKUP_WIRE, ESCALATE_WIRE, LIST_WIRE, REFUND_WIRE],
    ]
    assert wire.bodies[3]["messages"] == expected_history()
    for body in wire.bodies:  # every earlier request is a prefix of the last one
        assert body["messages"] == expected_history()[: len(body["messages"])]
    declared = [[tool["name"] for tool in body["tools"]] for body in wire.bodies]
    assert not [names for names in declared if "delete_account" in names]
    assert "delete_account" not in json.dumps(wire.bodies[0])
    assert "anthropic-beta" not in wire.requests[0].headers
    assert result.output == "Refunded o7."
    assert [(m.role, m.content) for m in result.messages if m.role == "tool"] == [
        ("tool", "orders of c1: o7"),
        ("tool", LOCKED_DELETE),
        ("tool", "customer c1 (a@b.c)\n[now available: escalate]"),
        ("tool", "refunded o7"),
    ]
    assert result.messages[1] == st.AssistantMessage(
        "Looking for order tools.",
        (
            st.ToolCall("toolu_1", "list_orders", {"customer": "c1"}),
            st.ToolCall("toolu_2", "delete_account", {"customer": "c1"}),
        ),
        native={"anthropic": {"content": FIRST}},
    )
    assert [e.type for e in result.trace.events][:4] == [
        "run_started",
        "iteration_started",
        "model_responded",
        "tools_unlocked",
    ]
    assert result.trace.events[3] == ToolsUnlocked(1, ("list_orders",))
    assert [e.name for e in result.trace.events if e.type == "call_blocked"] == ["delete_account"]


def test_a_tool_the_search_did_not_find_is_refused_with_guidance(wire: WireServer) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "list_orders", {"customer": "c1"})))
    wire.reply(anthropic_message(text("I could not.")))

    result = st.ToolLoop(model(wire)).run("Orders of c1?", tools=design())

    guidance = "Tool 'list_orders' is not loaded. Search for it with tool_search_tool_bm25 first."
    assert result.messages[2] == st.ToolMessage("toolu_1", "list_orders", guidance, is_error=True)
    assert wire.bodies[1]["messages"][1:] == [
        {
            "role": "assistant",
            "content": [tool_use("toolu_1", "list_orders", {"customer": "c1"})],
        },
        {"role": "user", "content": [result_block("toolu_1", guidance, is_error=True)]},
    ]
    assert [e.reason for e in result.trace.events if e.type == "call_blocked"] == [guidance]


def test_the_regex_search_is_the_one_a_refusal_names(wire: WireServer) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "refund_order", {"order": "o7"})))
    wire.reply(anthropic_message(tool_use("toolu_2", "list_orders", {"customer": "c1"})))
    wire.reply(anthropic_message(text("I could not.")))

    result = st.ToolLoop(model(wire, search="regex")).run("Refund o7.", tools=design())

    # refund_order is locked until list_orders ran: no search finds it, the usual words
    assert [(m.name, m.content) for m in result.messages if m.role == "tool"] == [
        ("refund_order", "Tool 'refund_order' is locked. Call first: list_orders."),
        (
            "list_orders",
            "Tool 'list_orders' is not loaded. Search for it with tool_search_tool_regex first.",
        ),
    ]


def test_regex_search_sends_the_regex_tool(wire: WireServer) -> None:
    wire.reply(anthropic_message(text("Nothing to do.")))

    st.ToolLoop(model(wire, search="regex")).run("Hi.", tools=design())

    assert wire.bodies[0]["tools"] == [
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        LOOKUP_WIRE,
        LIST_WIRE,
    ]


def test_client_search_answers_with_statetools_ranker_and_tool_references(
    wire: WireServer,
) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "find_tools", {"query": "orders"})))
    wire.reply(anthropic_message(tool_use("toolu_2", "list_orders", {"customer": "c1"})))
    wire.reply(anthropic_message(text("o7.")))

    result = st.ToolLoop(model(wire, search="client")).run("Orders of c1?", tools=design())

    facade = st.Facade.searchable("find_tools", "Find tools for orders.", [LIST])
    facade_wire = {
        "name": "find_tools",
        "description": facade.description,
        "input_schema": json.loads(json.dumps(facade.input_schema)),
        "cache_control": {"type": "ephemeral"},
    }
    plain_lookup = {k: v for k, v in LOOKUP_WIRE.items() if k != "cache_control"}
    assert [body["tools"] for body in wire.bodies] == [
        [plain_lookup, facade_wire, LIST_WIRE],
        [plain_lookup, facade_wire, LIST_WIRE],
        [plain_lookup, facade_wire, LIST_WIRE, REFUND_WIRE],
    ]
    found = result.messages[2]
    assert found.content == (
        'Tools matching "orders", best first:\n'
        "- list_orders: List the orders of a customer.\n"
        "- refund_order (locked): Refund an order. Call first: list_orders.\n"
        "Tools now available: list_orders. Opening once unlocked: refund_order."
    )
    assert wire.bodies[1]["messages"][2] == {
        "role": "user",
        "content": [
            result_block(
                "toolu_1",
                [
                    {"type": "text", "text": found.content},
                    {"type": "tool_reference", "tool_name": "list_orders"},
                ],
            )
        ],
    }
    assert result.output == "o7."


def test_a_run_resumed_after_a_search_sends_the_same_tools_and_history(
    wire: WireServer, tmp_path: Path
) -> None:
    reply_run(wire)
    unbroken = st.ToolLoop(model(wire)).run("Refund the last order of a@b.c.", tools=design())
    assert unbroken.output == "Refunded o7."
    bodies = wire.bodies

    again = WireServer()
    again.start()
    try:
        again.reply(anthropic_message(*FIRST))
        store = st.SqliteStore(tmp_path / "runs.db")
        with pytest.raises(st.MaxIterationsExceeded):
            st.ToolLoop(model(again), max_iterations=1).run(
                "Refund the last order of a@b.c.", tools=design(), session="s1", store=store
            )
        saved = store.load("s1")
        assert saved.messages[1].native == {"anthropic": {"content": FIRST}}
        again.reply(anthropic_message(tool_use("toolu_3", "lookup_customer", {"email": "a@b.c"})))
        again.reply(anthropic_message(*THIRD))
        again.reply(anthropic_message(text("Refunded o7.")))
        resumed = st.ToolLoop(model(again)).run(None, tools=design(), session="s1", store=store)
        store.close()
    finally:
        again.stop()

    assert again.bodies == bodies
    assert resumed.output == "Refunded o7."
    assert list(resumed.messages) == list(unbroken.messages)


def test_when_no_tool_of_the_first_request_is_visible_the_visible_ones_load_from_the_start() -> (
    None
):
    from statetools.models import ModelRequest, ToolCatalogue, ToolDefinition
    from statetools.models.anthropic_search import SearchPlan

    first, later, kept = (
        ToolDefinition(name, name.title(), {"type": "object"})
        for name in ("first", "later", "kept")
    )
    catalogue = ToolCatalogue((first, later, kept), ("first",), {})
    request = ModelRequest((st.UserMessage("Go."),), (later, kept), catalogue=catalogue)

    plan = SearchPlan(request, "client", [])

    assert (plan.loaded_from_start, plan.deferred) == (["later", "kept"], [])
    assert plan.tools(lambda t: {"name": t.name}, "client", None) == [
        {"name": "later"},
        {"name": "kept"},
    ]


def test_an_unfolded_facade_keeps_its_place_and_its_tools_load_with_references(
    wire: WireServer,
) -> None:
    orders = st.Facade.of("orders", "Open the order tools.", [LIST])
    wire.reply(anthropic_message(tool_use("toolu_1", "orders", {})))
    wire.reply(anthropic_message(text("Open.")))

    st.ToolLoop(model(wire, search="client")).run("Orders?", tools=[LOOKUP, orders])

    facade_wire = {
        "name": "orders",
        "description": "Open the order tools.",
        "input_schema": {
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": False,
        },
    }
    plain_lookup = {k: v for k, v in LOOKUP_WIRE.items() if k != "cache_control"}
    cached_facade = {**facade_wire, "cache_control": {"type": "ephemeral"}}
    assert [body["tools"] for body in wire.bodies] == [
        [plain_lookup, cached_facade],
        [plain_lookup, cached_facade, LIST_WIRE],
    ]
    assert wire.bodies[1]["messages"][2]["content"][0]["content"][-1] == {
        "type": "tool_reference",
        "tool_name": "list_orders",
    }


def streamed(body: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The Messages API events of ``body``: a server search result block arrives whole in
    its ``content_block_start`` (as Anthropic streams it), the other blocks as usual."""
    events = anthropic_stream({**body, "content": []}, [])
    head, tail = events[:1], events[1:]
    middle: list[tuple[str | None, Any]] = []
    for index, block in enumerate(body["content"]):
        if block["type"] == "tool_search_tool_result":
            opening, deltas = block, []
        else:
            opening = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        middle.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        middle.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        )
        middle.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return head + middle + tail


def test_a_streamed_run_keeps_the_server_blocks_and_sends_the_same_bodies(
    wire: WireServer,
) -> None:
    first = [*searched("srvtoolu_1", "orders", "list_orders"), FIRST[3]]
    wire.reply(anthropic_message(*first))
    wire.reply(anthropic_message(text("o7.")))
    plain = st.ToolLoop(model(wire)).run("Orders of c1?", tools=design())
    bodies = wire.bodies

    again = WireServer()
    again.start()
    try:
        again.stream(streamed(anthropic_message(*first)))
        again.stream(anthropic_stream(anthropic_message(text("o7.")), ["o7."]))

        async def drain() -> st.LoopResult:
            stream = st.ToolLoop(model(again)).stream("Orders of c1?", tools=design())
            async for _ in stream:
                pass
            return stream.result

        result = asyncio.run(drain())
    finally:
        again.stop()

    assert [{k: v for k, v in b.items() if k != "stream"} for b in again.bodies] == bodies
    assert list(result.messages) == list(plain.messages)
    assert result.messages[1].native == {"anthropic": {"content": first}}
    assert result.messages[2] == st.ToolMessage("toolu_1", "list_orders", "orders of c1: o7")


def test_a_paused_turn_is_sent_back_and_goes_on_as_one_answer(wire: WireServer) -> None:
    paused = [text("Looking for order tools."), *searched("srvtoolu_1", "orders", "list_orders")]
    rest = [tool_use("toolu_1", "list_orders", {"customer": "c1"})]
    wire.reply(anthropic_message(*paused, stop_reason="pause_turn", input_tokens=20))
    wire.reply(anthropic_message(*rest, input_tokens=30))
    wire.reply(anthropic_message(text("c1 has order o7.")))

    result = st.ToolLoop(model(wire)).run("Orders of c1?", tools=design())

    question = {"role": "user", "content": "Orders of c1?"}
    tools = [BM25, LOOKUP_WIRE, LIST_WIRE]
    assert wire.bodies[0]["messages"] == [question]
    assert wire.bodies[1]["messages"] == [question, {"role": "assistant", "content": paused}]
    assert wire.bodies[1]["tools"] == wire.bodies[0]["tools"] == tools
    assert wire.bodies[2]["messages"] == [
        question,
        {"role": "assistant", "content": [*paused, *rest]},
        {"role": "user", "content": [result_block("toolu_1", "orders of c1: o7")]},
    ]
    assert wire.bodies[2]["tools"] == [BM25, LOOKUP_WIRE, LIST_WIRE, REFUND_WIRE]
    assert len(wire.bodies) == 3
    assert result.output == "c1 has order o7."
    assert result.messages[1] == st.AssistantMessage(
        "Looking for order tools.",
        (st.ToolCall("toolu_1", "list_orders", {"customer": "c1"}),),
        native={"anthropic": {"content": [*paused, *rest]}},
    )
    assert [e.iteration for e in result.trace.events if e.type == "model_responded"] == [1, 2]
    assert result.trace.events[3] == ToolsUnlocked(1, ("list_orders",))
    assert result.usage.input_tokens == 60


def test_a_streamed_paused_turn_goes_on_the_same_way(wire: WireServer) -> None:
    paused = searched("srvtoolu_1", "orders", "list_orders")
    rest = [tool_use("toolu_1", "list_orders", {"customer": "c1"})]
    wire.stream(streamed(anthropic_message(*paused, stop_reason="pause_turn")))
    wire.stream(streamed(anthropic_message(*rest)))
    final = anthropic_message(text("c1 has order o7."))
    wire.stream(anthropic_stream(final, ["c1 has order o7."]))

    async def drain() -> st.LoopResult:
        stream = st.ToolLoop(model(wire)).stream("Orders of c1?", tools=design())
        async for _ in stream:
            pass
        return stream.result

    result = asyncio.run(drain())

    question = {"role": "user", "content": "Orders of c1?"}
    assert [body["messages"][:2] for body in wire.bodies] == [
        [question],
        [question, {"role": "assistant", "content": paused}],
        [question, {"role": "assistant", "content": [*paused, *rest]}],
    ]
    assert result.messages[2] == st.ToolMessage("toolu_1", "list_orders", "orders of c1: o7")
    assert result.output == "c1 has order o7."
