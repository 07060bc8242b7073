"""Crossing the boundary of a call: the model's arguments in, the handler's value out as
a :class:`ToolResult` (what the call produced: text for the model, optionally a Python
value)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, overload

import attrs

from statetools.tools.context import ToolCallContext
from statetools.tools.convert import to_json_text
from statetools.tools.validation import json_type_name

logger = logging.getLogger("statetools.tools")

OutcomeKind = Literal["text", "artifact", "error"]


class _TextOrConstructor:
    """``ToolResult.text(s)`` builds a result; ``result.text`` reads what the model sees."""

    @overload
    def __get__(self, obj: None, owner: type[ToolResult]) -> Callable[[str], ToolResult]: ...

    @overload
    def __get__(self, obj: ToolResult, owner: type[ToolResult]) -> str: ...

    def __get__(
        self, obj: ToolResult | None, owner: type[ToolResult]
    ) -> str | Callable[[str], ToolResult]:
        if obj is not None:
            return obj.content

        def text(text: str) -> ToolResult:
            """A plain text result: the model sees ``text``.

            >>> ToolResult.text("3 hits").text
            '3 hits'
            """
            return owner(content=text)

        return text


@attrs.frozen
class ToolResult:
    """The outcome of one tool call.

    ``text`` is exactly what the model is shown; ``value`` keeps the Python object a
    tool produced (an *artifact*) for conditions, chaining and your own code;
    ``is_error`` marks a failed call. Build results with :attr:`text`,
    :meth:`artifact` and :meth:`error`.

    >>> ToolResult.text("3 hits").text
    '3 hits'
    >>> r = ToolResult.artifact({"id": 7})
    >>> r.text, r.value
    ('{"id": 7}', {'id': 7})
    >>> ToolResult.error("No order 7. Call list_orders first.").is_error
    True
    """

    content: str = attrs.field(validator=attrs.validators.instance_of(str))
    value: Any = attrs.field(default=None, hash=False)
    is_error: bool = False
    has_value: bool = False

    text = _TextOrConstructor()
    """``ToolResult.text("...")`` makes a plain text result; ``result.text`` is the text
    the model sees."""

    @classmethod
    def artifact(cls, value: Any, text: str | None = None) -> ToolResult:
        """A result that keeps ``value``; the model sees ``text``, or ``value`` as JSON.

        >>> ToolResult.artifact([1, 2], text="2 items").text
        '2 items'
        """
        return cls(
            content=to_json_text(value) if text is None else text, value=value, has_value=True
        )

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failed call; the model sees ``message`` (say what to do next).

        >>> ToolResult.error("Unknown city 'Pariss'. Did you mean 'Paris'?").text
        "Unknown city 'Pariss'. Did you mean 'Paris'?"
        """
        return cls(content=message, is_error=True)

    @property
    def kind(self) -> OutcomeKind:
        """``"error"``, ``"artifact"`` or ``"text"``.

        >>> ToolResult.artifact(1).kind
        'artifact'
        """
        if self.is_error:
            return "error"
        return "artifact" if self.has_value else "text"

    def with_text(self, text: str) -> ToolResult:
        """The same result (same value, same error flag) showing ``text`` to the model.

        >>> ToolResult.artifact(1).with_text("one").value
        1
        """
        return attrs.evolve(self, content=text)


Arguments = str | Mapping[str, Any] | None
"""What a tool is called with: a JSON string, a dict, or nothing."""

Context = ToolCallContext | Mapping[str, Any] | None
"""The context a call may carry: a ToolCallContext, any mapping, or nothing."""


def invalid_arguments(name: str, problems: Sequence[str]) -> str:
    """What the model reads when its arguments for tool ``name`` have ``problems``.

    >>> invalid_arguments("add", ["missing required argument 'b'"])
    "Invalid arguments for tool 'add': missing required argument 'b'. Call it again with corrected arguments."
    """  # noqa: E501
    return (
        f"Invalid arguments for tool '{name}': {'; '.join(problems)}. "
        "Call it again with corrected arguments."
    )


def parse_arguments(name: str, arguments: Arguments) -> dict[str, Any] | str:
    """Arguments as a dict, or the error text for the model when they are not one object.

    ``None`` and an empty string mean no arguments.

    >>> parse_arguments("t", '{"a": 1}')
    {'a': 1}
    >>> parse_arguments("t", "[1]")
    "Invalid arguments for tool 't': expected a JSON object, got array. Send the arguments as one JSON object."
    """  # noqa: E501
    if arguments is None:
        return {}
    value: Any = arguments
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return (
                f"Invalid arguments for tool '{name}': not valid JSON ({exc.msg} at position "
                f"{exc.pos}). Send the arguments as one JSON object."
            )
        except ValueError:  # an integer past Python's digit limit
            return _too_long_number(name)
        except RecursionError:
            return _too_deep(name)
    if not isinstance(value, Mapping):
        return (
            f"Invalid arguments for tool '{name}': expected a JSON object, got "
            f"{json_type_name(value)}. Send the arguments as one JSON object."
        )
    odd = [key for key in value if not isinstance(key, str)]
    if odd:  # from code: JSON object keys are always text
        return (
            f"Invalid arguments for tool '{name}': argument names must be text, got "
            f"{json_type_name(odd[0])}. Call it again with corrected arguments."
        )
    return _beyond_limits(name, value) or dict(value)


@attrs.frozen
class Unreadable:
    """Stands for a value of a provider's response that Python could not decode: an
    integer past the digit limit (``what="number"``) or nesting past the recursion
    limit (``"nesting"``). Arguments holding one are refused as invalid.

    >>> parse_arguments("echo", {"text": Unreadable("number")})[:50]
    "Invalid arguments for tool 'echo': a number is lon"
    """

    what: str


MAX_ARGUMENT_DEPTH = 64
"""How deeply a tool's arguments may nest (objects and arrays)."""


def _max_digits() -> int:
    return sys.get_int_max_str_digits() or 4300


def _too_long_number(name: str) -> str:
    return (
        f"Invalid arguments for tool '{name}': a number is longer than {_max_digits()} "
        "digits. Call it again with corrected arguments."
    )


def _too_deep(name: str) -> str:
    return (
        f"Invalid arguments for tool '{name}': nested more than {MAX_ARGUMENT_DEPTH} levels "
        "deep. Call it again with corrected arguments."
    )


def _beyond_limits(name: str, arguments: Mapping[str, Any]) -> str | None:
    """The error text when arguments nest too deeply or hold an integer too long to show.

    Arguments that came as a dict (from a provider that decodes them, or from code)
    are checked here; JSON text meets the same limits while it is decoded.
    """
    digits_bits = _max_digits() * 3.3219  # bits of the longest integer that can be shown
    pending: list[tuple[Iterable[Any], int]] = [(arguments.values(), 1)]
    budget = 1_000_000  # values looked at; data shared many times over (from code) stops here
    while pending:
        values, depth = pending.pop()
        if depth > MAX_ARGUMENT_DEPTH:  # also what a structure that contains itself reaches
            return _too_deep(name)
        for value in values:
            budget -= 1
            if not budget:
                return None
            kind = type(value)
            if kind is str or kind is float or kind is bool or value is None:
                continue  # the usual values, told apart without isinstance's slower checks
            if isinstance(value, Unreadable):
                return _too_long_number(name) if value.what == "number" else _too_deep(name)
            if isinstance(value, int) and not isinstance(value, bool):
                if value.bit_length() > digits_bits:
                    return _too_long_number(name)
            elif isinstance(value, Mapping):
                pending.append((value.values(), depth + 1))
            elif isinstance(value, list | tuple):
                pending.append((value, depth + 1))
    return None


def to_result(value: Any) -> ToolResult:
    """A handler's return value as a :class:`ToolResult`.

    Results pass through; strings become text as they are; numbers, booleans and
    ``None`` become their JSON text; anything else (dicts, lists, attrs objects, ...)
    is kept as an artifact and shown to the model as JSON (via cattrs).

    >>> to_result(3).text, to_result(None).text, to_result("hi").text
    ('3', 'null', 'hi')
    >>> to_result({"a": 1}).value
    {'a': 1}
    """
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult.text(value)
    if value is None or isinstance(value, bool | int | float):
        return ToolResult.text(to_json_text(value))
    return ToolResult.artifact(value)


def failure(name: str, exc: BaseException) -> ToolResult:
    """The result for a handler that raised: ``Tool 'name' failed: <message>``.

    >>> failure("div", ZeroDivisionError("division by zero")).text
    "Tool 'div' failed: division by zero"
    """
    try:
        message = str(exc).strip() or type(exc).__name__
    except Exception:  # an exception whose str() raises
        message = type(exc).__name__
    if isinstance(exc, KeyError):
        message = f"KeyError {message}"
    logger.info("tool %r failed", name, exc_info=exc)
    return ToolResult.error(f"Tool '{name}' failed: {message}")
