"""A design with an MCP facade over an in-process MCP server, for a Temporal session.

``LISTED`` notes, for each listing of the server, whether it ran in an activity (in a
Temporal session it must: never in the workflow).
"""

from __future__ import annotations

from typing import Any

from temporalio import activity

import statetools as st
from statetools.temporal import ScriptByRequest
from tests.mcp.upstream import Notes

LISTED: list[str] = []


class WatchedNotes(Notes):
    """The notes server, noting where each listing is asked for."""

    async def _list(self, ctx: Any, params: Any) -> Any:
        LISTED.append("an activity" if activity.in_activity() else "elsewhere")
        return await super()._list(ctx, params)


SERVER = st.mcp.MCPServer.in_process(WatchedNotes().server, name="notes")
DESIGN = [SERVER.facade("Read and write notes.")]
STEPS: list[Any] = [
    ("notes", {}),
    ("read_note", {"key": "a"}),
    "Note a says: buy milk.",
]
MODEL = ScriptByRequest(STEPS)
