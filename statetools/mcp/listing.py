"""A saved tool listing of an MCP server: review a design without running the server.

``statetools mcp list NAME --save FILE`` writes one; a design's ``mcp_servers:`` entry
reads it with ``listing: FILE``.

>>> listing = Listing("time", ({"name": "now", "description": "The time"},))
>>> Listing.from_json(listing.to_json()).names
['now']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from statetools.errors import SpecError

__all__ = ["Listing"]


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
        data = {"server": self.server, "tools": [dict(t) for t in self.tools]}
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
        return cls(server, tuple(tools), saved=True)

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
