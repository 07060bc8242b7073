"""The messages of a conversation, independent of any provider's wire format."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs

from statetools.tools.convert import make_json_converter


@attrs.frozen
class ToolCall:
    """One tool call the model asked for.

    ``arguments`` is the decoded JSON object. When a provider sent arguments that are
    not a JSON object, ``arguments`` is empty and ``invalid_arguments`` says what was
    wrong; the loop answers such a call with an error result.

    >>> ToolCall("call_1", "search", {"query": "tides"}).arguments["query"]
    'tides'
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict)
    invalid_arguments: str | None = None


def _calls(calls: Iterable[ToolCall]) -> tuple[ToolCall, ...]:
    return tuple(calls)


@attrs.frozen
class SystemMessage:
    """Instructions for the model.

    >>> SystemMessage("Answer in one sentence.").role
    'system'
    """

    content: str
    role: Literal["system"] = "system"


@attrs.frozen
class UserMessage:
    """What the user said.

    >>> UserMessage("What is 2 + 3?")
    UserMessage(content='What is 2 + 3?', role='user')
    """

    content: str
    role: Literal["user"] = "user"


@attrs.frozen
class AssistantMessage:
    """What the model said: text (possibly empty) and tool calls.

    >>> message = AssistantMessage(tool_calls=[ToolCall("call_1", "add", {"a": 2, "b": 3})])
    >>> message.content, [call.name for call in message.tool_calls]
    ('', ['add'])
    """

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = attrs.field(default=(), converter=_calls)
    role: Literal["assistant"] = "assistant"


@attrs.frozen
class ToolMessage:
    """The result of one tool call, answering ``tool_call_id``.

    >>> ToolMessage("call_1", "add", "5")
    ToolMessage(tool_call_id='call_1', name='add', content='5', is_error=False, role='tool')
    """

    tool_call_id: str
    name: str
    content: str
    is_error: bool = False
    role: Literal["tool"] = "tool"


Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage
"""Any message of a conversation; ``message.role`` tells which."""

_BY_ROLE: dict[str, type[Any]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool": ToolMessage,
}

_converter = make_json_converter(forbid_extra_keys=True)
_converter.register_structure_hook(
    Message,
    lambda data, _: _converter.structure(data, _BY_ROLE[data["role"]]),
)


def messages_to_json(messages: tuple[Message, ...] | list[Message]) -> list[dict[str, Any]]:
    """Messages as JSON-compatible dicts (each with its ``role``).

    >>> messages = [UserMessage("Hi"), AssistantMessage("Hello!")]
    >>> messages_to_json(messages)[0]
    {'content': 'Hi', 'role': 'user'}
    >>> messages_from_json(messages_to_json(messages)) == messages
    True
    """
    return [_converter.unstructure(m) for m in messages]


def messages_from_json(data: list[dict[str, Any]]) -> list[Message]:
    """The inverse of :func:`messages_to_json`.

    >>> messages_from_json([{"role": "user", "content": "Hi"}])
    [UserMessage(content='Hi', role='user')]
    """
    return [_converter.structure(item, Message) for item in data]  # type: ignore[arg-type]
