"""Huge numbers and deep nesting in tool arguments, through the real provider SDKs."""

from __future__ import annotations

import json

import pytest

import statetools as st
from statetools.models import AnthropicModel, OpenAIChatModel
from tests.providers.provider_wire import (
    RawBody,
    WireServer,
    anthropic_message,
    chat_completion,
    openai_call,
    text,
    tool_use,
)
from tests.tools.test_hostile_arguments import DEEP, DIGITS, ECHO, TOO_DEEP, TOO_LONG


@pytest.mark.parametrize(
    ("raw", "expected"),
    [('{"text": ' + DIGITS + "}", TOO_LONG), ('{"text": ' + DEEP + "}", TOO_DEEP)],
    ids=["digits", "deep"],
)
def test_through_the_openai_adapter_the_model_gets_an_error_result(
    wire: WireServer, raw: str, expected: str
) -> None:
    wire.reply(chat_completion(tool_calls=[openai_call("call_1", "echo", raw)]))
    wire.reply(chat_completion("Sorry."))
    model = OpenAIChatModel("gpt-test", base_url=wire.url, api_key="sk-test", max_retries=0)

    result = st.ToolLoop(model).run("Echo", tools=[ECHO])

    assert result.output == "Sorry."
    assert wire.bodies[1]["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "echo", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": expected.format("echo")},
    ]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(DIGITS, TOO_LONG), (DEEP, TOO_DEEP)],
    ids=["digits", "deep"],
)
def test_through_the_anthropic_adapter_the_model_gets_an_error_result(
    wire: WireServer, raw: str, expected: str
) -> None:
    body = json.dumps(
        anthropic_message(text("Echoing."), tool_use("toolu_1", "echo", {"text": "RAW"}))
    )
    wire.reply(RawBody(body.replace('"RAW"', raw)))  # type: ignore[arg-type]
    wire.reply(anthropic_message(text("Sorry.")))
    model = AnthropicModel("claude-test", base_url=wire.url, api_key="sk-ant", max_retries=0)

    result = st.ToolLoop(model).run("Echo", tools=[ECHO])

    assert result.output == "Sorry."
    assert wire.bodies[1]["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Echoing."},
                {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": expected.format("echo"),
                    "is_error": True,
                }
            ],
        },
    ]
