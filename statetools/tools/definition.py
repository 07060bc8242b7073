"""What the model is shown of a tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["ToolDefinition"]


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
