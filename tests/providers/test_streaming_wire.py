"""loop.stream on each adapter, over SSE from the local server: the deltas arrive in
order, then the result and the trace are those of the same run without streaming."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

import statetools as st
from statetools.engine.events import IterationStarted, RunStarted
from statetools.models import AnthropicModel, Model, OpenAIChatModel, OpenAIResponsesModel
from tests.providers.provider_streams import anthropic_stream, chat_stream, responses_stream
from tests.providers.provider_wire import (
    SEARCH,
    WireServer,
    anthropic_error,
    anthropic_message,
    chat_completion,
    function_call,
    openai_call,
    openai_error,
    output_message,
    response,
    text,
    tool_use,
)

FIRST_TEXT = "Let me look."
ANSWER = ["Two ", "hits: ", "printer and toner."]


@dataclass(frozen=True)
class Adapter:
    name: str
    make: Callable[[WireServer], Model]
    replies: Callable[[], list[dict[str, Any]]]
    stream: Callable[[dict[str, Any], list[str]], list[tuple[str | None, Any]]]
    stream_keys: tuple[str, ...]
    """Keys only a streamed request has."""


def chat_replies() -> list[dict[str, Any]]:
    return [
        chat_completion(
            FIRST_TEXT,
            tool_calls=[
                openai_call("call_a", "search", '{"query": "printer"}'),
                openai_call("call_b", "search", '{"query": "toner"}'),
            ],
            prompt_tokens=20,
        ),
        chat_completion("".join(ANSWER), prompt_tokens=40, cached_tokens=16),
    ]


def responses_replies() -> list[dict[str, Any]]:
    return [
        response(
            output_message(FIRST_TEXT),
            function_call("call_a", "search", '{"query": "printer"}'),
            function_call("call_b", "search", '{"query": "toner"}'),
            input_tokens=20,
        ),
        response(output_message("".join(ANSWER)), input_tokens=40, cached_tokens=16),
    ]


def anthropic_replies() -> list[dict[str, Any]]:
    return [
        anthropic_message(
            text(FIRST_TEXT),
            tool_use("call_a", "search", {"query": "printer"}),
            tool_use("call_b", "search", {"query": "toner"}),
            input_tokens=20,
        ),
        anthropic_message(text("".join(ANSWER)), input_tokens=24, cache_read=16),
    ]


ADAPTERS = [
    Adapter(
        "openai-chat",
        lambda wire: OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test"),
        chat_replies,
        chat_stream,
        ("stream", "stream_options"),
    ),
    Adapter(
        "openai-responses",
        lambda wire: OpenAIResponsesModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test"),
        responses_replies,
        responses_stream,
        ("stream",),
    ),
    Adapter(
        "anthropic",
        lambda wire: AnthropicModel("claude-test", base_url=wire.url, api_key="sk-ant"),
        anthropic_replies,
        anthropic_stream,
        ("stream",),
    ),
]


def fixed_loop(model: Model) -> st.ToolLoop:
    return st.ToolLoop(model, clock=lambda: 0.0, id_factory=lambda: "run-1")


async def collect(stream: st.RunStream) -> list[st.StreamEvent]:
    return [event async for event in stream]


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_a_streamed_run_yields_deltas_in_order_then_the_same_result_and_trace(
    wire: WireServer, adapter: Adapter
) -> None:
    for body in adapter.replies():
        wire.reply(body)
    plain = fixed_loop(adapter.make(wire)).run("Find it.", tools=[SEARCH])
    plain_bodies = wire.bodies
    wire.requests.clear()
    first, answer = adapter.replies()
    wire.stream(adapter.stream(first, [FIRST_TEXT[:4], FIRST_TEXT[4:]]))
    wire.stream(adapter.stream(answer, ANSWER))

    stream = fixed_loop(adapter.make(wire)).stream("Find it.", tools=[SEARCH])
    events = asyncio.run(collect(stream))

    streamed = [e for e in events if isinstance(e, st.TextDelta | st.ToolCallStarted)]
    assert streamed == [
        st.TextDelta(1, "Let "),
        st.TextDelta(1, "me look."),
        st.ToolCallStarted(1, "call_a", "search"),
        st.ToolCallStarted(1, "call_b", "search"),
        st.TextDelta(2, "Two "),
        st.TextDelta(2, "hits: "),
        st.TextDelta(2, "printer and toner."),
    ]
    others = [e for e in events if not isinstance(e, st.TextDelta | st.ToolCallStarted)]
    assert others == list(plain.trace)
    assert stream.result.trace == plain.trace
    assert stream.result.messages == plain.messages
    assert stream.result.usage == plain.usage
    assert stream.result.output == "Two hits: printer and toner."
    assert [b[key] for b in wire.bodies for key in adapter.stream_keys] == [
        *[
            {"include_usage": True} if key == "stream_options" else True
            for key in adapter.stream_keys
        ]
    ] * 2
    assert [
        {k: v for k, v in b.items() if k not in adapter.stream_keys} for b in wire.bodies
    ] == plain_bodies


def test_a_model_that_cannot_stream_sends_its_text_as_one_delta() -> None:
    model = st.models.ScriptedModel([("search", {"query": "x"}), "Found x."])

    async def main() -> tuple[list[st.StreamEvent], st.LoopResult]:
        stream = fixed_loop(model).stream("Find x.", tools=[SEARCH])
        return [event async for event in stream], stream.result

    events, result = asyncio.run(main())

    assert [e for e in events if isinstance(e, st.TextDelta | st.ToolCallStarted)] == [
        st.ToolCallStarted(1, "call_1", "search"),
        st.TextDelta(2, "Found x."),
    ]
    assert [e for e in events if not isinstance(e, st.TextDelta | st.ToolCallStarted)] == list(
        result.trace
    )
    assert result.output == "Found x."


def test_result_before_the_end_says_to_read_the_events_first() -> None:
    stream = fixed_loop(st.models.ScriptedModel(["Hi."])).stream("Hi")

    with pytest.raises(st.StatetoolsError) as caught:
        stream.result  # noqa: B018

    assert str(caught.value) == (
        "RunStream.result: the stream's run has not finished "
        "Hint: read every event first: 'async for event in stream: ...'"
    )


@pytest.mark.parametrize(
    ("adapter", "error"),
    [
        (ADAPTERS[0], openai_error("The server had an error")),
        (ADAPTERS[2], anthropic_error("Overloaded", "overloaded_error")),
    ],
    ids=["openai-chat", "anthropic"],
)
def test_a_failing_stream_raises_provider_error_and_keeps_the_run(
    wire: WireServer, adapter: Adapter, error: dict[str, Any]
) -> None:
    first, _ = adapter.replies()
    wire.stream(adapter.stream(first, [FIRST_TEXT]))
    wire.reply(error, status=500, headers={"x-should-retry": "false"})
    loop = fixed_loop(adapter.make(wire))

    async def main() -> list[st.StreamEvent]:
        stream = loop.stream("Find it.", tools=[SEARCH])
        seen: list[st.StreamEvent] = []

        async def read() -> None:
            async for event in stream:
                seen.append(event)

        with pytest.raises(st.ProviderError) as caught:
            await read()
        assert caught.value.status == 500
        assert caught.value.result is not None
        assert [m.role for m in caught.value.result.messages] == [
            "user",
            "assistant",
            "tool",
            "tool",
        ]
        with pytest.raises(st.ProviderError):
            stream.result  # noqa: B018
        return seen

    seen = asyncio.run(main())

    assert seen[:3] == [
        RunStarted("run-1", 0.0, ("search",)),
        IterationStarted(1, ("search",)),
        st.TextDelta(1, FIRST_TEXT),
    ]


def test_a_nested_agentic_loop_does_not_stream_into_the_outer_stream() -> None:
    inner = st.models.ScriptedModel([("search", {"query": "tides"}), "Tides follow the moon."])
    helper = st.PlaybookTool("research", "Research a topic.").with_tools(SEARCH).with_model(inner)
    outer = st.models.ScriptedModel([("research", {"task": "tides"}), "The moon."])

    async def main() -> list[st.StreamEvent]:
        return [event async for event in fixed_loop(outer).stream("Why?", tools=[helper])]

    events = asyncio.run(main())

    assert [e for e in events if isinstance(e, st.TextDelta | st.ToolCallStarted)] == [
        st.ToolCallStarted(1, "call_1", "research"),
        st.TextDelta(2, "The moon."),
    ]


def test_aclose_stops_a_run_that_is_still_going() -> None:
    async def slow(request: st.models.ModelRequest) -> str:
        await asyncio.sleep(30)
        return "too late"

    async def main() -> tuple[st.StreamEvent, bool]:
        stream = fixed_loop(st.models.ScriptedModel([slow])).stream("Hi")
        first = await anext(aiter(stream))
        await asyncio.wait_for(stream.aclose(), timeout=2)
        rest = [event async for event in stream]
        return first, rest == []

    first, ended = asyncio.run(main())

    assert first == RunStarted("run-1", 0.0, ())
    assert ended


def test_a_failed_responses_stream_raises_provider_error_with_the_message(
    wire: WireServer,
) -> None:
    failed = {
        **response(),
        "status": "failed",
        "error": {"code": "server_error", "message": "Boom"},
    }
    wire.stream(
        [
            (
                "response.created",
                {"type": "response.created", "sequence_number": 0, "response": failed},
            ),
            (
                "response.failed",
                {"type": "response.failed", "sequence_number": 1, "response": failed},
            ),
        ]
    )
    loop = fixed_loop(ADAPTERS[1].make(wire))

    with pytest.raises(st.ProviderError) as caught:
        asyncio.run(collect(loop.stream("Hi")))

    assert (caught.value.message, caught.value.path) == (
        "OpenAI stream failed: Boom",
        "openai:gpt-test",
    )


@pytest.mark.parametrize(
    ("adapter", "message"),
    [
        (ADAPTERS[0], "the Chat Completions stream ended without a chunk"),
        (ADAPTERS[1], "the Responses stream ended without a final response"),
    ],
    ids=["openai-chat", "openai-responses"],
)
def test_a_server_that_does_not_stream_is_a_clear_provider_error(
    wire: WireServer, adapter: Adapter, message: str
) -> None:
    wire.reply(adapter.replies()[1])  # plain JSON where events were asked for

    with pytest.raises(st.ProviderError) as caught:
        asyncio.run(collect(fixed_loop(adapter.make(wire)).stream("Hi")))

    assert caught.value.message == message
    assert caught.value.result is not None
    assert caught.value.result.messages == (st.UserMessage("Hi"),)
