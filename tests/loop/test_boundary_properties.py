"""Whatever a model or a handler produces, the history can be sent again as UTF-8 JSON."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as hs

import statetools as st
from statetools.engine.boundary import clean_message, clean_text, clean_value
from statetools.models import AnthropicModel, ModelRequest, OpenAIChatModel, ScriptedModel

texts = hs.text(hs.characters(codec=None, categories=None), max_size=12)
"""Any code points, lone surrogates included."""
numbers = hs.floats(allow_nan=True, allow_infinity=True) | hs.integers()
values = hs.recursive(
    hs.none() | hs.booleans() | numbers | texts,
    lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


ADAPTERS = (OpenAIChatModel("m", api_key="k"), AnthropicModel("m", api_key="k"))


def sendable(value: Any) -> bool:
    json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    return True


@settings(max_examples=300, deadline=None)
@given(texts)
def test_clean_text_is_utf8_and_leaves_valid_text_alone(text: str) -> None:
    cleaned = clean_text(text)
    cleaned.encode("utf-8")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        assert len(cleaned) <= len(text)
    else:
        assert cleaned is text


@settings(max_examples=300, deadline=None)
@given(values)
def test_clean_value_is_always_sendable(value: Any) -> None:
    assert sendable(clean_value(value))


@settings(max_examples=100, deadline=None)
@given(texts, hs.dictionaries(texts, values, max_size=4), texts, texts)
def test_a_run_with_hostile_calls_and_results_sends_a_valid_history(
    content: str, arguments: dict[str, Any], result: str, prompt: str
) -> None:
    def anything(**kwargs: Any) -> str:
        return result

    tool = st.Tool.create(
        "anything",
        "Take anything.",
        anything,
        schema={"type": "object", "additionalProperties": True},
    )
    call = st.ToolCall("call_1", "anything", arguments)
    model = ScriptedModel([st.AssistantMessage(content, (call,)), "done"])

    run = st.ToolLoop(model).run(prompt, tools=[tool])

    request = ModelRequest(run.messages)
    for adapter in ADAPTERS:
        assert sendable(adapter.request_body(request))
    assert sendable(st.messages_to_json(run.messages))
    assert sendable(run.trace.to_json())
    assert clean_message(run.messages[1]) == run.messages[1]
