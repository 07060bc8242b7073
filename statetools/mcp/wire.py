"""MCP wire shapes to statetools values and back: tool listings (live, or saved to
review a design without running the server) and call results.

Listings are handled as the JSON the server sent (``name``, ``description``,
``inputSchema``, ``annotations``), so a saved listing and a live one go through the same
code, and reading a saved listing needs no ``mcp`` package.

>>> tool_name("github.create-issue")
'github_create-issue'
>>> category_of({"readOnlyHint": True})
'read'
>>> result_from_wire({"content": [{"type": "text", "text": "clean"}], "isError": False}).text
'clean'

A saved listing (:class:`Listing`): ``statetools mcp list NAME --save FILE`` writes one;
a design's ``mcp_servers:`` entry reads it with ``listing: FILE``. A listing from a
2026-07-28 server keeps the server's ``ttlMs`` and when it was listed (``listedAt``): a
live server with a saved listing uses it until ``ttlMs`` has passed and lists again
after that (a listing without ``ttlMs`` is listed again at once).

>>> listing = Listing("time", ({"name": "now", "description": "The time"},))
>>> Listing.from_json(listing.to_json()).names
['now']
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from statetools.errors import SpecError
from statetools.tools.calling import ToolResult

__all__ = [
    "Listing",
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


@attrs.frozen
class Listing:
    """The ``tools/list`` answer of server ``server``, as the JSON the server sent.

    ``saved`` is true for a listing read from a file (a live server is listed again).

    >>> listing = Listing("time", ({"name": "now", "description": "The time"},))
    >>> listing.names, Listing.from_json(listing.to_json()) == listing
    (['now'], True)
    """

    server: str
    tools: tuple[Mapping[str, Any], ...]
    saved: bool = attrs.field(default=False, eq=False)
    ttl_ms: int | None = attrs.field(default=None, eq=False)
    """How long (ms) the server said the listing stays fresh (None: it did not say)."""
    listed_at: float | None = attrs.field(default=None, eq=False)
    """When it was listed (seconds since the epoch, from the server's clock)."""

    def fresh(self, now: float) -> bool:
        """Whether the server's ``ttlMs`` has not passed yet at ``now`` (seconds since the
        epoch); a listing without ``ttlMs`` is never fresh.

        >>> listing = Listing("t", (), ttl_ms=60_000, listed_at=1000.0)
        >>> listing.fresh(1059.9), listing.fresh(1060.0), Listing("t", ()).fresh(0.0)
        (True, False, False)
        """
        if self.ttl_ms is None or self.listed_at is None:
            return False
        return now < self.listed_at + self.ttl_ms / 1000

    @property
    def names(self) -> list[str]:
        """The tool names, as the server spells them.

        >>> Listing("git", ({"name": "git_status"}, {"name": "git_log"})).names
        ['git_status', 'git_log']
        """
        return [str(tool.get("name")) for tool in self.tools]

    def to_json(self) -> str:
        """The file ``--save`` writes: ``{"server": ..., "tools": [...]}``.

        >>> print(Listing("time", ({"name": "now"},)).to_json(), end="")
        {
         "server": "time",
         "tools": [
          {
           "name": "now"
          }
         ]
        }
        """
        data: dict[str, Any] = {"server": self.server}
        if self.ttl_ms is not None and self.listed_at is not None:
            data["ttlMs"] = self.ttl_ms
            data["listedAt"] = _stamp(self.listed_at)
        data["tools"] = [dict(t) for t in self.tools]
        return json.dumps(data, indent=1) + "\n"  # the server's key order: tokens count the same

    @classmethod
    def from_json(cls, text: str, *, where: str = "listing") -> Listing:
        """Read a saved listing; a file of another shape is a :class:`SpecError`.

        >>> Listing.from_json('{"tools": 3}')
        Traceback (most recent call last):
        ...
        statetools.errors.SpecError: listing: expected {"server": NAME, "tools": [...]} ...
        """
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SpecError(f"not JSON: {exc}", path=where) from None
        tools = data.get("tools") if isinstance(data, dict) else None
        server = data.get("server") if isinstance(data, dict) else None
        if not isinstance(server, str) or not isinstance(tools, list):
            raise SpecError(
                'expected {"server": NAME, "tools": [...]}',
                path=where,
                hint="write it with: statetools mcp list NAME --save FILE",
            )
        for index, tool in enumerate(tools):
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                raise SpecError(
                    "a tool needs a 'name'", path=f"{where}: tools[{index}]", hint="re-save it"
                )
        ttl, listed = data.get("ttlMs"), data.get("listedAt")
        if ttl is None and listed is None:
            return cls(server, tuple(tools), saved=True)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
            raise SpecError(
                f"ttlMs must be a whole number of milliseconds, got {ttl!r}",
                path=f"{where}: ttlMs",
                hint="re-save it with: statetools mcp list NAME --save FILE",
            )
        return cls(server, tuple(tools), saved=True, ttl_ms=ttl, listed_at=_when(listed, where))

    @classmethod
    def read(cls, path: str | Path) -> Listing:
        """Read the listing saved at ``path``.

        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "time.json"
        >>> _ = path.write_text(Listing("time", ({"name": "now"},)).to_json())
        >>> Listing.read(path).names, Listing.read(path).saved
        (['now'], True)
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(
                f"cannot read saved listing: {exc.strerror or exc}",
                path=str(path),
                hint="write it with: statetools mcp list NAME --save FILE",
            ) from None
        return cls.from_json(text, where=str(path))


def _stamp(seconds: float) -> str:
    """``seconds`` since the epoch as UTC ISO 8601, to the millisecond.

    >>> _stamp(0.25)
    '1970-01-01T00:00:00.250Z'
    """
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def _when(value: Any, where: str) -> float:
    """A ``listedAt`` stamp back in seconds since the epoch.

    >>> _when("1970-01-01T00:00:00.250Z", "t.json")
    0.25
    """
    try:
        if not isinstance(value, str):
            raise ValueError(value)
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise SpecError(
            f"listedAt must be a UTC time like 2026-07-28T12:00:00.000Z, got {value!r}",
            path=f"{where}: listedAt",
            hint="re-save it with: statetools mcp list NAME --save FILE",
        ) from None
