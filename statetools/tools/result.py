"""What a tool call produced: text for the model, optionally a Python value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, overload

import attrs

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
        if obj is None:
            return lambda text: owner(content=text)
        return obj.content


@attrs.frozen
class ToolResult:
    """The outcome of one tool call.

    ``text`` is exactly what the model is shown; ``value`` keeps the Python object a
    tool produced (an *artifact*), which disclosure conditions and tool chaining read;
    ``is_error`` marks a failed call.

    >>> ToolResult.text("3 hits").text
    '3 hits'
    >>> ToolResult.artifact({"id": 7}).text
    '{"id": 7}'
    >>> ToolResult.error("no such order").is_error
    True
    """

    content: str
    value: Any = None
    is_error: bool = False
    has_value: bool = False

    text = _TextOrConstructor()
    """``ToolResult.text("...")`` makes a plain text result; ``result.text`` is the text
    the model sees."""

    @classmethod
    def artifact(cls, value: Any, text: str | None = None) -> ToolResult:
        """A result that keeps ``value``; the model sees ``text``, or ``value`` as JSON."""
        from statetools.tools.convert import to_json_text

        return cls(
            content=to_json_text(value) if text is None else text, value=value, has_value=True
        )

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failed call; the model sees ``message``."""
        return cls(content=message, is_error=True)

    @property
    def kind(self) -> OutcomeKind:
        """``"error"``, ``"artifact"`` or ``"text"``."""
        if self.is_error:
            return "error"
        return "artifact" if self.has_value else "text"

    def with_text(self, text: str) -> ToolResult:
        """The same result showing ``text`` to the model."""
        return attrs.evolve(self, content=text)
