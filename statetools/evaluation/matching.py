"""Matching a call's arguments against expected values (``{any_of: [...]}`` included).

>>> arguments_match({"id": "#7", "note": "x"}, expected_value({"id": {"any_of": ["7", "#7"]}}))
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["AnyOfValues", "arguments_match", "expected_value"]


@attrs.frozen
class AnyOfValues:
    """An expected argument that may take any of several values.

    >>> AnyOfValues(("#W1", "W1")).matches("W1")
    True
    """

    values: tuple[Any, ...]

    def matches(self, value: Any) -> bool:
        """Whether ``value`` equals one of the values.

        >>> AnyOfValues((1, 2)).matches(3)
        False
        """
        return any(_equal(value, wanted) for wanted in self.values)


def _equal(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, AnyOfValues):
        return wanted.matches(value)
    if isinstance(wanted, Mapping):
        return isinstance(value, Mapping) and all(
            key in value and _equal(value[key], item) for key, item in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(_equal(a, b) for a, b in zip(value, wanted, strict=True))
        )
    if isinstance(wanted, bool) or isinstance(value, bool):
        return value is wanted
    return bool(value == wanted)


def arguments_match(arguments: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether every argument named in ``wanted`` has a matching value in ``arguments``
    (arguments not named are not checked; nested objects match the same way).

    >>> arguments_match({"id": "7", "note": "x"}, {"id": AnyOfValues(("7", "#7"))})
    True
    """
    return all(key in arguments and _equal(arguments[key], item) for key, item in wanted.items())


def expected_value(data: Any) -> Any:
    """An expected value as written in a task file: ``{any_of: [...]}`` becomes
    :class:`AnyOfValues`, recursively.

    >>> expected_value({"any_of": [1, 2]})
    AnyOfValues(values=(1, 2))
    """
    if isinstance(data, Mapping):
        if set(data) == {"any_of"} and isinstance(data["any_of"], list):
            return AnyOfValues(tuple(expected_value(item) for item in data["any_of"]))
        return {str(key): expected_value(item) for key, item in data.items()}
    if isinstance(data, list):
        return [expected_value(item) for item in data]
    return data
