"""A stdio MCP server that writes a banner on stderr before serving, or with ``fail``
writes why and exits (tests/mcp/test_banners.py)."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

sys.stderr.write("BANNER: notes server 1.0 starting\n")
sys.stderr.flush()
if "fail" in sys.argv[1:]:
    sys.stderr.write("fatal: NOTES_TOKEN is not set\n")
    sys.exit(1)

server = MCPServer("notes")


@server.tool()
def read_note(key: str) -> str:
    """Read a note."""
    return f"note {key}"


if __name__ == "__main__":
    server.run()
