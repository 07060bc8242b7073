"""Skills over MCP, served: a design's sections and skills as ``skill://`` resources.

:func:`publish_skills` adds them to an SDK server (``disclosure_server`` does it for
every design with sections or skills, so ``statetools serve`` does too):

- ``resources/list`` lists ``skill://index.json`` and every file of every skill
  (each ``SKILL.md`` with the skill's name and description, ``text/markdown``; from a
  statetools gateway, with how its tools open under ``_meta["statetools/opens"]``, for
  2025-era clients, which see no extensions);
- ``resources/read`` reads them (text, or a blob for bytes that are not UTF-8);
- ``skills/list`` and ``skills/get`` answer with each skill's entry (its front matter
  and every file with its ``sha256`` digest and size), and the server declares the
  ``io.modelcontextprotocol/skills`` extension in its capabilities (a gateway's entries
  say how each skill's tools open there: ``_meta["statetools/opens"]``).

The same for 2025-era and 2026-07-28 clients; results for 2026 clients carry
``ttlMs`` (:data:`SKILLS_TTL_MS`) and ``cacheScope: public``: the files are the same
for every client. Resources the server had already are kept.

>>> import asyncio, mcp
>>> from mcp.server import Server
>>> server = Server("docs")
>>> _ = publish_skills(server, [Sections(Section("billing", "Billing", "Refunds in 30 days.",
...                                              summary="Refund rules."))])
>>> async def main() -> list[str]:
...     async with mcp.Client(server) as client:
...         listed = await client.list_resources()
...         return [resource.uri for resource in listed.resources]
>>> asyncio.run(main())
['skill://index.json', 'skill://billing/SKILL.md']
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Any

import mcp.types as types
from mcp import MCPError
from mcp.server import Server
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from statetools.mcp.skill_catalog import EXTENSION, INDEX_URI, OPENS_META, SkillCatalog

__all__ = ["SKILLS_TTL_MS", "publish_skills"]

SKILLS_TTL_MS = 300_000
"""How long (ms) a 2026-era client may keep the skill files and entries: they change
only when the server is started again with another design.

>>> SKILLS_TTL_MS // 60_000
5
"""

_Ctx = ServerRequestContext[Any, Any]


def _fresh(ctx: _Ctx) -> dict[str, Any]:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return {"ttl_ms": SKILLS_TTL_MS, "cache_scope": "public"}
    return {}


def _resources(catalog: SkillCatalog) -> list[types.Resource]:
    """Each URI once: the index, then each skill's files (a nested skill's ``SKILL.md``
    is listed as that skill's, not as a file of the skill around it)."""
    skills = {skill.uri: skill for skill in catalog.skills}
    found: list[types.Resource] = []
    for uri, (data, mime) in catalog.files.items():
        skill = skills.get(uri)
        if uri == INDEX_URI:
            found.insert(
                0,
                types.Resource(
                    uri=uri,
                    name="skills-index",
                    description="The skills this server serves (Agent Skills discovery index)",
                    mime_type=mime,
                ),
            )
        elif skill is not None:
            description = str(skill.front_matter["description"])
            opens = skill.opens
            found.append(
                types.Resource(
                    uri=uri,
                    name=skill.name,
                    description=description,
                    mime_type=mime,
                    size=len(data),
                    _meta={OPENS_META: opens.wire()} if opens and opens.tools else None,
                )
            )
        else:
            name = uri.rsplit("/", 1)[-1]
            found.append(types.Resource(uri=uri, name=name, mime_type=mime, size=len(data)))
    return found


def _contents(
    uri: str, data: bytes, mime: str
) -> types.TextResourceContents | types.BlobResourceContents:
    try:
        return types.TextResourceContents(uri=uri, mime_type=mime, text=data.decode("utf-8"))
    except UnicodeDecodeError:
        return types.BlobResourceContents(
            uri=uri, mime_type=mime, blob=base64.b64encode(data).decode("ascii")
        )


def publish_skills(
    server: Server[Any], items: Iterable[Any], *, session: str | None = None
) -> SkillCatalog:
    """Serve the skills of the :class:`~statetools.Sections` among ``items`` from
    ``server`` (an ``mcp.server.Server``, or the SDK's ``MCPServer``); returns what is
    served (nothing is added when there are no skills). ``session``: the session
    argument of the statetools gateway serving them (``disclosure_server`` passes it):
    each entry then says how the skill's tools open there.

    >>> from mcp.server import Server
    >>> catalog = publish_skills(Server("docs"), [Sections(Section("a", "A", "x"))])
    >>> [skill.uri for skill in catalog.skills]
    ['skill://a/SKILL.md']
    """
    catalog = SkillCatalog.of_items(items, session=session)
    if not catalog.skills:
        return catalog
    low: Server[Any] = getattr(server, "_lowlevel_server", server)
    listed = _resources(catalog)
    earlier_list = low.get_request_handler("resources/list")
    earlier_read = low.get_request_handler("resources/read")

    async def list_resources(ctx: _Ctx, params: types.PaginatedRequestParams) -> HandlerResult:
        if earlier_list is None:
            return types.ListResourcesResult(resources=listed, **_fresh(ctx))
        result = await earlier_list.handler(ctx, params)
        if params.cursor is not None or not isinstance(result, types.ListResourcesResult):
            return result  # later pages (and answers of other shapes): theirs only
        return result.model_copy(update={"resources": [*listed, *result.resources]})

    async def read_resource(ctx: _Ctx, params: types.ReadResourceRequestParams) -> HandlerResult:
        found = catalog.files.get(params.uri)
        if found is None:
            if earlier_read is not None:
                return await earlier_read.handler(ctx, params)
            raise MCPError(code=INVALID_PARAMS, message=f"No resource is served at {params.uri}")
        data, mime = found
        return types.ReadResourceResult(contents=[_contents(params.uri, data, mime)], **_fresh(ctx))

    async def list_skills(ctx: _Ctx, params: types.PaginatedRequestParams) -> dict[str, Any]:
        skills = [skill.entry() for skill in catalog.skills]
        return {"skills": skills, **_wire_fresh(ctx)}

    async def get_skill(ctx: _Ctx, params: types.ReadResourceRequestParams) -> dict[str, Any]:
        skill = catalog.skill(params.uri)
        if skill is None:
            raise MCPError(code=INVALID_PARAMS, message=f"No skill is served at {params.uri}")
        return {"skill": skill.entry(), **_wire_fresh(ctx)}

    low.add_request_handler("resources/list", types.PaginatedRequestParams, list_resources)
    low.add_request_handler("resources/read", types.ReadResourceRequestParams, read_resource)
    low.add_request_handler("skills/list", types.PaginatedRequestParams, list_skills)
    low.add_request_handler("skills/get", types.ReadResourceRequestParams, get_skill)
    low.extensions[EXTENSION] = {}
    return catalog


def _wire_fresh(ctx: _Ctx) -> dict[str, Any]:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return {"ttlMs": SKILLS_TTL_MS, "cacheScope": "public"}
    return {}
