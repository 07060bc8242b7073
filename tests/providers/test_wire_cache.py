"""Adapters convert each tool to its wire form once: unchanged tools, same list."""

from __future__ import annotations

import pytest

from statetools.messages import UserMessage
from statetools.models import ModelRequest, ToolDefinition
from statetools.models.anthropic_messages import AnthropicModel
from statetools.models.openai_chat import OpenAIChatModel
from statetools.models.openai_responses import OpenAIResponsesModel
from statetools.models.wire_cache import WireTools

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


def test_tools_that_grow_or_shrink_at_the_end_convert_only_the_difference() -> None:
    converted: list[str] = []

    def convert(tool: ToolDefinition) -> dict[str, str]:
        converted.append(tool.name)
        return {"name": tool.name}

    def finish(wire: list[dict[str, str]], key: object) -> list[dict[str, str]]:
        return [*wire, {"key": "/".join(key)}]

    def extend(
        previous: list[dict[str, str]], fresh: list[dict[str, str]], key: object
    ) -> list[dict[str, str]] | None:
        return None if key == ("again",) else [*previous[:-1], *fresh, {"key": "+"}]

    def key(*names: str) -> tuple[str, ...]:
        return names  # a new tuple each time: equal keys, never the same object

    wire = WireTools(convert, finish, extend)
    first = wire((PING, PONG), key("k"))
    grown = wire((PING, PONG, PANG), key("k"))  # a new tuple, the last one and one more
    equal = wire((PING, PONG, PANG), key("k"))  # an equal key: the same list
    shrunk = wire((PING,), key("k"))
    again = wire((PING, PONG), key("again"))  # another key: every form found by identity

    assert converted == ["ping", "pong", "pang", "pong"]
    assert first == [{"name": "ping"}, {"name": "pong"}, {"key": "k"}]
    assert grown == [{"name": "ping"}, {"name": "pong"}, {"name": "pang"}, {"key": "+"}]
    assert grown[0] is first[0]
    assert equal is grown
    assert shrunk == [{"name": "ping"}, {"key": "k"}]
    assert again == [{"name": "ping"}, {"name": "pong"}, {"key": "again"}]
