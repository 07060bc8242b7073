"""Skills over MCP, read: a server's skills as :class:`~statetools.Sections`.

The list comes from :mod:`statetools.mcp.remote_skill_entries` (``skills/list``, else
``skill://index.json``); only the list is read up front. Each ``SKILL.md`` is read when
the model first loads its skill (:mod:`statetools.mcp.remote_skill_loading`), checked
against its entry (size, ``sha256`` digest, front matter) and parsed as a local one is.

How a remote skill names its tools: its ``allowed-tools`` names tools **of the same
server** (as the server names them). Loading the skill opens those tools, called
through the server, as a local skill opens its ``allowed-tools``; a name the server
does not list is an error when the skills are listed (or, for an index's skill, when it
is loaded), and a skill can never open a tool of another server or a local one. A
statetools gateway's skills open its tools there too (:mod:`.gateway_skills`). The
model sees where each skill comes from: its title and its text name the server and the
skill's URI.

>>> MAX_FILE_CHARS > 0
True
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import mcp
import mcp.types as types

from statetools.errors import SpecError, StatetoolsError
from statetools.mcp.gateway_skills import GatewayRoute, GatewaySkillTool
from statetools.mcp.remote_skill_entries import Reader, RemoteSkill, list_skills, verified
from statetools.mcp.remote_skill_loading import LazySkill, RemoteSkillReader, SkillLoader
from statetools.mcp.remote_tool import MCPTool
from statetools.sections.section import Section
from statetools.sections.sections import Sections
from statetools.sections.skills import FILE_TOOL, MAX_FILE_CHARS
from statetools.tools.calling import ToolResult
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import BaseTool, Tool

__all__ = ["file_tool", "read_remote_skills", "resource_bytes"]


def _why(exc: Exception) -> str:
    return exc.message if isinstance(exc, StatetoolsError) else str(exc)


def _bad(where: str, message: str, hint: str) -> SpecError:
    return SpecError(message, path=where, hint=hint)


_KEY_ODD = re.compile(r"[^A-Za-z0-9_-]+")


def _key(skill: RemoteSkill, names: Sequence[str]) -> str:
    if names.count(skill.name) == 1:
        return skill.name
    path = skill.root.split("://", 1)[-1]
    return _KEY_ODD.sub("_", path.replace("/", "_"))


def _body(skill: RemoteSkill, server: str, text: str, file_tool_name: str) -> str:
    origin = _origin(skill, server)
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
    route: GatewayRoute | None = None,
) -> Sections:
    """The skills server ``server`` serves, as :class:`~statetools.Sections`; ``read``
    reads a resource, ``tools`` are the server's tools, ``route`` calls a statetools
    gateway's (see :mod:`statetools.mcp.gateway_skills`). Only the listing is read now:
    each ``SKILL.md`` is read when the model first loads its skill
    (:mod:`statetools.mcp.remote_skill_loading`). Bad entries and indexes, and entries
    whose ``allowed-tools`` name tools the server does not have, raise
    :class:`~statetools.SpecError` naming the server, the URI and what to do.

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
    skills = await list_skills(client, read, where)
    if not skills:
        raise _bad(where, "the server lists no skills", "check the server's skills")
    by_remote: dict[str, BaseTool] = {tool.remote_name: tool for tool in tools}
    for skill in skills:
        if skill.opening is not None and route is not None:
            for definition in skill.opening.tools:
                by_remote[str(definition["name"])] = _gateway_tool(definition, route, skill)
    own = {tool_name, file_tool_name}  # the server's tools of these names stay out
    by_remote = {remote: tool for remote, tool in by_remote.items() if tool.name not in own}
    names = [skill.name for skill in skills]
    sections: list[Section] = []
    lazy: dict[str, LazySkill] = {}
    for skill in skills:
        at = f"{where}: {skill.uri}"
        key = _key(skill, names)
        entry = None if skill.indexed else skill.front_matter
        # an index's skill (no front matter yet): the tools a gateway says it opens, else
        # any of the server's; those its SKILL.md names open once it is read
        opens: list[BaseTool] = (
            [by_remote[str(d["name"])] for d in skill.opening.tools]
            if skill.opening is not None and route is not None
            else list(by_remote.values())
        )
        if entry is not None:
            allowed = _allowed(entry, at)
            unknown = [name for name in allowed if name not in by_remote]
            if unknown:
                raise _bad(
                    at,
                    f"allowed-tools names tools the server does not have: {', '.join(unknown)}",
                    "a skill served over MCP opens tools of its own server; it lists: "
                    + (", ".join(by_remote) or "none"),
                )
            opens = [by_remote[name] for name in allowed]
        lazy[key] = LazySkill(skill.uri, skill.name, entry, _checker(skill, at), skill.opening)
        description = skill.front_matter.get("description")
        sections.append(
            Section(
                key,
                f"{skill.name} (skill of MCP server '{server}')",
                _origin(skill, server),
                summary=description if isinstance(description, str) else None,
                tools=opens,
            )
        )
    keyed = dict(zip(lazy, skills, strict=True))
    more = any(s.files is None or set(s.files) - {s.uri} for s in skills)
    common = (
        [file_tool(keyed, read, file_tool_name)] if more else []
    )  # a skill has files besides SKILL.md
    made = Sections(*sections, tool_name=tool_name, common_tools=common)

    by_uri = {skill.uri: skill for skill in skills}

    def render(lazy_skill: LazySkill, text: str) -> str:
        return _body(by_uri[lazy_skill.uri], server, text, file_tool_name)

    known = {remote: tool.name for remote, tool in by_remote.items()}
    loader = SkillLoader(server, read, lazy, render, known, route)
    object.__setattr__(made, "facade", RemoteSkillReader.over(made, loader))
    return made


def _allowed(front: Mapping[str, Any], where: str) -> tuple[str, ...]:
    allowed = front.get("allowed-tools", "")
    if isinstance(allowed, str):
        return tuple(allowed.replace(",", " ").split())
    if isinstance(allowed, list) and all(isinstance(n, str) for n in allowed):
        return tuple(allowed)
    raise _bad(f"{where}.allowed-tools", "not tool names", "fix the server")


def _checker(skill: RemoteSkill, where: str) -> Callable[[bytes], None]:
    def check(data: bytes) -> None:
        verified(data, skill.uri, skill, where)

    return check


def _origin(skill: RemoteSkill, server: str) -> str:
    return f"[Skill {skill.uri} from MCP server '{server}']"


def _gateway_tool(definition: Mapping[str, Any], route: GatewayRoute, skill: RemoteSkill) -> Any:
    assert skill.opening is not None
    schema = definition.get("inputSchema") or {"type": "object", "properties": {}}
    return GatewaySkillTool(
        name=str(definition["name"]),
        description=str(definition.get("description") or definition["name"]),
        input_schema=schema,
        route=route,
        session=skill.opening.session,
    )


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
            verified(data, uri, found, uri)
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
