"""The messages of a conversation, independent of any provider's wire format.

These are plain values shared by every layer (the scheduler reads tool calls, the loop
and the model adapters exchange messages), so they sit at the bottom next to the errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs
import cattrs
from cattrs.gen import make_dict_unstructure_fn, override
from cattrs.preconf.json import make_converter

from statetools.errors import SpecError


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


class ToolCalls(tuple[ToolCall, ...]):
    """An assistant message's tool calls: a tuple (messages are immutable values) that
    also equals a list of the same calls, as a reader of ``m.tool_calls`` expects.

    >>> call = ToolCall("c1", "add", {"a": 1})
    >>> calls = ToolCalls([call])
    >>> calls == [call], calls == (call,), calls == [], calls != [call]
    (True, True, False, False)
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            return list(self) == other
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__


def _calls(calls: Iterable[ToolCall]) -> ToolCalls:
    return calls if type(calls) is ToolCalls else ToolCalls(calls)


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

    ``native`` keeps what a provider needs back verbatim and statetools does not model,
    as JSON under the provider API's name (Anthropic's server tool blocks:
    ``{"anthropic": {"content": [...]}}``); None for most messages. Adapters of other
    providers ignore it.

    >>> message = AssistantMessage(tool_calls=[ToolCall("call_1", "add", {"a": 2, "b": 3})])
    >>> message.content, [call.name for call in message.tool_calls], message.native
    ('', ['add'], None)
    """

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = attrs.field(default=(), converter=_calls)
    role: Literal["assistant"] = "assistant"
    native: Mapping[str, Any] | None = attrs.field(default=None, repr=False)


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
"""Any message of a conversation; ``message.role`` tells which.

>>> history: list[Message] = [SystemMessage("Be brief."), UserMessage("2 + 3?")]
>>> [message.role for message in history]
['system', 'user']
"""

_BY_ROLE: dict[str, type[Any]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool": ToolMessage,
}

_converter = make_converter(forbid_extra_keys=True)
_converter.register_unstructure_hook(
    AssistantMessage,
    make_dict_unstructure_fn(AssistantMessage, _converter, native=override(omit_if_default=True)),
)
_converter.register_structure_hook(
    Message,
    lambda data, _: _converter.structure(data, _BY_ROLE[data["role"]]),
)


def _text(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _flag(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {type(value).__name__}")
    return value


_converter.register_structure_hook(str, _text)
_converter.register_structure_hook(bool, _flag)


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

    Raises :class:`~statetools.SpecError` naming the first message that is not one
    (``messages[2].role: ...``), whatever ``data`` holds.

    >>> messages_from_json([{"role": "user", "content": "Hi"}])
    [UserMessage(content='Hi', role='user')]
    >>> messages_from_json([{"role": "user"}])
    Traceback (most recent call last):
    ...
    statetools.errors.SpecError: messages[0].content: required field missing Hint: ...
    """
    if not isinstance(data, list | tuple):
        raise _not_messages("messages", f"expected a list of messages, got {_kind(data)}")
    messages: list[Message] = []
    for index, item in enumerate(data):
        where = f"messages[{index}]"
        if not isinstance(item, Mapping):
            raise _not_messages(where, f"expected a message (a mapping), got {_kind(item)}")
        role = item.get("role")
        if not isinstance(role, str) or role not in _BY_ROLE:
            found = (
                "missing" if role is None else f"{_kind(role)}, not one of {', '.join(_BY_ROLE)}"
            )
            raise _not_messages(f"{where}.role", f"the role is {found}")
        try:
            messages.append(_converter.structure(item, _BY_ROLE[role]))
        except Exception as exc:
            problems = tuple(_at(line, where) for line in cattrs.transform_error(exc, path=""))
            first_path, first_message = problems[0]
            raise SpecError(
                first_message,
                path=first_path,
                hint=_HINT,
                problems=tuple(f"{path}: {message}" for path, message in problems),
            ) from exc
    return messages


_HINT = "pass the list that messages_to_json (or result.messages saved as JSON) gave"


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else "text"
    return "null" if value is None else type(value).__name__


def _not_messages(path: str, message: str) -> SpecError:
    return SpecError(message, path=path, hint=_HINT, problems=(f"{path}: {message}",))


def _at(line: str, where: str) -> tuple[str, str]:
    """``"required field missing @ .content"`` -> ``("messages[0].content", "required ...")``."""
    message, _, path = line.rpartition(" @ ")
    return where + path.removeprefix("$"), message or line
