"""AnthropicModel against the real anthropic SDK and a local server: what goes on the wire."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import statetools as st
from statetools.models import AnthropicModel, ModelRequest
from statetools.models.anthropic_messages import MAX_CONTINUATIONS
from tests.providers.provider_wire import (
    FAST_RETRY,
    OPEN_TICKET,
    SEARCH,
    SEARCH_SCHEMA,
    TITLE_SCHEMA,
    UnlockTicketAfterSearch,
    WireServer,
    anthropic_error,
    anthropic_message,
    text,
    tool_use,
)

SEARCH_TOOL = {
    "name": "search",
    "description": "Search the knowledge base.",
    "input_schema": SEARCH_SCHEMA,
}
TICKET_TOOL = {
    "name": "open_ticket",
    "description": "Open a support ticket.",
    "input_schema": TITLE_SCHEMA,
}
EPHEMERAL = {"type": "ephemeral"}


def model_for(wire: WireServer, **options: Any) -> AnthropicModel:
    return AnthropicModel("claude-test", base_url=wire.url, api_key="sk-ant", **options)


def result_block(call_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def test_a_run_sends_the_exact_history_and_the_tools_grow_after_an_injection(
    wire: WireServer,
) -> None:
    wire.reply(
        anthropic_message(
            text("Let me look."),
            tool_use("toolu_1", "search", {"query": "printer"}),
            tool_use("toolu_2", "search", {"query": "toner"}),
        )
    )
    wire.reply(anthropic_message(tool_use("toolu_3", "open_ticket", {"title": "P"})))
    wire.reply(
        anthropic_message(text("Ticket T-1 is open."), input_tokens=6, cache_read=30, cache_write=4)
    )
    loop = st.ToolLoop(
        model_for(wire), strategies=[UnlockTicketAfterSearch()], system_prompt="Be brief."
    )

    result = loop.run("My printer is broken.", tools=[SEARCH])

    first_turn = [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "search",
                    "input": {"query": "printer"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "search",
                    "input": {"query": "toner"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                result_block("toolu_1", "3 hits for printer"),
                result_block("toolu_2", "3 hits for toner"),
            ],
        },
    ]
    second_turn = [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_3",
                    "name": "open_ticket",
                    "input": {"title": "P"},
                }
            ],
        },
        {"role": "user", "content": [result_block("toolu_3", "opened T-1: P")]},
    ]
    start = [{"role": "user", "content": "My printer is broken."}]

    def body(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "model": "claude-test",
            "max_tokens": 4096,
            "system": "Be brief.",
            "messages": messages,
            "tools": tools,
        }

    assert wire.bodies == [
        body(start, [SEARCH_TOOL]),
        body(start + first_turn, [SEARCH_TOOL, TICKET_TOOL]),
        body(start + first_turn + second_turn, [SEARCH_TOOL, TICKET_TOOL]),
    ]
    assert [r.path for r in wire.requests] == ["/v1/messages"] * 3
    headers = wire.requests[0].headers
    assert headers.get("x-api-key") == "sk-ant" or headers.get("authorization") == "Bearer sk-ant"
    assert result.output == "Ticket T-1 is open."
    assert result.usage == st.models.Usage(
        input_tokens=20 + 40, output_tokens=15, cached_input_tokens=30
    )
    assert result.messages[2] == st.AssistantMessage(
        "Let me look.",
        (
            st.ToolCall("toolu_1", "search", {"query": "printer"}),
            st.ToolCall("toolu_2", "search", {"query": "toner"}),
        ),
    )


def test_a_playbook_unlock_shows_on_the_wire(wire: WireServer) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "search", {"query": "x"})))
    wire.reply(anthropic_message(tool_use("toolu_2", "open_ticket", {"title": "x"})))
    wire.reply(anthropic_message(text("Opened.")))
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
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "user"]
    assert [(m["content"][0]["tool_use_id"], m["content"][0]["content"]) for m in sent[2::2]] == [
        (m.tool_call_id, m.content) for m in result.messages if isinstance(m, st.ToolMessage)
    ]
    assert result.output == "Opened."


def test_cache_control_marks_the_system_prompt_and_the_last_tool(wire: WireServer) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "search", {"query": "x"})))
    wire.reply(anthropic_message(text("Done.")))
    loop = st.ToolLoop(
        model_for(wire, cache_control=True, max_tokens=512, temperature=0),
        strategies=[UnlockTicketAfterSearch()],
        system_prompt="Be brief.",
    )

    loop.run("Find x.", tools=[SEARCH])

    system = [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}]
    assert [(b["system"], b["tools"], b["max_tokens"], b["temperature"]) for b in wire.bodies] == [
        (system, [{**SEARCH_TOOL, "cache_control": EPHEMERAL}], 512, 0),
        (system, [SEARCH_TOOL, {**TICKET_TOOL, "cache_control": EPHEMERAL}], 512, 0),
    ]


def test_consecutive_messages_of_one_role_are_merged(wire: WireServer) -> None:
    wire.reply(anthropic_message(text("Noted.")))
    history = (
        st.SystemMessage("Be brief."),
        st.UserMessage("First."),
        st.UserMessage("Second."),
        st.AssistantMessage("", (st.ToolCall("toolu_1", "search", {"query": "x"}),)),
        st.ToolMessage("toolu_1", "search", "Tool 'search' failed: down", is_error=True),
        st.UserMessage("Try again later."),
        st.SystemMessage("Answer in English."),
    )

    asyncio.run(model_for(wire).complete(ModelRequest(history)))

    assert wire.bodies == [
        {
            "model": "claude-test",
            "max_tokens": 4096,
            "system": "Be brief.\n\nAnswer in English.",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "First."},
                        {"type": "text", "text": "Second."},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "search",
                            "input": {"query": "x"},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        result_block("toolu_1", "Tool 'search' failed: down", is_error=True),
                        {"type": "text", "text": "Try again later."},
                    ],
                },
            ],
        }
    ]


@pytest.mark.parametrize(
    ("wire_reason", "stop_reason"),
    [
        ("end_turn", "end_turn"),
        ("stop_sequence", "end_turn"),
        ("max_tokens", "max_tokens"),
        ("model_context_window_exceeded", "max_tokens"),
        ("refusal", "refusal"),
    ],
)
def test_stop_reasons_map(wire: WireServer, wire_reason: str, stop_reason: str) -> None:
    wire.reply(anthropic_message(text("a"), text("b"), stop_reason=wire_reason))

    response = asyncio.run(model_for(wire).complete(ModelRequest((st.UserMessage("hi"),))))

    assert response.stop_reason == stop_reason
    assert response.message == st.AssistantMessage("a\nb")


def test_a_turn_still_paused_after_the_continuations_stops_as_other(wire: WireServer) -> None:
    for n in range(MAX_CONTINUATIONS + 1):
        wire.reply(anthropic_message(text(f"part {n}"), stop_reason="pause_turn"))

    response = asyncio.run(model_for(wire).complete(ModelRequest((st.UserMessage("hi"),))))

    assert response.stop_reason == "other"
    assert response.message == st.AssistantMessage("part 0\npart 1\npart 2\npart 3\npart 4")
    assert response.usage.input_tokens == 50
    assert len(wire.bodies) == MAX_CONTINUATIONS + 1 == 5
    assert wire.bodies[-1]["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [text(f"part {n}") for n in range(4)]},
    ]


def test_malformed_tool_input_becomes_an_error_result_and_the_run_continues(
    wire: WireServer,
) -> None:
    wire.reply(
        anthropic_message(
            tool_use("toolu_1", "search", ["printer"]),
            tool_use("toolu_2", "search", "{query: printer}"),
        )
    )
    wire.reply(anthropic_message(text("I could not search.")))

    result = st.ToolLoop(model_for(wire)).run("Find it.", tools=[SEARCH])

    not_object = (
        "Invalid arguments for tool 'search': expected a JSON object, got array. "
        "Send the arguments as one JSON object."
    )
    not_json = (
        "Invalid arguments for tool 'search': not valid JSON (Expecting property name "
        "enclosed in double quotes at position 1). Send the arguments as one JSON object."
    )
    assert result.messages[2:4] == (
        st.ToolMessage("toolu_1", "search", not_object, is_error=True),
        st.ToolMessage("toolu_2", "search", not_json, is_error=True),
    )
    assert wire.bodies[1]["messages"][2] == {
        "role": "user",
        "content": [
            result_block("toolu_1", not_object, is_error=True),
            result_block("toolu_2", not_json, is_error=True),
        ],
    }
    assert result.output == "I could not search."


def test_a_429_is_retried_by_the_sdk(wire: WireServer) -> None:
    wire.reply(anthropic_error("Rate limited", "rate_limit_error"), status=429, headers=FAST_RETRY)
    wire.reply(anthropic_message(text("Fine.")))

    result = st.ToolLoop(model_for(wire)).run("Hi")

    assert result.output == "Fine."
    assert len(wire.requests) == 2
    assert wire.bodies[0] == wire.bodies[1]
    assert wire.requests[1].headers["x-stainless-retry-count"] == "1"


def test_a_persistent_500_raises_provider_error_with_the_history(wire: WireServer) -> None:
    wire.reply(anthropic_message(tool_use("toolu_1", "search", {"query": "x"})))
    wire.reply(anthropic_error("Internal server error"), status=500, headers=FAST_RETRY)
    wire.reply(anthropic_error("Internal server error"), status=500, headers=FAST_RETRY)
    loop = st.ToolLoop(model_for(wire, max_retries=1))

    with pytest.raises(st.ProviderError) as caught:
        loop.run("Find x.", tools=[SEARCH])

    error = caught.value
    assert (error.status, error.message, error.path) == (
        500,
        "Anthropic returned HTTP 500: Internal server error",
        "anthropic:claude-test",
    )
    assert len(wire.requests) == 3
    assert error.result is not None
    assert error.result.messages == (
        st.UserMessage("Find x."),
        st.AssistantMessage("", (st.ToolCall("toolu_1", "search", {"query": "x"}),)),
        st.ToolMessage("toolu_1", "search", "3 hits for x"),
    )


def test_a_timeout_raises_provider_error(wire: WireServer) -> None:
    wire.reply(anthropic_message(text("too late")), delay=5.0)
    loop = st.ToolLoop(model_for(wire, timeout=0.2, max_retries=0))
    started = time.monotonic()

    with pytest.raises(st.ProviderError) as caught:
        loop.run("Hi")

    assert time.monotonic() - started < 2.0
    assert caught.value.status is None
    assert caught.value.message == "Anthropic request timed out (timeout=0.2s per attempt)"
    assert caught.value.result is not None
    assert caught.value.result.messages == (st.UserMessage("Hi"),)


def test_a_missing_api_key_names_the_environment_variable() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        AnthropicModel("claude-test")

    assert str(caught.value) == (
        "AnthropicModel: no Anthropic API key for model 'claude-test' "
        "Hint: set the ANTHROPIC_API_KEY environment variable or pass api_key=..."
    )


def test_the_key_comes_from_the_environment(
    wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    wire.reply(anthropic_message(text("ok")))

    output = st.ToolLoop(AnthropicModel("claude-test", base_url=wire.url)).run("Hi").output

    headers = wire.requests[0].headers
    assert output == "ok"
    assert (
        headers.get("x-api-key") == "sk-ant-env"
        or headers.get("authorization") == "Bearer sk-ant-env"
    )


def test_the_client_made_for_a_sync_run_is_closed_when_the_run_ends(wire: WireServer) -> None:
    wire.reply(anthropic_message(text("one")))
    wire.reply(anthropic_message(text("two")))
    model = model_for(wire)

    first = st.ToolLoop(model).run("Hi").output
    first_client = model.client
    second = st.ToolLoop(model).run("Hi").output

    assert (first, second) == ("one", "two")
    assert first_client.is_closed()
    assert model.client is not first_client
    assert model.client.is_closed()


def test_capabilities_allow_dynamic_tools() -> None:
    assert AnthropicModel("claude-test", api_key="k").capabilities.supports_dynamic_tools is True
