"""Skills over MCP, listed: a server's skill entries (``skills/list``, else
``skill://index.json``), and the check of a file read against its entry.

``skills/list`` is asked when the server declares the ``io.modelcontextprotocol/skills``
extension (each entry gives the skill's front matter and every file with its digest and
size); else the ``skill://index.json`` resource (a name and a description per skill),
with, from a statetools gateway, how each skill's tools open there (from
``resources/list``: 2025-era clients see no extensions).

>>> sorted(REQUIRED_ENTRY_KEYS)
['frontmatter', 'resources', 'uri']
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import mcp
import mcp.types as types
from pydantic import BaseModel, ConfigDict

from statetools.errors import SpecError, StatetoolsError
from statetools.mcp.gateway_skills import opening_of
from statetools.mcp.skill_catalog import EXTENSION, INDEX_URI, Opening, digest

__all__ = ["REQUIRED_ENTRY_KEYS", "RemoteSkill", "list_skills", "verified"]

REQUIRED_ENTRY_KEYS = frozenset({"uri", "frontmatter", "resources"})
"""What every ``skills/list`` entry carries (SEP-2640)."""
Reader = Callable[[str], Awaitable[bytes]]
"""Reads the bytes of a resource of the server (raises what reading raised)."""


class _Answer(BaseModel):
    """Any answer, its fields kept as sent (``model_extra``)."""

    model_config = ConfigDict(extra="allow")


class _ListSkills(types.Request[types.PaginatedRequestParams, str]):
    method: str = "skills/list"
    params: types.PaginatedRequestParams


@attrs.frozen
class RemoteSkill:
    """One skill of a server: its ``SKILL.md`` URI, front matter (from the entry, or
    ``name`` and ``description`` from the index) and files (URI -> (digest, size); None
    when the server did not list them).

    >>> RemoteSkill("skill://acme/refunds/SKILL.md", {"name": "refunds"}, None).root
    'skill://acme/refunds'
    """

    uri: str
    front_matter: Mapping[str, Any]
    files: Mapping[str, tuple[str, int]] | None
    opening: Opening | None = None
    """How a statetools gateway opens its tools (from its entry's ``_meta``)."""
    indexed: bool = False
    """Found in ``skill://index.json`` (which gives only a name and a description)."""

    @property
    def root(self) -> str:
        """The skill's folder URI (its ``SKILL.md`` URI without ``/SKILL.md``).

        >>> RemoteSkill("skill://git/SKILL.md", {}, None).root
        'skill://git'
        """
        return self.uri[: -len("/SKILL.md")]

    @property
    def name(self) -> str:
        """The last segment of its path (the skill's name).

        >>> RemoteSkill("skill://acme/refunds/SKILL.md", {}, None).name
        'refunds'
        """
        return self.root.rsplit("/", 1)[-1]


def _why(exc: Exception) -> str:
    return exc.message if isinstance(exc, StatetoolsError) else str(exc)


def _bad(where: str, message: str, hint: str) -> SpecError:
    return SpecError(message, path=where, hint=hint)


async def _listed(client: mcp.Client, where: str) -> list[Any]:
    """Every ``skills/list`` entry, page by page."""
    entries: list[Any] = []
    cursor: str | None = None
    for _ in range(1000):
        params = types.PaginatedRequestParams(cursor=cursor)
        answer = await client.session.send_request(_ListSkills(params=params), _Answer)
        page = answer.model_extra or {}
        skills = page.get("skills")
        if not isinstance(skills, list):
            raise _bad(
                f"{where}: skills/list",
                "the answer has no 'skills' list",
                "the server's Skills extension is broken; ask its authors",
            )
        entries.extend(skills)
        cursor = page.get("nextCursor")
        if not isinstance(cursor, str):
            return entries
    raise _bad(f"{where}: skills/list", "more than 1000 pages", "the server pages without end")


def _entry(raw: Any, where: str) -> RemoteSkill:
    if not isinstance(raw, dict) or not raw.keys() >= REQUIRED_ENTRY_KEYS:
        raise _bad(where, "a skill entry needs uri, frontmatter and resources", "fix the server")
    uri, front, resources = raw["uri"], raw["frontmatter"], raw["resources"]
    if not isinstance(uri, str) or not uri.endswith("/SKILL.md") or "://" not in uri:
        raise _bad(f"{where}.uri", f"not the URI of a SKILL.md: {uri!r}", "fix the server")
    if not isinstance(front, dict) or not isinstance(front.get("name"), str):
        raise _bad(f"{where}.frontmatter", "the front matter needs a name", "fix the server")
    if resources == "dynamic":
        return RemoteSkill(uri, front, None, opening_of(raw))
    files: dict[str, tuple[str, int]] = {}
    if not isinstance(resources, list):
        raise _bad(f"{where}.resources", "resources is not a list or 'dynamic'", "fix the server")
    for number, file in enumerate(resources):
        if not (
            isinstance(file, dict)
            and isinstance(file.get("uri"), str)
            and isinstance(file.get("digest"), str)
            and isinstance(file.get("size"), int)
        ):
            raise _bad(
                f"{where}.resources[{number}]",
                "a file needs uri, digest and size",
                "fix the server",
            )
        files[file["uri"]] = (file["digest"], file["size"])
    return RemoteSkill(uri, front, files, opening_of(raw))


def _indexed(text: bytes, where: str) -> list[RemoteSkill]:
    hint = 'serve {"skills": [{"name", "type": "skill-md", "description", "url"}, ...]}'
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise _bad(where, f"not JSON: {exc}", hint) from None
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, list):
        raise _bad(where, "the index has no 'skills' list", hint)
    found: list[RemoteSkill] = []
    for number, item in enumerate(skills):
        at = f"{where}: skills[{number}]"
        if not isinstance(item, dict):
            raise _bad(at, "an index entry is an object", hint)
        if item.get("type", "skill-md") != "skill-md":
            continue  # other kinds (archives, templates) are not read here
        url, name = item.get("url"), item.get("name")
        if not isinstance(url, str) or not url.endswith("/SKILL.md"):
            raise _bad(f"{at}.url", f"not the URI of a SKILL.md: {url!r}", hint)
        if not isinstance(name, str):
            raise _bad(f"{at}.name", "an index entry needs a name", hint)
        front = {"name": name, "description": item.get("description")}
        found.append(RemoteSkill(url, front, None, indexed=True))
    return found


async def list_skills(client: mcp.Client, read: Reader, where: str) -> list[RemoteSkill]:
    """The skills the server of ``client`` lists; a bad answer raises
    :class:`~statetools.SpecError` at ``where``.

    >>> import asyncio
    >>> from mcp.server import Server
    >>> from statetools.mcp.skill_serving import publish_skills
    >>> upstream = Server("docs")
    >>> _ = publish_skills(upstream, [Sections(Section("tone", "Tone", "Be brief."))])
    >>> async def main() -> list[str]:
    ...     async with mcp.Client(upstream) as client:
    ...         return [s.uri for s in await list_skills(client, None, "docs")]
    >>> asyncio.run(main())
    ['skill://tone/SKILL.md']
    """
    extensions = client.server_capabilities.extensions or {}
    if EXTENSION in extensions:
        entries = await _listed(client, where)
        return [_entry(raw, f"{where}: skills/list: skills[{i}]") for i, raw in enumerate(entries)]
    try:
        text = await read(INDEX_URI)
    except Exception as exc:
        raise _bad(
            f"{where}: {INDEX_URI}",
            f"the server serves no skills (no {EXTENSION} extension, and reading "
            f"{INDEX_URI} failed: {_why(exc)})",
            "check that the server publishes skills (SEP-2640)",
        ) from None
    indexed = _indexed(text, f"{where}: {INDEX_URI}")
    if not client.server_capabilities.resources:
        return indexed
    openings = await _openings(client)  # a statetools gateway's, for 2025-era clients
    return [attrs.evolve(skill, opening=openings.get(skill.uri)) for skill in indexed]


async def _openings(client: mcp.Client) -> dict[str, Opening]:
    """How each ``SKILL.md``'s tools open, from ``resources/list`` (a statetools
    gateway's ``_meta``); nothing when the server cannot list its resources."""
    found: dict[str, Opening] = {}
    cursor: str | None = None
    for _ in range(1000):
        try:
            page = await client.list_resources(cursor=cursor)
        except Exception:
            return found
        for resource in page.resources:
            opening = opening_of(resource.model_dump(by_alias=True, mode="json"))
            if opening is not None:
                found[resource.uri] = opening
        cursor = page.next_cursor
        if cursor is None:
            return found
    return found


def verified(data: bytes, uri: str, skill: RemoteSkill, where: str) -> None:
    """Raise :class:`~statetools.SpecError` at ``where`` unless ``data`` (read at
    ``uri``) is what the skill's entry lists (nothing to check for an index's skill).

    >>> skill = RemoteSkill("skill://a/SKILL.md", {}, {"skill://a/SKILL.md": (digest(b"x"), 1)})
    >>> verified(b"x", "skill://a/SKILL.md", skill, "here")
    >>> verified(b"y", "skill://a/SKILL.md", skill, "here")
    Traceback (most recent call last):
    ...
    statetools.errors.SpecError: here: what was read (1 bytes) differs from the skill's entry (1 bytes, sha256:2d711642b726...) Hint: the server changed the skill while it was read: load the skills again
    """  # noqa: E501
    if skill.files is None:
        return
    expected = skill.files.get(uri)
    if expected is None:
        raise _bad(where, f"{uri} is not among the skill's files", "load the skills again")
    if (digest(data), len(data)) != expected:
        raise _bad(
            where,
            f"what was read ({len(data)} bytes) differs from the skill's entry "
            f"({expected[1]} bytes, {expected[0][:19]}...)",
            "the server changed the skill while it was read: load the skills again",
        )
