"""OpenAIResponsesModel against the real openai SDK and a local server: the wire."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import statetools as st
from statetools.models import ModelRequest, OpenAIResponsesModel
from tests.providers.provider_wire import (
    FAST_RETRY,
    OPEN_TICKET,
    SEARCH,
    SEARCH_SCHEMA,
    TITLE_SCHEMA,
    WireServer,
    function_call,
    openai_error,
    output_message,
    response,
)

SEARCH_TOOL = {
    "type": "function",
    "name": "search",
    "description": "Search the knowledge base.",
    "parameters": SEARCH_SCHEMA,
    "strict": False,
}
TICKET_TOOL = {
    "type": "function",
    "name": "open_ticket",
    "description": "Open a support ticket.",
    "parameters": TITLE_SCHEMA,
    "strict": False,
}


def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise LookupError(f"no order {order_id}")


LOOKUP = st.Tool.from_function(lookup_order)


def model_for(wire: WireServer, **options: Any) -> OpenAIResponsesModel:
    return OpenAIResponsesModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", **options)


def call_item(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def output_item(call_id: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def test_a_run_with_an_unlock_parallel_calls_a_tool_error_and_a_429(wire: WireServer) -> None:
    wire.reply(
        response(
            function_call("call_a", "search", '{"query": "printer"}'),
            function_call("call_b", "lookup_order", '{"order_id": "7"}'),
            input_tokens=30,
        )
    )
    wire.reply(openai_error("Rate limit reached", "rate_limit"), status=429, headers=FAST_RETRY)
    wire.reply(response(function_call("call_c", "open_ticket", '{"title": "P"}')))
    wire.reply(response(output_message("Ticket T-1 is open."), input_tokens=60, cached_tokens=48))
    support = (
        st.PlaybookTool("support", "Support desk.")
        .with_tool(SEARCH)
        .with_tool(LOOKUP)
        .with_tool(OPEN_TICKET)
        .unlocked_by(SEARCH)
    )
    loop = st.ToolLoop(model_for(wire), system_prompt="Be brief.")

    result = loop.run("My printer is broken.", tools=[support])

    lookup_tool = {
        "type": "function",
        "name": "lookup_order",
        "description": "Look an order up.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
        "strict": False,
    }
    start = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "My printer is broken."},
    ]
    first_turn = [
        call_item("call_a", "search", '{"query": "printer"}'),
        call_item("call_b", "lookup_order", '{"order_id": "7"}'),
        output_item("call_a", "3 hits for printer\n[now available: open_ticket]"),
        output_item("call_b", "Tool 'lookup_order' failed: no order 7"),
    ]
    second_turn = [
        call_item("call_c", "open_ticket", '{"title": "P"}'),
        output_item("call_c", "opened T-1: P"),
    ]
    second = {
        "model": "gpt-test",
        "input": start + first_turn,
        "tools": [SEARCH_TOOL, lookup_tool, TICKET_TOOL],
    }
    assert wire.bodies == [
        {"model": "gpt-test", "input": start, "tools": [SEARCH_TOOL, lookup_tool]},
        second,
        second,  # the retry after the 429 sends the same body
        {
            "model": "gpt-test",
            "input": start + first_turn + second_turn,
            "tools": [SEARCH_TOOL, lookup_tool, TICKET_TOOL],
        },
    ]
    assert [r.path for r in wire.requests] == ["/v1/responses"] * 4
    assert wire.requests[2].headers["x-stainless-retry-count"] == "1"
    assert result.output == "Ticket T-1 is open."
    assert result.usage == st.models.Usage(
        input_tokens=100, output_tokens=15, cached_input_tokens=48
    )
    assert result.messages[4] == st.ToolMessage(
        "call_b", "lookup_order", "Tool 'lookup_order' failed: no order 7", is_error=True
    )


def test_assistant_text_with_calls_is_sent_back_before_the_calls(wire: WireServer) -> None:
    wire.reply(
        response(
            output_message("Let me look."), function_call("call_1", "search", '{"query": "x"}')
        )
    )
    wire.reply(response(output_message("Found.")))

    st.ToolLoop(model_for(wire, temperature=0)).run("Find x.", tools=[SEARCH])

    assert wire.bodies[1] == {
        "model": "gpt-test",
        "input": [
            {"role": "user", "content": "Find x."},
            {"role": "assistant", "content": "Let me look."},
            call_item("call_1", "search", '{"query": "x"}'),
            output_item("call_1", "3 hits for x"),
        ],
        "tools": [SEARCH_TOOL],
        "temperature": 0,
    }


@pytest.mark.parametrize(
    ("reply", "message", "stop_reason"),
    [
        (response(output_message("done")), st.AssistantMessage("done"), "end_turn"),
        (
            response(output_message("cut"), status="incomplete", incomplete="max_output_tokens"),
            st.AssistantMessage("cut"),
            "max_tokens",
        ),
        (
            response(status="incomplete", incomplete="content_filter"),
            st.AssistantMessage(""),
            "refusal",
        ),
        (
            response(output_message("I can't help with that.", refusal=True)),
            st.AssistantMessage("I can't help with that."),
            "refusal",
        ),
        (
            response(function_call("call_1", "search", "[1]")),
            st.AssistantMessage(
                "",
                (
                    st.ToolCall(
                        "call_1",
                        "search",
                        {},
                        invalid_arguments="Invalid arguments for tool 'search': expected a "
                        "JSON object, got array. Send the arguments as one JSON object.",
                    ),
                ),
            ),
            "tool_use",
        ),
    ],
)
def test_responses_map_to_messages_and_stop_reasons(
    wire: WireServer, reply: dict[str, Any], message: st.AssistantMessage, stop_reason: str
) -> None:
    wire.reply(reply)

    answer = asyncio.run(model_for(wire).complete(ModelRequest((st.UserMessage("hi"),))))

    assert (answer.message, answer.stop_reason) == (message, stop_reason)


def test_a_persistent_500_raises_provider_error_with_the_history(wire: WireServer) -> None:
    wire.reply(response(function_call("call_1", "search", '{"query": "x"}')))
    for _ in range(2):
        wire.reply(openai_error("The server had an error"), status=500, headers=FAST_RETRY)

    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(model_for(wire, max_retries=1)).run("Find x.", tools=[SEARCH])

    error = caught.value
    assert (error.status, error.message, error.path) == (
        500,
        "OpenAI returned HTTP 500: The server had an error",
        "openai:gpt-test",
    )
    assert error.result is not None
    assert error.result.messages[-1] == st.ToolMessage("call_1", "search", "3 hits for x")


def test_a_missing_api_key_names_the_environment_variable() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        OpenAIResponsesModel("gpt-4o-mini")

    assert str(caught.value) == (
        "OpenAIResponsesModel: no OpenAI API key for model 'gpt-4o-mini' "
        "Hint: set the OPENAI_API_KEY environment variable or pass api_key=..."
    )


def test_an_unknown_disclosure_mode_is_refused_with_the_modes() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        OpenAIResponsesModel("gpt-test", api_key="sk-test", disclosure="deferred")  # type: ignore[arg-type]

    assert str(caught.value) == (
        "OpenAIResponsesModel(disclosure=...): unknown disclosure mode 'deferred' "
        "Hint: use 'tools' or 'allowed_tools' or 'tool_search'"
    )


def test_a_timeout_raises_provider_error_and_keeps_the_history(wire: WireServer) -> None:
    wire.reply(response(output_message("too late")), delay=5.0)

    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(model_for(wire, timeout=0.2, max_retries=0)).run("Hi")

    assert (caught.value.status, caught.value.message) == (
        None,
        "OpenAI request timed out (timeout=0.2s per attempt)",
    )
    assert caught.value.result is not None
    assert caught.value.result.messages == (st.UserMessage("Hi"),)


def test_a_401_is_not_retried_and_names_the_key_variable(wire: WireServer) -> None:
    wire.reply(openai_error("Incorrect API key provided", "invalid_request_error"), status=401)

    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(model_for(wire)).run("Hi")

    assert (caught.value.status, caught.value.hint) == (401, "check the API key (OPENAI_API_KEY)")
    assert len(wire.requests) == 1
