"""A statetools gateway's skills, read by a client: their tools open in the gateway too.

A statetools gateway (:func:`~statetools.mcp.disclosure_server`, ``statetools serve``)
enforces its own design: a skill's tools are locked there until the skill's section is
read there, and it lists them only once open. So each of its ``skills/list`` entries
says how (``_meta["statetools/opens"]``: its ``read_section`` call and the definitions
of the tools it opens). When the model loads such a skill, :class:`GatewayRoute` makes
that call in the run's gateway session, and the skill's tools are called in that session:

- a 2025-era connection is the session (it lives as long as the connection);
- a 2026-07-28 gateway is stateless: the opening call starts a session, whose handle
  (from the result's ``_meta["statetools/session"]``) goes with every later call, the
  tools being called through the gateway's ``call_tool``. One session per run; when it
  expires there, the tool's call says so (:func:`expired`) and loading the skill again
  starts a new one.

>>> route = GatewayRoute("shop", modern=False, raw=None, call=None)
>>> route.server
'shop'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import mcp.types as types

from statetools.mcp.skill_catalog import Opening
from statetools.mcp.stateless import CALL_TOOL, SESSION_META, UNKNOWN_SESSION
from statetools.mcp.wire import content_text
from statetools.tools.calling import Arguments, Context, ToolResult, parse_arguments
from statetools.tools.context import RUN_ID_KEY, ToolCallContext
from statetools.tools.tool import BaseTool

__all__ = ["GatewayRoute", "GatewaySkillTool", "expired", "opening_of"]

Raw = Callable[[str, Mapping[str, Any], Context], Awaitable[types.CallToolResult]]
"""Sends one ``tools/call`` and returns the SDK's result (``_meta`` included)."""
Call = Callable[[str, Mapping[str, Any], Context], Awaitable[ToolResult]]
"""Calls a tool of the server as :meth:`MCPServer.call` does."""


def opening_of(raw: Any) -> Opening | None:
    """The :class:`Opening` a gateway's skill entry carries (None for other servers,
    and for a ``_meta`` of another shape).

    >>> opening_of({"_meta": {"statetools/opens": {"tool": "load_skill",
    ...     "arguments": {"key": "tone"}, "sessionArgument": "session", "tools": []}}}).tool
    'load_skill'
    >>> opening_of({"uri": "skill://a/SKILL.md"}) is None
    True
    """
    meta = raw.get("_meta") if isinstance(raw, Mapping) else None
    found = meta.get("statetools/opens") if isinstance(meta, Mapping) else None
    if not isinstance(found, Mapping):
        return None
    tool, arguments = found.get("tool"), found.get("arguments")
    session, tools = found.get("sessionArgument"), found.get("tools")
    if not (
        isinstance(tool, str)
        and isinstance(arguments, Mapping)
        and isinstance(session, str)
        and isinstance(tools, list)
        and all(isinstance(t, Mapping) and isinstance(t.get("name"), str) for t in tools)
    ):
        return None
    return Opening(tool, dict(arguments), session, tuple(tools))


def expired(server: str, tool: str) -> str:
    """What the model is told when the run's session at a 2026-07-28 gateway expired
    (loading the skill again starts a new one there).

    >>> expired("forms", "fill_field")
    "The session of MCP server 'forms' expired, which locked 'fill_field' there again. Load its skill again, then call 'fill_field' again."
    """  # noqa: E501
    return (
        f"The session of MCP server '{server}' expired, which locked '{tool}' there again. "
        f"Load its skill again, then call '{tool}' again."
    )


def _run(context: Context) -> object:
    return context.get(RUN_ID_KEY) if isinstance(context, ToolCallContext) else None


class GatewayRoute:
    """The calls a gateway's skills make, in one gateway session per run (see the
    module). ``modern``: the connection speaks 2026-07-28 (handles, ``call_tool``);
    ``raw`` sends a ``tools/call`` and returns the SDK's result, ``call`` calls a tool
    as :meth:`MCPServer.call` does.

    >>> route = GatewayRoute("shop", modern=True, raw=None, call=None)
    >>> route.handles, route.opened
    ({}, set())
    """

    def __init__(self, server: str, *, modern: bool, raw: Raw | None, call: Call | None) -> None:
        self.server = server
        self.modern = modern
        self._raw = raw
        self._call = call
        self.handles: dict[object, str] = {}
        """The 2026-07-28 session handle of each run."""
        self.opened: set[tuple[object, str]] = set()
        """(run, skill URI) of the skills opened in the gateway."""

    def _forget(self, run: object, context: Context) -> None:
        if not isinstance(context, ToolCallContext) or context.run_end is None:
            return

        async def forget() -> None:
            self.handles.pop(run, None)
            self.opened = {item for item in self.opened if item[0] != run}

        context.run_end.push(forget)

    async def open(self, uri: str, opening: Opening, context: Context) -> str | None:
        """Read the skill's section in the run's gateway session; None when its tools
        are open there, else why not (for the model).

        >>> import asyncio
        >>> async def raw(name, arguments, context):
        ...     raise ConnectionError("gone")
        >>> route = GatewayRoute("shop", modern=True, raw=raw, call=None)
        >>> opening = Opening("load_skill", {"key": "tone"}, "session", ())
        >>> asyncio.run(route.open("skill://tone/SKILL.md", opening, None))
        'the gateway did not answer (gone)'
        """
        run = _run(context)
        if (run, uri) in self.opened or self._raw is None:
            return None
        arguments = dict(opening.arguments)
        handle = self.handles.get(run)
        if self.modern and handle is not None:
            arguments[opening.session] = handle
        try:
            answer = await self._raw(opening.tool, arguments, context)
        except Exception as exc:
            message = exc.error.message if hasattr(exc, "error") else str(exc) or repr(exc)
            return f"the gateway did not answer ({message})"
        if answer.is_error:
            return f"the gateway refused: {content_text(_blocks(answer))}"
        if self.modern and handle is None:
            given = (answer.meta or {}).get(SESSION_META)
            if not isinstance(given, str):
                return "the gateway started no session (its answer has no handle)"
            self.handles[run] = given
            self._forget(run, context)
        elif not self.modern and not any(item[0] == run for item in self.opened):
            self._forget(run, context)
        self.opened.add((run, uri))
        return None

    async def call(
        self, tool: str, arguments: Mapping[str, Any], session: str, context: Context
    ) -> ToolResult:
        """Call the gateway's ``tool`` in the run's session (for a 2026-07-28 gateway,
        through its ``call_tool`` with the run's handle).

        >>> import asyncio
        >>> async def call(tool, arguments, context):
        ...     return ToolResult.text(f"{tool} {sorted(arguments)}")
        >>> route = GatewayRoute("shop", modern=True, raw=None, call=call)
        >>> route.handles[None] = "h4ndle"
        >>> asyncio.run(route.call("fill", {"a": 1}, "session", None)).text
        "call_tool ['arguments', 'name', 'session']"
        """
        if self._call is None:
            return ToolResult.error(f"MCP server '{self.server}' cannot be called.")
        if not self.modern:
            return await self._call(tool, arguments, context)
        handle = self.handles.get(_run(context))
        if handle is None:
            return ToolResult.error(
                f"Tool '{tool}' of MCP server '{self.server}' has no session: load its skill first."
            )
        wrapped = {"name": tool, "arguments": dict(arguments), session: handle}
        result = await self._call(CALL_TOOL, wrapped, context)
        if result.is_error and result.text == UNKNOWN_SESSION:  # expired at the gateway
            run = _run(context)
            self.handles.pop(run, None)
            self.opened = {item for item in self.opened if item[0] != run}
            return ToolResult.error(expired(self.server, tool))
        return result


def _blocks(answer: types.CallToolResult) -> list[dict[str, Any]]:
    return [block.model_dump(mode="json", by_alias=True) for block in answer.content]


@attrs.frozen(kw_only=True)
class GatewaySkillTool(BaseTool):
    """A tool a gateway's skill opens, called in the run's gateway session.

    >>> tool = GatewaySkillTool(name="fill_field", description="Fill a field",
    ...                         route=GatewayRoute("forms", modern=False, raw=None, call=None),
    ...                         session="session")
    >>> tool.call({"field": "name"}).text
    "MCP server 'forms' cannot be called."
    """

    route: GatewayRoute = attrs.field(eq=False, repr=False)
    session: str = "session"

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Send the call through :class:`GatewayRoute`.

        >>> import asyncio
        >>> tool = GatewaySkillTool(name="fill", description="Fill",
        ...                         route=GatewayRoute("forms", modern=False, raw=None,
        ...                                            call=None))
        >>> asyncio.run(tool.acall("{bad")).is_error
        True
        """
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        return await self.route.call(self.name, parsed, self.session, context)
