"""Anthropic's programmatic tool calling: Claude writes code that Anthropic runs in a
container, and the code calls the run's tools.

With ``AnthropicModel(..., code_execution=True)`` every tool of a request may be called
both directly and from code (``allowed_callers``), and the code execution tool is
declared. A call made by the code arrives as an ordinary ``tool_use`` block (with a
``caller`` naming the code execution), so the run answers it as any call: a tool that
is locked now does not run, and the code gets the usual guidance as an error result.
Only the tools visible now are declared, so the code can name no other. The answer's
blocks go back verbatim (``AssistantMessage.native``), with the container's id, which
the next request names so the code goes on where it stopped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from statetools.messages import AssistantMessage, Message

__all__ = ["CALLER", "CODE_EXECUTION", "container_of", "from_code", "programmatic"]

CALLER = "code_execution_20250825"
"""The caller type of a call made by Claude's code."""
CODE_EXECUTION = {"type": CALLER, "name": "code_execution"}
"""The code execution tool, as the Messages API takes it."""


def programmatic(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` (a request's ``tools`` array) callable from code as well as directly,
    then the code execution tool; server tools (with a ``type``) are left as they are.

    >>> programmatic([{"name": "ping", "description": "Ping.", "input_schema": {}}])
    [{'name': 'ping', 'description': 'Ping.', 'input_schema': {}, 'allowed_callers': ['direct', 'code_execution_20250825']}, {'type': 'code_execution_20250825', 'name': 'code_execution'}]
    """  # noqa: E501
    wire = [
        dict(tool) if "type" in tool else {**tool, "allowed_callers": ["direct", CALLER]}
        for tool in tools
    ]
    return [*wire, dict(CODE_EXECUTION)]


def from_code(block: Mapping[str, Any]) -> bool:
    """Whether a content block (as JSON) is a tool call made by Claude's code.

    >>> from_code({"type": "tool_use", "caller": {"type": "code_execution_20250825"}})
    True
    >>> from_code({"type": "tool_use", "caller": {"type": "direct"}})
    False
    """
    caller = block.get("caller")
    kind = caller.get("type") if isinstance(caller, Mapping) else None
    return block.get("type") == "tool_use" and kind not in (None, "direct")


def container_of(messages: Sequence[Message]) -> str | None:
    """The id of the code execution container of the latest answer that used one.

    >>> native = {"anthropic": {"content": [], "container": "container_1"}}
    >>> container_of([AssistantMessage("", native=native), AssistantMessage("Done.")])
    'container_1'
    """
    for message in reversed(messages):
        if not isinstance(message, AssistantMessage) or not message.native:
            continue
        kept = message.native.get("anthropic")
        container = kept.get("container") if isinstance(kept, Mapping) else None
        if isinstance(container, str):
            return container
    return None
