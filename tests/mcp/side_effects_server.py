"""An MCP server over stdio whose tools leave side effects in a file (the MCP tests
kill it while a call is running, to see whether the call is sent again).

``python side_effects_server.py LOG`` serves ``append`` (writes a line to LOG, then
waits for a minute before answering: the test kills the process meanwhile),
``append_quickly`` (the same without the wait) and ``count`` (read-only: the number of
lines, after the same wait when LOG.slow exists)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

LOG = Path(sys.argv[1])
server = MCPServer("side_effects")


def _lines() -> int:
    return len(LOG.read_text().splitlines()) if LOG.exists() else 0


@server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
def append(text: str) -> str:
    """Append a line to the log."""
    with LOG.open("a") as log:
        log.write(f"{text}\n")
    time.sleep(60)
    return f"appended {text}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False))
def append_quickly(text: str) -> str:
    """Append a line to the log, at once."""
    with LOG.open("a") as log:
        log.write(f"{text}\n")
    return f"appended {text}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def count() -> str:
    """Count the lines of the log."""
    marker = LOG.with_suffix(".slow")
    if marker.exists():
        marker.unlink()
        LOG.with_suffix(".counting").write_text("yes")
        time.sleep(60)
    return f"{_lines()} lines"


if __name__ == "__main__":
    server.run()
