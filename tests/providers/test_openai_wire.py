"""OpenAIChatModel against the real openai SDK and a local server: what goes on the wire."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest

import statetools as st
from statetools.models import ModelRequest, OpenAIChatModel
from tests.providers.provider_wire import (
    FAST_RETRY,
    OPEN_TICKET,
    SEARCH,
    SEARCH_SCHEMA,
    TITLE_SCHEMA,
    UnlockTicketAfterSearch,
    WireServer,
    chat_completion,
    openai_call,
    openai_error,
)

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the knowledge base.",
        "parameters": SEARCH_SCHEMA,
    },
}
TICKET_TOOL = {
    "type": "function",
    "function": {
        "name": "open_ticket",
        "description": "Open a support ticket.",
        "parameters": TITLE_SCHEMA,
    },
}


def model_for(wire: WireServer, **options: Any) -> OpenAIChatModel:
    return OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", **options)


def assistant_calls(*calls: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ],
    }


def test_a_run_sends_the_exact_history_and_the_tools_grow_after_an_injection(
    wire: WireServer,
) -> None:
    wire.reply(
        chat_completion(
            tool_calls=[
                openai_call("call_a", "search", '{"query": "printer"}'),
                openai_call("call_b", "search", '{"query": "toner"}'),
            ]
        )
    )
    wire.reply(chat_completion(tool_calls=[openai_call("call_c", "open_ticket", '{"title": "P"}')]))
    wire.reply(chat_completion("Ticket T-1 is open.", prompt_tokens=40, cached_tokens=32))
    loop = st.ToolLoop(
        model_for(wire), strategies=[UnlockTicketAfterSearch()], system_prompt="Be brief."
    )

    result = loop.run("My printer is broken.", tools=[SEARCH])

    start = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "My printer is broken."},
    ]
    first_turn = [
        assistant_calls(
            ("call_a", "search", '{"query": "printer"}'),
            ("call_b", "search", '{"query": "toner"}'),
        ),
        {"role": "tool", "tool_call_id": "call_a", "content": "3 hits for printer"},
        {"role": "tool", "tool_call_id": "call_b", "content": "3 hits for toner"},
    ]
    second_turn = [
        assistant_calls(("call_c", "open_ticket", '{"title": "P"}')),
        {"role": "tool", "tool_call_id": "call_c", "content": "opened T-1: P"},
    ]
    assert wire.bodies == [
        {"model": "gpt-test", "messages": start, "tools": [SEARCH_TOOL]},
        {"model": "gpt-test", "messages": start + first_turn, "tools": [SEARCH_TOOL, TICKET_TOOL]},
        {
            "model": "gpt-test",
            "messages": start + first_turn + second_turn,
            "tools": [SEARCH_TOOL, TICKET_TOOL],
        },
    ]
    assert [r.path for r in wire.requests] == ["/v1/chat/completions"] * 3
    assert wire.requests[0].headers["authorization"] == "Bearer sk-test"
    assert result.output == "Ticket T-1 is open."
    assert result.usage == st.models.Usage(
        input_tokens=60, output_tokens=15, cached_input_tokens=32
    )
    assert result.messages[2] == st.AssistantMessage(
        "",
        (
            st.ToolCall("call_a", "search", {"query": "printer"}),
            st.ToolCall("call_b", "search", {"query": "toner"}),
        ),
    )


def test_a_playbook_unlock_shows_on_the_wire(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[openai_call("call_1", "search", '{"query": "x"}')]))
    wire.reply(chat_completion(tool_calls=[openai_call("call_2", "open_ticket", '{"title": "x"}')]))
    wire.reply(chat_completion("Opened."))
    support = (
        st.PlaybookTool("support", "Support desk.")
        .with_tool(SEARCH)
        .with_tool(OPEN_TICKET)
        .unlocked_by(SEARCH)
    )

    result = st.ToolLoop(model_for(wire)).run("Printer broken.", tools=[support])

    assert [body["tools"] for body in wire.bodies] == [
        [SEARCH_TOOL],
        [SEARCH_TOOL, TICKET_TOOL],
        [SEARCH_TOOL, TICKET_TOOL],
    ]
    sent = wire.bodies[2]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "assistant", "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in sent if m["role"] == "tool"] == [
        (m.tool_call_id, m.content) for m in result.messages if isinstance(m, st.ToolMessage)
    ]
    assert result.output == "Opened."


def test_request_options_go_into_every_request_and_no_tools_means_no_tools_key(
    wire: WireServer,
) -> None:
    wire.reply(chat_completion("Hi."))
    model = model_for(wire, temperature=0, parallel_tool_calls=False)

    st.ToolLoop(model).run("Hello")

    assert wire.bodies == [
        {
            "model": "gpt-test",
            "messages": [{"role": "user", "content": "Hello"}],
            "temperature": 0,
            "parallel_tool_calls": False,
        }
    ]


def test_one_model_serves_several_sync_runs_on_a_keep_alive_server(wire: WireServer) -> None:
    for answer in ("one", "two", "three"):
        wire.reply(chat_completion(answer))
    model = model_for(wire, max_retries=0)

    outputs = [st.ToolLoop(model).run("Count.").output for _ in range(3)]

    assert outputs == ["one", "two", "three"]


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        ("weird", "other"),
    ],
)
def test_finish_reasons_map_to_stop_reasons(
    wire: WireServer, finish_reason: str, stop_reason: str
) -> None:
    wire.reply(chat_completion("text", finish_reason=finish_reason))
    request = ModelRequest((st.UserMessage("hi"),))

    response = asyncio.run(model_for(wire).complete(request))

    assert response.stop_reason == stop_reason
    assert response.message == st.AssistantMessage("text")


def test_a_refusal_becomes_the_content_with_stop_reason_refusal(wire: WireServer) -> None:
    body = chat_completion(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    wire.reply(body)

    response = asyncio.run(model_for(wire).complete(ModelRequest((st.UserMessage("hi"),))))

    assert (response.message.content, response.stop_reason) == (
        "I can't help with that.",
        "refusal",
    )


def test_malformed_arguments_become_error_results_and_the_run_continues(
    wire: WireServer,
) -> None:
    wire.reply(
        chat_completion(
            tool_calls=[
                openai_call("call_1", "search", '{"query": '),
                openai_call("call_2", "search", "[1, 2]"),
            ]
        )
    )
    wire.reply(chat_completion("Sorry, I will retry later."))

    result = st.ToolLoop(model_for(wire)).run("Find it.", tools=[SEARCH])

    not_json = (
        "Invalid arguments for tool 'search': not valid JSON (Expecting value at position "
        "10). Send the arguments as one JSON object."
    )
    not_object = (
        "Invalid arguments for tool 'search': expected a JSON object, got array. "
        "Send the arguments as one JSON object."
    )
    assert result.messages[1:3] == (
        st.AssistantMessage(
            "",
            (
                st.ToolCall("call_1", "search", {}, invalid_arguments=not_json),
                st.ToolCall("call_2", "search", {}, invalid_arguments=not_object),
            ),
        ),
        st.ToolMessage("call_1", "search", not_json, is_error=True),
    )
    assert result.messages[3] == st.ToolMessage("call_2", "search", not_object, is_error=True)
    assert wire.bodies[1]["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": not_json},
        {"role": "tool", "tool_call_id": "call_2", "content": not_object},
    ]
    assert result.output == "Sorry, I will retry later."


def test_a_429_is_retried_by_the_sdk(wire: WireServer) -> None:
    wire.reply(openai_error("Rate limit reached", "rate_limit"), status=429, headers=FAST_RETRY)
    wire.reply(chat_completion("Fine."))

    result = st.ToolLoop(model_for(wire)).run("Hi")

    assert result.output == "Fine."
    assert len(wire.requests) == 2
    assert wire.bodies[0] == wire.bodies[1]
    assert wire.requests[1].headers["x-stainless-retry-count"] == "1"


def test_a_persistent_500_raises_provider_error_with_the_history(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[openai_call("call_1", "search", '{"query": "x"}')]))
    for _ in range(3):
        wire.reply(openai_error("The server had an error"), status=500, headers=FAST_RETRY)
    loop = st.ToolLoop(model_for(wire, max_retries=2))

    with pytest.raises(st.ProviderError) as caught:
        loop.run("Find x.", tools=[SEARCH])

    error = caught.value
    assert error.status == 500
    assert error.message == "OpenAI returned HTTP 500: The server had an error"
    assert error.path == "openai:gpt-test"
    assert error.hint == (
        "the provider failed even after retries; run again later or raise max_retries"
    )
    assert len(wire.requests) == 4
    assert error.result is not None
    assert error.result.messages == (
        st.UserMessage("Find x."),
        st.AssistantMessage("", (st.ToolCall("call_1", "search", {"query": "x"}),)),
        st.ToolMessage("call_1", "search", "3 hits for x"),
    )


def test_a_401_is_not_retried_and_names_the_key_variable(wire: WireServer) -> None:
    wire.reply(openai_error("Incorrect API key provided", "invalid_request_error"), status=401)

    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(model_for(wire)).run("Hi")

    assert (caught.value.status, caught.value.hint) == (401, "check the API key (OPENAI_API_KEY)")
    assert len(wire.requests) == 1


def test_a_timeout_raises_provider_error(wire: WireServer) -> None:
    wire.reply(chat_completion("too late"), delay=5.0)
    loop = st.ToolLoop(model_for(wire, timeout=0.2, max_retries=0))
    started = time.monotonic()

    with pytest.raises(st.ProviderError) as caught:
        loop.run("Hi")

    assert time.monotonic() - started < 2.0
    assert caught.value.status is None
    assert caught.value.message == "OpenAI request timed out (timeout=0.2s per attempt)"
    assert caught.value.result is not None
    assert caught.value.result.messages == (st.UserMessage("Hi"),)


def test_a_missing_api_key_names_the_environment_variable() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        OpenAIChatModel("gpt-4o-mini")

    assert str(caught.value) == (
        "OpenAIChatModel: no OpenAI API key for model 'gpt-4o-mini' "
        "Hint: set the OPENAI_API_KEY environment variable or pass api_key=..."
    )


def test_the_key_comes_from_the_environment(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    wire.reply(chat_completion("ok"))

    st.ToolLoop(OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1")).run("Hi")

    assert wire.requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_capabilities_allow_dynamic_tools() -> None:
    model = OpenAIChatModel("gpt-test", api_key="sk-test")

    assert model.capabilities == st.models.ModelCapabilities(
        supports_dynamic_tools=True, parallel_tool_calls=True
    )


def test_an_unreachable_server_raises_provider_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAIChatModel(
        "gpt-test", base_url=f"http://127.0.0.1:{port}/v1", api_key="sk-test", max_retries=0
    )

    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(model).run("Hi")

    assert (caught.value.status, caught.value.message, caught.value.hint) == (
        None,
        "cannot reach the OpenAI API: Connection error.",
        "check base_url and the network",
    )
