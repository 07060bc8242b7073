"""The gateway for 2026-07-28 clients: one stable ``tools/list``, disclosure in the
conversation, state behind server-minted handles.

The 2026-07-28 revision forbids ``tools/list`` to vary per connection or after calls,
so every client gets the same listing, in the design's order: the tools a fresh
session shows, each with one more optional argument (``session``), then two meta
tools, ``describe_tool`` and ``call_tool``. A call without ``session`` that may run
starts a session; its result ends with the handle (128 random bits) to pass in later
calls. Calls are enforced as in a run: a locked tool never runs and its call is an
``isError`` result saying what to call first. A call that opens tools says so
(``[now available: ...]``) and, for tools not in the listing, gives their definitions
(in the text for the model, under ``_meta["statetools/opened"]`` for clients that
register tools); those are called with ``call_tool`` (or directly by name). A client's
context so holds the first set, two meta tools, and what the design opened for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import mcp.types as types

from statetools.engine.answers import Refusal
from statetools.engine.visible_tools import Shown
from statetools.errors import StatetoolsError
from statetools.mcp.gateway_sessions import _Answer, _Handles, _Session
from statetools.mcp.wire import wire_content
from statetools.tools.calling import ToolResult
from statetools.tools.fields import ToolDefinition

__all__: list[str] = []

DESCRIBE_TOOL = "describe_tool"
CALL_TOOL = "call_tool"
LIST_TTL_MS = 3_600_000
"""How long a client may keep the 2026-07-28 ``tools/list`` (one hour): the listing
never changes while the server runs, so only a redeployed design can make it stale."""
SESSION_META = "statetools/session"
OPENED_META = "statetools/opened"

UNKNOWN_SESSION = (
    'Unknown or expired session. Leave out "session" to start a new one '
    "(tools opened in the old one are locked again there)."
)
CALL_THESE = "[call these with call_tool:]"


def session_started(handle: str, argument: str) -> str:
    """The line that hands a new session's handle to the client.

    >>> session_started("Xy3", "session")
    '[session started: pass session="Xy3" in every later call]'
    """
    return f'[session started: pass {argument}="{handle}" in every later call]'


def sessions_full(limit: int, ttl: float) -> str:
    """The answer when no session can be started: the table is full.

    >>> sessions_full(1000, 1800.0)
    'No session could be started: the server has 1,000 open sessions, its limit. Try again later (a session closes after 30 minutes without calls).'
    """  # noqa: E501
    minutes = max(1, round(ttl / 60))
    return (
        f"No session could be started: the server has {limit:,} open sessions, its limit. "
        f"Try again later (a session closes after {minutes} minutes without calls)."
    )


def definition_line(definition: ToolDefinition) -> str:
    """A tool's definition as one JSON line (what ``describe_tool`` answers).

    >>> definition_line(ToolDefinition("ping", "Ping.", {"type": "object"}))
    '{"name":"ping","description":"Ping.","inputSchema":{"type":"object"}}'
    """
    return json.dumps(
        {
            "name": definition.name,
            "description": definition.description,
            "inputSchema": definition.input_schema,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def _mcp_tool(definition: ToolDefinition) -> dict[str, Any]:
    return {
        "name": definition.name,
        "description": definition.description,
        "inputSchema": definition.input_schema,
    }


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def stable_listing(first: Shown, argument: str) -> types.ListToolsResult:
    """The ``tools/list`` of every 2026-07-28 client: ``first`` (the tools a fresh
    session shows, each with the optional handle ``argument``), then the meta tools.

    >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
    >>> listing = stable_listing(Shown.of([ping]), "session")
    >>> [t.name for t in listing.tools], listing.ttl_ms, listing.cache_scope
    (['ping', 'describe_tool', 'call_tool'], 3600000, 'public')
    """
    handle = {
        "type": "string",
        "description": (
            "Your session handle, given by an earlier result of this server "
            '("[session started: ...]"). Leave it out on your first call.'
        ),
    }
    tools = [_with_handle(d, argument, handle) for d in first.definitions]
    tools.append(
        types.Tool(
            name=DESCRIBE_TOOL,
            description=(
                "Show the definition (description and arguments) of a tool of this "
                "server: one of your list, or one a result said is now available."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name"},
                    argument: handle,
                },
                "required": ["name"],
            },
        )
    )
    tools.append(
        types.Tool(
            name=CALL_TOOL,
            description=(
                "Call a tool of this server by name: one a result said is now "
                "available, which is not in your list."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name"},
                    "arguments": {
                        "type": "object",
                        "description": "The tool's arguments, by name",
                    },
                    argument: handle,
                },
                "required": ["name"],
            },
        )
    )
    return types.ListToolsResult(tools=tools, ttl_ms=LIST_TTL_MS, cache_scope="public")


def _with_handle(definition: ToolDefinition, argument: str, handle: Any) -> types.Tool:
    schema = dict(definition.input_schema)
    schema["properties"] = {**schema.get("properties", {}), argument: handle}
    return types.Tool(name=definition.name, description=definition.description, input_schema=schema)


class _Stable:
    """The 2026-07-28 side of one server lifespan: the listing (made once per server),
    and the sessions by handle."""

    def __init__(
        self,
        listing: types.ListToolsResult,
        new_session: Callable[[], _Session],
        *,
        argument: str,
        limit: int,
        ttl: float,
        clock: Callable[[], float],
    ) -> None:
        self.argument = argument
        self.new_session = new_session
        self.handles: _Handles[_Session] = _Handles(limit=limit, ttl=ttl, clock=clock)
        self.result = listing
        self.listed = frozenset(t.name for t in listing.tools[:-2])

    @staticmethod
    def check_names(entries: Mapping[str, Any], argument: str) -> None:
        """Refuse a design whose tool names or arguments clash with the gateway's."""
        for name in (DESCRIBE_TOOL, CALL_TOOL):
            if name in entries:
                raise StatetoolsError(
                    f"the design has a tool named '{name}', the name of a gateway meta tool",
                    path=f"disclosure_server.{name}",
                    hint="rename that tool: 2026-07-28 clients call opened tools through it",
                )
        for name, entry in entries.items():
            schema = getattr(getattr(entry, "tool", None), "input_schema", None)
            properties = schema.get("properties") if isinstance(schema, Mapping) else None
            if isinstance(properties, Mapping) and argument in properties:
                raise StatetoolsError(
                    f"tool '{name}' has an argument named '{argument}', the argument "
                    "2026-07-28 clients pass their session handle in",
                    path=f"disclosure_server.{name}",
                    hint="pass session_argument='...' with a name no tool uses",
                )

    # calls --------------------------------------------------------------------------

    async def call(self, name: str, arguments: Mapping[str, Any]) -> types.CallToolResult:
        """Answer one ``tools/call`` of a 2026-07-28 client."""
        handle = arguments.get(self.argument)
        if name in (DESCRIBE_TOOL, CALL_TOOL):
            target = arguments.get("name")
            if not isinstance(target, str) or not target:
                what = "a tool" if name == DESCRIBE_TOOL else "the tool to call"
                return _error(f'{name} needs "name": the name of {what}.')
            given = arguments.get("arguments", {})
            if name == CALL_TOOL and not isinstance(given, Mapping):
                return _error(f"{name}'s \"arguments\" must be an object: the tool's arguments.")
            tool_arguments = dict(given) if isinstance(given, Mapping) else {}
        else:
            target = name
            tool_arguments = {k: v for k, v in arguments.items() if k != self.argument}
        if handle is not None:
            session = self.handles.find(handle)
            if session is None:
                return _error(UNKNOWN_SESSION)
            assert isinstance(handle, str)
            if name == DESCRIBE_TOOL:
                async with session.lock:
                    return self._describe(session, target, handle)
            with self.handles.using(handle):
                answer = await session.call(target, tool_arguments)
            return self._wire(answer, handle, started=False)
        fresh = self.new_session()
        if name == DESCRIBE_TOOL:
            return self._describe(fresh, target, None)
        admitted = fresh.admit(target)
        if isinstance(admitted, Refusal):
            return _error(admitted.text)  # nothing ran: no session to keep
        opened = self.handles.open(lambda: fresh)
        if opened is None:
            return _error(sessions_full(self.handles.limit, self.handles.ttl))
        handle = opened[0]
        with self.handles.using(handle):
            answer = await fresh.call(target, tool_arguments)
        return self._wire(answer, handle, started=True)

    def _describe(self, session: _Session, name: str, handle: str | None) -> types.CallToolResult:
        shown = session.scheduler.shown()
        if name in shown.names:
            definition = shown.definitions[shown.names.index(name)]
        else:
            admitted = session.admit(name)
            if isinstance(admitted, Refusal):
                return _error(admitted.text)
            definition = admitted.definition
        result = ToolResult.text(definition_line(definition))
        return self._finish(wire_content(result), handle, ())

    def _wire(self, answer: _Answer, handle: str, *, started: bool) -> types.CallToolResult:
        result = answer.result
        after = answer.after
        new: list[str] = []
        if answer.changed:  # work grows with what changed, not with what is shown
            before = set(answer.before.names)
            new = [n for n in after.names if n not in before and n not in self.listed]
        opened: tuple[ToolDefinition, ...] = ()
        lines = [result.text] if result.text else []
        if new:
            shown_now = dict(zip(after.names, after.definitions, strict=True))
            opened = tuple(shown_now[n] for n in new)
            lines.append(CALL_THESE)
            lines.extend(definition_line(d) for d in opened)
        if started:
            lines.append(session_started(handle, self.argument))
        wire = wire_content(result.with_text("\n".join(lines)))
        return self._finish(wire, handle, opened)

    def _finish(
        self, wire: dict[str, Any], handle: str | None, opened: tuple[ToolDefinition, ...]
    ) -> types.CallToolResult:
        meta: dict[str, Any] = {}
        if handle is not None:
            meta[SESSION_META] = handle
        if opened:
            meta[OPENED_META] = [_mcp_tool(d) for d in opened]
        if meta:
            wire["_meta"] = meta
        return types.CallToolResult.model_validate(wire, by_name=False)
