"""MCP wire shapes to statetools values and back: tool listings and call results.

Listings are handled as the JSON the server sent (``name``, ``description``,
``inputSchema``, ``annotations``), so a saved listing and a live one go through the same
code, and reading a saved listing needs no ``mcp`` package.

>>> tool_name("github.create-issue")
'github_create-issue'
>>> category_of({"readOnlyHint": True})
'read'
>>> result_from_wire({"content": [{"type": "text", "text": "clean"}], "isError": False}).text
'clean'
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from statetools.tools.calling import ToolResult

__all__ = [
    "category_of",
    "content_text",
    "result_from_wire",
    "tool_name",
    "wire_content",
]

_NOT_ALLOWED = re.compile(r"[^a-zA-Z0-9_-]")


def tool_name(remote: str, prefix: str = "") -> str:
    """The statetools name of MCP tool ``remote``: characters providers reject become
    ``_``, ``prefix`` goes first, and the result is cut to 64 characters.

    >>> tool_name("list", "git_")
    'git_list'
    """
    return _NOT_ALLOWED.sub("_", f"{prefix}{remote}")[:64] or "_"


def category_of(annotations: Mapping[str, Any] | None) -> str:
    """``"read"`` for a tool the server marks ``readOnlyHint``, else ``"write"`` (the
    protocol's default for a tool without the hint).

    >>> category_of({"readOnlyHint": False, "destructiveHint": True})
    'write'
    """
    return "read" if (annotations or {}).get("readOnlyHint") is True else "write"


def _block_text(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind} {block.get('mimeType', '')}]".replace(" ]", "]")
    if kind == "resource_link":
        return f"[resource {block.get('uri', '')}]"
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return str(resource["text"])
        return f"[resource {resource.get('uri', '')} {resource.get('mimeType', '')}]".strip()
    return json.dumps(dict(block), sort_keys=True)


def content_text(content: Sequence[Mapping[str, Any]]) -> str:
    """The text the model sees for MCP content blocks: text blocks as they are,
    embedded text resources by their text, other blocks as a short bracketed note.

    >>> content_text([{"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png"}])
    'a\\n[image image/png]'
    """
    return "\n".join(_block_text(block) for block in content)


def result_from_wire(result: Mapping[str, Any], tool: str = "tool") -> ToolResult:
    """A ``tools/call`` result as a :class:`ToolResult`: the content's text; the
    ``structuredContent`` (when there is one) as the artifact; ``isError`` as an error.

    >>> r = result_from_wire({"content": [], "structuredContent": {"n": 1}})
    >>> r.text, r.value
    ('{"n": 1}', {'n': 1})
    >>> result_from_wire({"content": [], "isError": True}, "git_log").text
    "MCP tool 'git_log' failed without a message."
    """
    text = content_text(result.get("content") or ())
    if result.get("isError"):
        return ToolResult.error(text or f"MCP tool '{tool}' failed without a message.")
    structured = result.get("structuredContent")
    if structured is not None:
        return ToolResult.artifact(structured, text=text or None)
    return ToolResult.text(text)


def wire_content(result: ToolResult) -> dict[str, Any]:
    """A :class:`ToolResult` as a ``tools/call`` result (the gateway's answer): its
    text as one text block, a mapping artifact as ``structuredContent``.

    >>> wire_content(ToolResult.error("locked"))
    {'content': [{'type': 'text', 'text': 'locked'}], 'isError': True}
    """
    wire: dict[str, Any] = {"content": [{"type": "text", "text": result.text}]}
    if result.has_value and isinstance(result.value, Mapping):
        with contextlib.suppress(TypeError, ValueError):
            wire["structuredContent"] = json.loads(json.dumps(result.value))
    wire["isError"] = result.is_error
    return wire
