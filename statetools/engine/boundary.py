"""What enters a run's history is always valid to send again.

Providers take the history as UTF-8 JSON. Two things a Python string or value may hold
cannot be sent that way: lone surrogates (``"\\ud800"``, which a JSON decoder accepts
and a handler may return) and non-finite numbers (``NaN``, ``Infinity``). Every message
is cleaned as it enters the history: a lone surrogate becomes U+FFFD (``"\\ufffd"``);
a non-finite number in tool-call arguments becomes the string ``"NaN"``,
``"Infinity"`` or ``"-Infinity"`` (so the tool's validation names it to the model).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from statetools.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

REPLACEMENT = "\ufffd"


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a pair is joined).

    >>> clean_text("ok"), clean_text("a\\ud800b"), clean_text("\\ud83d\\ude00")
    ('ok', 'a\\ufffdb', '😀')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _number(value: float) -> float | str:
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def clean_value(value: Any) -> Any:
    """A JSON value with clean strings (keys too) and non-finite numbers as strings.

    Raises RecursionError for values nested too deeply to be sent.

    >>> clean_value({"x": float("nan"), "t": ["\\udc00"]})
    {'x': 'NaN', 't': ['\\ufffd']}
    """
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, Mapping):
        return {clean_text(str(key)): clean_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean_value(item) for item in value]
    return value


def _call(call: ToolCall) -> ToolCall:
    name = clean_text(call.name)
    invalid = None if call.invalid_arguments is None else clean_text(call.invalid_arguments)
    try:
        arguments = clean_value(call.arguments)
    except RecursionError:
        arguments, invalid = (
            {},
            f"Invalid arguments for tool '{name}': nested too deeply. "
            "Send the arguments as one JSON object.",
        )
    return ToolCall(clean_text(call.id), name, arguments, invalid)


def clean_message(message: Message) -> Message:
    """``message`` as it may enter the history.

    >>> clean_message(ToolMessage("call_1", "echo", "\\ud800")).content
    '\\ufffd'
    """
    if isinstance(message, AssistantMessage):
        return AssistantMessage(
            clean_text(message.content),
            tuple(_call(call) for call in message.tool_calls),
            native=message.native,
        )
    if isinstance(message, ToolMessage):
        content = clean_text(message.content)
        name = clean_text(message.name)
        call_id = clean_text(message.tool_call_id)
        if (content, name, call_id) == (message.content, message.name, message.tool_call_id):
            return message
        return ToolMessage(call_id, name, content, message.is_error)
    if isinstance(message, SystemMessage | UserMessage):
        content = clean_text(message.content)
        return message if content == message.content else type(message)(content)
    return message
