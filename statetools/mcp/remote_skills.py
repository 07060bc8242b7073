"""Skills over MCP, read: a server's skills as :class:`~statetools.Sections`.

Where the list comes from: ``skills/list`` when the server declares the
``io.modelcontextprotocol/skills`` extension (each entry names every file of the skill
with its digest and size), else the ``skill://index.json`` resource. Each ``SKILL.md``
is read with ``resources/read``, checked against its entry (size, ``sha256`` digest,
front matter) and parsed as a local one is.

How a remote skill names its tools: its ``allowed-tools`` names tools **of the same
server** (as the server names them). Loading the skill opens those tools, called
through the server, as a local skill opens its ``allowed-tools``; a name the server
does not list is an error when the skills are read, and a skill can never open a
tool of another server or a local one. The model sees where each skill comes from:
its title and its text name the server and the skill's URI.

>>> sorted(REQUIRED_ENTRY_KEYS)
['frontmatter', 'resources', 'uri']
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
import mcp
import mcp.types as types
from pydantic import BaseModel, ConfigDict

from statetools.errors import SpecError, StatetoolsError
from statetools.mcp.remote_tool import MCPTool
from statetools.mcp.skill_catalog import EXTENSION, INDEX_URI, digest
from statetools.sections.front_matter import skill_from_text
from statetools.sections.section import Section
from statetools.sections.sections import Sections
from statetools.sections.skills import FILE_TOOL, MAX_FILE_CHARS
from statetools.tools.result import ToolResult
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import Tool

__all__ = ["REQUIRED_ENTRY_KEYS", "RemoteSkill", "read_remote_skills"]

REQUIRED_ENTRY_KEYS = frozenset({"uri", "frontmatter", "resources"})
"""What every ``skills/list`` entry carries (SEP-2640)."""

Reader = Callable[[str], Awaitable[bytes]]
"""Reads the bytes of a resource of the server (raises what reading raised)."""


class _Answer(BaseModel):
    """Any answer, its fields kept as sent (``model_extra``)."""

    model_config = ConfigDict(extra="allow")


_KEY_ODD = re.compile(r"[^A-Za-z0-9_-]+")


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
        return RemoteSkill(uri, front, None)
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
    return RemoteSkill(uri, front, files)


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
        found.append(RemoteSkill(url, front, None))
    return found


async def _skills(client: mcp.Client, read: Reader, where: str) -> list[RemoteSkill]:
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
    return _indexed(text, f"{where}: {INDEX_URI}")


def _verified(data: bytes, uri: str, skill: RemoteSkill, where: str) -> None:
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


def _key(skill: RemoteSkill, names: Sequence[str]) -> str:
    if names.count(skill.name) == 1:
        return skill.name
    path = skill.root.split("://", 1)[-1]
    return _KEY_ODD.sub("_", path.replace("/", "_"))


def _body(skill: RemoteSkill, server: str, text: str, file_tool_name: str) -> str:
    origin = f"[Skill {skill.uri} from MCP server '{server}']"
    files = [uri[len(skill.root) + 1 :] for uri in (skill.files or {}) if uri != skill.uri]
    if not files:
        return f"{origin}\n\n{text}"
    listing = "\n".join(f"- {name}" for name in files)
    return (
        f"{origin}\n\n{text}\n\nFiles of this skill (read them with {file_tool_name}):\n{listing}"
    )


async def read_remote_skills(
    server: str,
    client: mcp.Client,
    read: Reader,
    tools: Sequence[MCPTool],
    *,
    tool_name: str = "load_skill",
    file_tool_name: str = FILE_TOOL,
) -> Sections:
    """The skills server ``server`` serves, as :class:`~statetools.Sections`; ``read``
    reads a resource, ``tools`` are the server's tools. Bad entries, indexes and
    ``SKILL.md`` files raise :class:`~statetools.SpecError` naming the server, the URI
    (and line) and what to do.

    >>> import asyncio, mcp
    >>> from mcp.server import Server
    >>> from statetools.mcp.skill_serving import publish_skills
    >>> upstream = Server("docs")
    >>> _ = publish_skills(upstream, [Sections(Section("tone", "Tone", "Be brief."))])
    >>> async def main() -> list[str]:
    ...     async with mcp.Client(upstream) as client:
    ...         async def read(uri: str) -> bytes:
    ...             return (await client.read_resource(uri)).contents[0].text.encode()
    ...         return (await read_remote_skills("docs", client, read, [])).keys()
    >>> asyncio.run(main())
    ['tone']
    """
    where = f"mcp server '{server}'"
    skills = await _skills(client, read, where)
    if not skills:
        raise _bad(where, "the server lists no skills", "check the server's skills")
    by_remote = {tool.remote_name: tool for tool in tools}
    names = [skill.name for skill in skills]
    sections: list[Section] = []
    for skill in skills:
        at = f"{where}: {skill.uri}"
        try:
            data = await read(skill.uri)
        except Exception as exc:
            raise _bad(at, f"cannot read it: {_why(exc)}", "check the server serves it") from None
        _verified(data, skill.uri, skill, at)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _bad(at, "SKILL.md is not UTF-8 text", "serve SKILL.md as UTF-8") from None
        parsed = skill_from_text(text.replace("\r\n", "\n"), at, skill.name)
        if skill.files is not None and dict(parsed.front_matter) != dict(skill.front_matter):
            raise _bad(
                at,
                "the front matter of SKILL.md differs from the skill's entry",
                "the server changed the skill while it was read: load the skills again",
            )
        unknown = [name for name in parsed.allowed_tools if name not in by_remote]
        if unknown:
            raise _bad(
                at,
                f"allowed-tools names tools the server does not have: {', '.join(unknown)}",
                "a skill served over MCP opens tools of its own server; it lists: "
                + (", ".join(by_remote) or "none"),
            )
        sections.append(
            Section(
                _key(skill, names),
                f"{skill.name} (skill of MCP server '{server}')",
                _body(skill, server, parsed.body, file_tool_name),
                summary=parsed.description,
                tools=[by_remote[name] for name in parsed.allowed_tools],
            )
        )
    keyed = {section.key: skill for section, skill in zip(sections, skills, strict=True)}
    more = any(s.files is None or set(s.files) - {s.uri} for s in skills)
    common = (
        [file_tool(keyed, read, file_tool_name)] if more else []
    )  # a skill has files besides SKILL.md
    return Sections(*sections, tool_name=tool_name, common_tools=common)


def file_tool(skills: Mapping[str, RemoteSkill], read: Reader, name: str = FILE_TOOL) -> Tool:
    """``read_skill_file(skill, path)`` for remote skills: reads ``path`` inside the
    skill's folder on the server (only files its entry lists, checked against their
    digests, when the server listed them).

    >>> async def read(uri: str) -> bytes:
    ...     return b"Fields: name, date."
    >>> tool = file_tool({"forms": RemoteSkill("skill://forms/SKILL.md", {}, None)}, read)
    >>> tool.call({"skill": "forms", "path": "fields.md"}).text
    'Fields: name, date.'
    >>> tool.call({"skill": "forms", "path": "../x"}).text
    "Cannot read '../x': give a path inside the skill's folder, without '..'."
    """
    schema = InputSchema.of(
        Parameter.string("skill", "The skill's name"),
        Parameter.string("path", "A path inside the skill's folder, e.g. references/forms.md"),
    )

    async def handler(skill: str, path: str) -> ToolResult:
        found = skills.get(skill)
        if found is None:
            return ToolResult.error(f"No skill is named '{skill}'. Skills: {', '.join(skills)}.")
        parts = path.split("/")
        if not path or path.startswith("/") or ".." in parts or "\\" in path or "://" in path:
            return ToolResult.error(
                f"Cannot read '{path}': give a path inside the skill's folder, without '..'."
            )
        uri = f"{found.root}/{path}"
        if found.files is not None and uri not in found.files:
            files = ", ".join(u[len(found.root) + 1 :] for u in found.files if u != found.uri)
            return ToolResult.error(
                f"Skill '{skill}' has no file '{path}'. Its files: {files or 'none'}."
            )
        try:
            data = await read(uri)
            _verified(data, uri, found, uri)
        except SpecError as exc:
            return ToolResult.error(f"Cannot read '{path}': {exc.message}.")
        except Exception as exc:
            return ToolResult.error(f"Cannot read '{path}': {_why(exc)}.")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return ToolResult.error(f"Cannot read '{path}': it is not a UTF-8 text file.")
        if len(text) > MAX_FILE_CHARS:
            text = text[:MAX_FILE_CHARS] + f"\n[cut off after {MAX_FILE_CHARS} characters]"
        return ToolResult.text(text)

    return Tool.create(name, "Read a file of a skill.", handler, schema=schema)


def resource_bytes(result: types.ReadResourceResult, uri: str) -> bytes:
    """The bytes of the first contents of a ``resources/read`` answer.

    >>> answer = types.ReadResourceResult(contents=[types.TextResourceContents(
    ...     uri="skill://a/SKILL.md", text="hi")])
    >>> resource_bytes(answer, "skill://a/SKILL.md")
    b'hi'
    """
    if not result.contents:
        raise ValueError(f"the server sent no contents for {uri}")
    first = result.contents[0]
    if isinstance(first, types.TextResourceContents):
        return first.text.encode("utf-8")
    try:
        return base64.b64decode(first.blob, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"the server sent a blob that is not base64 for {uri}") from exc
