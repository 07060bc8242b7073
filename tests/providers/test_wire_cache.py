"""Adapters convert each tool to its wire form once: unchanged tools, same list."""

from __future__ import annotations

import pytest

from statetools.messages import UserMessage
from statetools.models import ModelRequest, ToolDefinition
from statetools.models.anthropic_messages import AnthropicModel
from statetools.models.openai_chat import OpenAIChatModel
from statetools.models.openai_responses import OpenAIResponsesModel

PING = ToolDefinition("ping", "Ping.", {"type": "object"})
PONG = ToolDefinition("pong", "Pong.", {"type": "object"})
PANG = ToolDefinition("pang", "Pang.", {"type": "object"})


@pytest.mark.parametrize(
    "model",
    [
        OpenAIChatModel("m", api_key="k"),
        OpenAIChatModel("m", api_key="k", disclosure="allowed_tools"),
        OpenAIResponsesModel("m", api_key="k"),
        OpenAIResponsesModel("m", api_key="k", disclosure="allowed_tools"),
        AnthropicModel("m", api_key="k", cache_control=True),
    ],
    ids=["chat", "chat-allowed", "responses", "responses-allowed", "anthropic"],
)
def test_the_tools_list_is_reused_while_the_tools_do_not_change(model: object) -> None:
    tools = (PING, PONG)
    first = model.request_body(ModelRequest((UserMessage("a"),), tools))  # type: ignore[attr-defined]
    again = model.request_body(ModelRequest((UserMessage("b"),), tools))  # type: ignore[attr-defined]
    assert again["tools"] is first["tools"]
    grown = model.request_body(ModelRequest((UserMessage("c"),), (*tools, PANG)))  # type: ignore[attr-defined]
    assert grown["tools"][0] is first["tools"][0]  # converted once, reused
    assert [t.get("name") or t["function"]["name"] for t in grown["tools"]] == [
        "ping",
        "pong",
        "pang",
    ]
