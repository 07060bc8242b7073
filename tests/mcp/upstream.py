"""Helpers for the MCP tests: real servers from the package index, a temp git
repository, and a small in-process server written with the SDK's low-level API."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp.types as types
from mcp.server import Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

BIN = Path(sys.executable).parent
GIT_SERVER = str(BIN / "mcp-server-git")
TIME_SERVER = str(BIN / "mcp-server-time")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_AUTHOR_DATE": "2026-01-02T03:04:05+00:00",
    "GIT_COMMITTER_DATE": "2026-01-02T03:04:05+00:00",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def make_repo(path: Path) -> Path:
    """A repository on branch main with one commit ('Add notes') and one untracked file."""
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "notes.txt").write_text("first\n")
    git(path, "add", "notes.txt")
    git(path, "commit", "-q", "-m", "Add notes")
    (path / "draft.txt").write_text("draft\n")
    return path


def kill_children(fragment: str) -> int:
    """Kill this process's children whose command line contains ``fragment``."""
    killed = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and fragment in command:
            os.kill(int(entry), signal.SIGKILL)
            killed += 1
    return killed


class Notes:
    """A low-level SDK server with two tools; ``grow()`` adds a third and tells
    listening clients that the tool list changed."""

    def __init__(self) -> None:
        self.tools = [
            types.Tool(
                name="read_note",
                description="Read a note",
                input_schema={
                    "type": "object",
                    "properties": {"key": {"type": "string"}},
                    "required": ["key"],
                },
                annotations=types.ToolAnnotations(read_only_hint=True),
            ),
            types.Tool(
                name="write.note",
                title="Write a note",
                description="Write a note",
                input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
                annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True),
            ),
        ]
        self.metas: list[dict[str, Any]] = []
        self.bus = InMemorySubscriptionBus()
        self.server: Server[Any] = Server(
            "notes",
            on_list_tools=self._list,
            on_call_tool=self._call,
            on_subscriptions_listen=ListenHandler(self.bus),
        )

    async def _list(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def _call(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        meta = dict(params.meta or {})
        self.metas.append({k: v for k, v in meta.items() if not k.startswith("io.")})
        args = params.arguments or {}
        if params.name == "read_note":
            if args.get("key") != "a":
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=f"No note {args.get('key')}")],
                    is_error=True,
                )
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="Note a: buy milk")],
                structured_content={"key": "a", "text": "buy milk"},
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{params.name} ok")]
        )

    async def grow(self) -> None:
        self.tools.append(
            types.Tool(
                name="delete_note",
                description="Delete a note",
                input_schema={"type": "object", "properties": {}},
            )
        )
        await self.bus.publish(ToolsListChanged())
