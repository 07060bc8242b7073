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
        from statetools.tools.convert import to_json_text

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
