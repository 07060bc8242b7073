"""The checked fields of a tool (its name, description, timeout, metadata and schema),
and :class:`ToolDefinition`, what the model is shown of them.

:class:`~statetools.tools.tool.BaseTool` converts and validates its fields with these,
so a tool that exists is one every provider accepts.

>>> ToolMetadata(category="read", timeout=30).timeout
30.0
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import attrs

from statetools.errors import DefinitionError
from statetools.tools.schema import InputSchema
from statetools.tools.typeschema import JsonSchema

__all__ = [
    "MAX_TIMEOUT",
    "TOOL_NAME_PATTERN",
    "ToolDefinition",
    "ToolMetadata",
    "check_description",
    "check_name",
    "check_timeout",
    "check_tool_name",
    "metadata_of",
    "schema_copy",
]

TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""Names every major provider accepts for tools."""


def check_tool_name(name: object) -> str:
    """Return ``name`` if providers accept it as a tool name, else raise DefinitionError.

    >>> check_tool_name("search_orders")
    'search_orders'
    """
    if not isinstance(name, str) or not TOOL_NAME_PATTERN.match(name):
        raise DefinitionError(
            f"invalid tool name {name!r}",
            path=f"tool {name!r}",
            hint="use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'",
        )
    return name


MAX_TIMEOUT = 10.0**9
"""Timeouts above this many seconds (about 32 years) count as this: never in practice."""


def check_timeout(value: object, where: str) -> float | None:
    """``value`` if it is a usable timeout in seconds (or None), else DefinitionError.

    >>> check_timeout(2, "tool 'slow'")
    2.0
    """
    if value is None:
        return None
    if not isinstance(value, bool) and isinstance(value, int | float) and value > 0:
        return float(min(value, MAX_TIMEOUT))
    shown = "a huge number" if isinstance(value, int) and abs(value) > 10**20 else repr(value)
    raise DefinitionError(
        f"invalid timeout {shown}",
        path=where,
        hint="give the timeout in seconds, a number greater than 0 (or none)",
    )


def _metadata_timeout(value: Any) -> float | None:
    return check_timeout(value, "metadata.timeout")


@attrs.frozen
class ToolMetadata:
    """Facts about a tool that the model is not shown.

    ``return_direct``: the run ends with this tool's result as its output.
    ``category``: groups tools, e.g. for by-category facades.
    ``timeout``: seconds a call may take in a :class:`~statetools.ToolLoop` before it is
    answered as timed out (overrides the loop's ``tool_timeout``; ``None``: the loop's).
    ``on_loop_thread``: run a synchronous handler on the event loop's own thread
    instead of a worker thread (for handlers that use the running loop or
    thread-bound objects; such a call blocks every other run on that loop).

    >>> ToolMetadata(category="read").return_direct
    False
    >>> ToolMetadata(timeout=1.5).timeout
    1.5
    """

    return_direct: bool = False
    category: str | None = None
    timeout: float | None = attrs.field(default=None, converter=_metadata_timeout)
    on_loop_thread: bool = False


_NO_METADATA = ToolMetadata()
"""The metadata of a tool given none (frozen, so every such tool can share it)."""


def metadata_of(value: ToolMetadata | Mapping[str, Any] | None) -> ToolMetadata:
    """A tool's ``metadata`` argument as :class:`ToolMetadata` (a dict is checked).

    >>> metadata_of({"category": "write"}).category
    'write'
    """
    if value is None:
        return _NO_METADATA
    if isinstance(value, ToolMetadata):
        return value
    unknown = set(value) - {"return_direct", "category", "timeout", "on_loop_thread"}
    if unknown:
        raise DefinitionError(
            f"unknown metadata keys: {', '.join(sorted(unknown))}",
            hint="metadata takes return_direct, category, timeout and on_loop_thread",
        )
    return ToolMetadata(**value)


def schema_copy(schema: Mapping[str, Any] | None) -> JsonSchema:
    """A tool's own copy of ``schema`` (the empty object schema for None).

    >>> schema_copy(None)
    {'type': 'object', 'properties': {}, 'required': [], 'additionalProperties': False}
    """
    return InputSchema.empty() if schema is None else _json_copy(schema)


_JSON_SCALARS = frozenset((str, int, float, bool, type(None)))


def _json_copy(value: Any) -> Any:
    """A copy of a JSON-like value: its mappings and lists are new, so the tool's schema
    cannot change under it (several times faster than ``copy.deepcopy`` on schemas)."""
    kind = type(value)
    if kind is dict:  # what JSON and YAML give: no abstract-class check
        return {key: _json_copy(item) for key, item in value.items()}
    if kind in _JSON_SCALARS:
        return value
    if kind is list:
        return [_json_copy(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_copy(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_json_copy(item) for item in value)
    if isinstance(value, str | int | float | bool | None):
        return value
    return copy.deepcopy(value)


def check_name(_instance: object, _attribute: object, value: Any) -> None:
    """The attrs validator of a tool's ``name`` (see :func:`check_tool_name`)."""
    check_tool_name(value)


def check_description(_instance: object, _attribute: object, value: Any) -> None:
    """The attrs validator of a tool's ``description``: some text, not only blanks."""
    if not isinstance(value, str) or not value.strip():
        raise DefinitionError(
            f"a tool needs a description, got {value!r}",
            hint="say in one sentence what the tool does and when to use it",
        )


@attrs.frozen
class ToolDefinition:
    """A tool as the model sees it: name, description and input JSON schema.

    Every tool has one, built once: ``tool.definition``.

    >>> ToolDefinition("ping", "Ping the host.", {"type": "object"}).name
    'ping'
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
