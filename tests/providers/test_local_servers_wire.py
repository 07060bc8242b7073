"""OpenAIChatModel against what local OpenAI-compatible servers (llama.cpp's
llama-server, vLLM, Ollama) really send: the real openai SDK talks to a local server
that reproduces each difference, and the loop goes on."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.models import OpenAIChatModel
from tests.providers.provider_wire import WireServer, chat_completion

ORDER_SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}},
    "required": ["order_id"],
}


def get_order(order_id: str) -> str:
    """Look up an order."""
    return f"order {order_id}: shipped"


GET_ORDER = st.Tool.create("get_order", "Look up an order", get_order, schema=ORDER_SCHEMA)


def model_for(wire: WireServer) -> OpenAIChatModel:
    return OpenAIChatModel("qwen", base_url=f"{wire.url}/v1", api_key="none")


def call(arguments: Any, *, call_id: str | None = "x", name: str = "get_order") -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        entry["id"] = call_id
    return entry


def without_usage(reply: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in reply.items() if key != "usage"}


def tool_messages(wire: WireServer, request: int) -> list[tuple[str, str]]:
    return [
        (m["tool_call_id"], m["content"])
        for m in wire.bodies[request]["messages"]
        if m["role"] == "tool"
    ]


def assistant_ids(wire: WireServer, request: int) -> list[str]:
    return [
        c["id"]
        for m in wire.bodies[request]["messages"]
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or ()
    ]


def test_missing_and_reused_call_ids_get_ids_of_their_own(wire: WireServer) -> None:
    # llama-server of some versions sends no id; others send the same id every time
    wire.reply(chat_completion(tool_calls=[call('{"order_id": "1"}', call_id=None)]))
    wire.reply(chat_completion(tool_calls=[call('{"order_id": "2"}', call_id="same")]))
    wire.reply(
        chat_completion(
            tool_calls=[
                call('{"order_id": "3"}', call_id="same"),
                call('{"order_id": "4"}', call_id=""),
            ]
        )
    )
    wire.reply(chat_completion("All four are shipped."))

    result = st.ToolLoop(model_for(wire)).run("Where are my orders?", tools=[GET_ORDER])

    assert result.output == "All four are shipped."
    assert assistant_ids(wire, 3) == ["call_1", "same", "call_2", "call_3"]
    assert tool_messages(wire, 3) == [
        ("call_1", "order 1: shipped"),
        ("same", "order 2: shipped"),
        ("call_2", "order 3: shipped"),
        ("call_3", "order 4: shipped"),
    ]


def test_arguments_sent_as_an_object_or_encoded_twice_are_read(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[call({"order_id": "5"}, call_id="a")]))
    wire.reply(chat_completion(tool_calls=[call('"{\\"order_id\\": \\"6\\"}"', call_id="b")]))
    wire.reply(chat_completion("Both shipped."))

    result = st.ToolLoop(model_for(wire)).run("Orders 5 and 6?", tools=[GET_ORDER])

    assert result.output == "Both shipped."
    assert tool_messages(wire, 2) == [("a", "order 5: shipped"), ("b", "order 6: shipped")]
    # what goes back to the server is always the JSON text
    sent = [
        c["function"]["arguments"]
        for m in wire.bodies[2]["messages"]
        if m["role"] == "assistant"
        for c in m["tool_calls"]
    ]
    assert sent == ['{"order_id": "5"}', '{"order_id": "6"}']


def test_a_response_without_usage_counts_nothing_and_the_run_goes_on(wire: WireServer) -> None:
    wire.reply(without_usage(chat_completion(tool_calls=[call('{"order_id": "7"}')])))
    wire.reply(chat_completion("Shipped.", prompt_tokens=30, completion_tokens=4))

    result = st.ToolLoop(model_for(wire)).run("Order 7?", tools=[GET_ORDER])

    assert result.output == "Shipped."
    assert result.usage == st.models.Usage(30, 4, 0)


def test_calls_written_as_json_in_fenced_blocks_or_tags_are_run(wire: WireServer) -> None:
    # what Qwen2.5-Coder answers through llama-server when the template's parser misses it
    wire.reply(
        chat_completion(
            'I will check.\n```json\n{"name": "get_order", "arguments": {"order_id": "8"}}\n```'
        )
    )
    wire.reply(
        chat_completion(
            '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "9"}}\n</tool_call>'
        )
    )
    wire.reply(chat_completion("Orders 8 and 9 are shipped."))

    result = st.ToolLoop(model_for(wire)).run("Orders 8 and 9?", tools=[GET_ORDER])

    assert result.output == "Orders 8 and 9 are shipped."
    first = wire.bodies[1]["messages"][1:]
    assert first == [
        {
            "role": "assistant",
            "content": "I will check.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_order", "arguments": '{"order_id": "8"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "order 8: shipped"},
    ]
    assert tool_messages(wire, 2) == [
        ("call_1", "order 8: shipped"),
        ("call_2", "order 9: shipped"),
    ]


def test_a_malformed_call_in_the_text_is_an_error_the_model_corrects(wire: WireServer) -> None:
    wire.reply(chat_completion('```json\n{"name": "get_order", "arguments": {"order_id": 10\n```'))
    wire.reply(
        chat_completion('```json\n{"name": "get_order", "arguments": {"order_id": "10"}}\n```')
    )
    wire.reply(chat_completion("Order 10 is shipped."))

    result = st.ToolLoop(model_for(wire)).run("Order 10?", tools=[GET_ORDER])

    assert result.output == "Order 10 is shipped."
    assert tool_messages(wire, 1) == [
        (
            "call_1",
            "Invalid call of tool 'get_order': the call in your text is not valid JSON "
            "(Expecting ',' delimiter at position 50). Call the tool again with its arguments as "
            "one JSON object.",
        )
    ]
    assert wire.bodies[1]["messages"][-1]["role"] == "tool"
    assert tool_messages(wire, 2)[-1] == ("call_2", "order 10: shipped")


def test_a_call_without_a_name_is_answered_with_the_tools_there_are(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[call('{"order_id": "11"}', name="")]))
    wire.reply(chat_completion("Sorry."))

    result = st.ToolLoop(model_for(wire)).run("Order 11?", tools=[GET_ORDER])

    assert result.output == "Sorry."
    assert tool_messages(wire, 1) == [("x", "Tool '' does not exist. Available tools: get_order.")]


def test_prose_with_json_in_it_stays_an_answer(wire: WireServer) -> None:
    answer = (
        "Here is the format our API uses, as you asked:\n```json\n"
        '{"name": "Ada", "city": "London"}\n```\nEach record has a name and a city.'
    )
    wire.reply(chat_completion(answer))

    result = st.ToolLoop(model_for(wire)).run("Show me the record format.", tools=[GET_ORDER])

    assert result.output == answer
    assert len(wire.bodies) == 1


def test_several_calls_one_after_the_other_in_one_block_are_all_run(wire: WireServer) -> None:
    # Qwen2.5-Coder 1.5B writes consecutive calls as JSON objects in one block, and
    # sometimes closes one brace too many
    wire.reply(
        chat_completion(
            '```json\n{"name": "get_order", "arguments": {"order_id": "12"}}\n'
            '{"name": "get_order", "arguments": {"order_id": "13"}}}\n```'
        )
    )
    wire.reply(
        chat_completion(
            '```json\n{{"name": "get_order", "arguments": {"order_id": "14"}}}\n```\n'
            '```json\n{"name": "get_order", "arguments": {"order_id": "15"}}\n'
            "This looks the order up.\n```"
        )
    )
    wire.reply(chat_completion("All shipped."))

    result = st.ToolLoop(model_for(wire)).run("Orders 12 to 15?", tools=[GET_ORDER])

    assert result.output == "All shipped."
    assert tool_messages(wire, 2) == [
        ("call_1", "order 12: shipped"),
        ("call_2", "order 13: shipped"),
        ("call_3", "order 14: shipped"),  # written with its braces doubled
        ("call_4", "order 15: shipped"),  # with a note after it in the block
    ]


def test_a_call_before_a_fenced_note_is_run(wire: WireServer) -> None:
    # seen from Qwen2.5-Coder 1.5B: the call first, then a note in a fenced block
    wire.reply(
        chat_completion(
            '{"name": "get_order", "arguments": {"order_id": "16"}}\n```\nIt ships soon.\n```'
        )
    )
    wire.reply(chat_completion("Order 16 is shipped."))

    result = st.ToolLoop(model_for(wire)).run("Order 16?", tools=[GET_ORDER])

    assert result.output == "Order 16 is shipped."
    assert wire.bodies[1]["messages"][1]["content"] == "```\nIt ships soon.\n```"
    assert tool_messages(wire, 1) == [("call_1", "order 16: shipped")]
