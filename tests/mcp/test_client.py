"""MCP servers as statetools tools: real servers over stdio, and an in-process one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import statetools as st
from statetools.models import ScriptedModel
from tests.mcp.upstream import GIT_SERVER, TIME_SERVER, Notes, git, kill_children, make_repo

GIT_READ = ["git_status", "git_diff_unstaged", "git_diff_staged", "git_diff"]
GIT_READ += ["git_log", "git_show", "git_branch"]
GIT_WRITE = ["git_commit", "git_add", "git_reset", "git_create_branch", "git_checkout"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def tool_texts(result: st.LoopResult) -> list[tuple[str, str, bool]]:
    return [(m.name, m.content, m.is_error) for m in result.messages if m.role == "tool"]


def test_a_run_unfolds_the_git_facade_and_reads_a_real_repository(repo: Path) -> None:
    server = st.mcp.MCPServer.stdio(GIT_SERVER, name="git")
    facade = server.facade(by="annotations")
    head = git(repo, "rev-parse", "HEAD")
    model = ScriptedModel(
        [
            ("git", {"category": "read"}),
            ("git_status", {"repo_path": str(repo)}),
            ("git_log", {"repo_path": str(repo), "max_count": 1}),
            "One commit, one untracked file.",
        ]
    )
    result = st.ToolLoop(model).run("What is the state of the repo?", tools=[facade])

    assert result.output == "One commit, one untracked file."
    assert tool_texts(result) == [
        ("git", "Tools now available: " + ", ".join(GIT_READ) + ".", False),
        (
            "git_status",
            "Repository status:\nOn branch main\nUntracked files:\n"
            '  (use "git add <file>..." to include in what will be committed)\n'
            "\tdraft.txt\n\n"
            'nothing added to commit but untracked files present (use "git add" to track)',
            False,
        ),
        (
            "git_log",
            f"Commit history:\nCommit: {head}\nAuthor: Ada\n"
            "Date: 2026-01-02 03:04:05+00:00\nMessage: Add notes\n\n",
            False,
        ),
    ]
    assert model.requests[0].tool_names == ["git"]
    assert model.requests[1].tool_names == GIT_READ
    assert server.listing is not None
    assert server._link is None


def test_by_annotations_puts_git_commit_under_write() -> None:
    async def main() -> st.UnfoldingTool:
        async with st.mcp.MCPServer.stdio(GIT_SERVER, name="git") as server:
            await server.list_tools()
            return server.facade(by="annotations")

    facade = asyncio.run(main())
    assert facade.name == "git"
    assert facade.input_schema["properties"]["category"]["enum"] == ["read", "write"]
    assert facade.categories == (("read", tuple(GIT_READ)), ("write", tuple(GIT_WRITE)))


def test_git_tools_keep_the_servers_schema_and_annotations() -> None:
    async def main() -> list[st.mcp.MCPTool]:
        async with st.mcp.MCPServer.stdio(GIT_SERVER, name="git") as server:
            return await server.list_tools()

    tools = {tool.name: tool for tool in asyncio.run(main())}
    commit = tools["git_commit"]
    assert commit.input_schema["required"] == ["repo_path", "message"]
    assert commit.annotations == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    }
    assert commit.metadata.category == "write"
    assert tools["git_status"].metadata.category == "read"


def test_time_server_through_a_facade_and_its_own_error_for_bad_arguments() -> None:
    server = st.mcp.MCPServer.stdio(TIME_SERVER, name="time")
    model = ScriptedModel(
        [
            ("time", {}),
            ("get_current_time", {"timezone": "Europe/Paris"}),
            (
                "convert_time",
                {"source_timezone": "Mars/Olympus", "time": "25:99", "target_timezone": "UTC"},
            ),
            "Done.",
        ]
    )
    result = st.ToolLoop(model).run("Time?", tools=[server.facade()])
    opened, now, converted = tool_texts(result)
    assert opened == ("time", "Tools now available: get_current_time, convert_time.", False)
    assert now[0] == "get_current_time"
    assert now[2] is False
    payload = json.loads(now[1])
    assert sorted(payload) == ["datetime", "day_of_week", "is_dst", "timezone"]
    assert payload["timezone"] == "Europe/Paris"
    assert converted == (
        "convert_time",
        "Error executing tool convert_time: Invalid timezone: "
        "'No time zone found with key Mars/Olympus'",
        True,
    )


def test_a_killed_server_is_restarted_once_then_its_calls_fail_clearly() -> None:
    server = st.mcp.MCPServer.stdio(TIME_SERVER, name="time")
    call = ("get_current_time", {"timezone": "UTC"})
    killed: list[int] = []

    def kill_then_call(request: object) -> tuple[str, dict[str, str]]:
        killed.append(kill_children("mcp-server-time"))
        return call

    model = ScriptedModel([("time", {}), kill_then_call, kill_then_call, call, "Gave up."])
    result = st.ToolLoop(model).run("Time?", tools=[server.facade()])

    gone = (
        "MCP server 'time' stopped (Connection closed) and was already restarted once; "
        "its tools cannot be used in this run."
    )
    assert killed == [1, 1]
    texts = tool_texts(result)
    assert texts[1][2] is False
    assert json.loads(texts[1][1])["timezone"] == "UTC"
    assert texts[2:] == [("get_current_time", gone, True), ("get_current_time", gone, True)]
    assert result.output == "Gave up."


def test_in_process_listing_results_and_meta() -> None:
    notes = Notes()
    server = st.mcp.MCPServer.in_process(notes.server, name="notes", forward_context=["tenant"])

    async def main() -> list[st.ToolResult]:
        async with server:
            read, write = await server.list_tools()
            assert (read.name, write.name, write.remote_name) == (
                "read_note",
                "write_note",
                "write.note",
            )
            assert write.title == "Write a note"
            context = st.ToolCallContext({"tenant": "acme", "secret": "x"})
            return [
                await read.acall({"key": "a"}, context),
                await read.acall('{"key": "b"}'),
                await write.acall({"text": "hi"}),
                await read.acall("{not json"),
            ]

    found, missing, written, bad = asyncio.run(main())
    assert (found.text, found.value, found.is_error) == (
        "Note a: buy milk",
        {"key": "a", "text": "buy milk"},
        False,
    )
    assert (missing.text, missing.is_error) == ("No note b", True)
    assert (written.text, written.value) == ("write.note ok", None)
    assert bad.is_error
    assert bad.text.startswith("Invalid arguments for tool 'read_note'")
    assert notes.metas == [{"tenant": "acme"}, {}, {}]


def test_the_connection_is_lazy_kept_for_the_run_and_closed_at_its_end() -> None:
    notes = Notes()
    server = st.mcp.MCPServer.in_process(notes.server, name="notes")
    facade = server.facade()
    assert server._link is None
    assert facade.inner == ()
    seen: list[bool] = []

    def look(request: object) -> tuple[str, dict[str, str]]:
        seen.append(server._link is not None and server._link.alive)
        return ("read_note", {"key": "a"})

    model = ScriptedModel([("notes", {}), look, look, "ok"])
    st.ToolLoop(model).run("hi", tools=[facade])
    assert seen == [True, True]
    assert server._link is None


def test_tools_list_changed_makes_the_facade_list_again() -> None:
    notes = Notes()
    server = st.mcp.MCPServer.in_process(notes.server, name="notes")

    async def grow(request: object) -> tuple[str, dict[str, object]]:
        await notes.grow()
        for _ in range(100):
            if server.stale:
                break
            await asyncio.sleep(0.01)
        return ("notes", {})

    model = ScriptedModel([("notes", {}), grow, ("delete_note", {}), "ok"])
    result = asyncio.run(st.ToolLoop(model).arun("hi", tools=[server.facade()]))
    assert tool_texts(result) == [
        ("notes", "Tools now available: read_note, write_note.", False),
        ("notes", "Tools now available: read_note, write_note, delete_note.", False),
        ("delete_note", "delete_note ok", False),
    ]


def test_a_server_that_cannot_start_gives_an_error_result_and_the_run_goes_on() -> None:
    server = st.mcp.MCPServer.stdio("/nonexistent/mcp-server", name="ghost")
    model = ScriptedModel([("ghost", {}), "No tools."])
    result = st.ToolLoop(model).run("hi", tools=[server.facade()])
    [(name, text, is_error)] = tool_texts(result)
    assert (name, is_error) == ("ghost", True)
    assert text.startswith("cannot connect to MCP server 'ghost' (/nonexistent/mcp-server): ")
    assert result.output == "No tools."


def test_import_statetools_does_not_import_mcp() -> None:
    import subprocess
    import sys

    code = "import sys, statetools; print('mcp' in sys.modules, 'statetools.mcp' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "False False\n"


def test_a_search_facade_over_a_listed_server(repo: Path) -> None:
    server = st.mcp.MCPServer.stdio(GIT_SERVER, name="git")
    with pytest.raises(st.DefinitionError) as caught:
        server.facade(search=True)
    assert str(caught.value) == (
        "mcp server 'git': a search facade needs the server's tools to build its index "
        "Hint: await server.list_tools() first, or load a saved listing"
    )
    model = ScriptedModel(
        [
            ("git", {"query": "commit logs"}),
            ("git_log", {"repo_path": str(repo), "max_count": 1}),
            "One commit.",
        ]
    )

    async def main() -> st.LoopResult:
        async with server:
            await server.list_tools()
            facade = server.facade(search=True, max_results=2)
            return await st.ToolLoop(model).arun("history?", tools=[facade])

    result = asyncio.run(main())
    found, log = tool_texts(result)
    assert found == (
        "git",
        'Tools matching "commit logs", best first:\n'
        "- git_log: Shows the commit logs\n"
        "- git_commit: Records changes to the repository\n"
        "Tools now available: git_log, git_commit.",
        False,
    )
    assert log[0] == "git_log"
    assert log[1].startswith("Commit history:\nCommit: ")


def test_listed_tools_follow_the_servers_changes_with_the_strategy() -> None:
    notes = Notes()
    server = st.mcp.MCPServer.in_process(notes.server, name="notes")

    async def grow(request: object) -> tuple[str, dict[str, str]]:
        version = server.version
        await notes.grow()
        for _ in range(200):
            if server.version > version:
                break
            await asyncio.sleep(0.01)
        return ("read_note", {"key": "a"})

    async def main() -> tuple[st.LoopResult, ScriptedModel]:
        async with server:
            tools = await server.list_tools()
            model = ScriptedModel([("read_note", {"key": "a"}), grow, ("delete_note", {}), "ok"])
            loop = st.ToolLoop(model, strategies=[server.follow_changes()])
            return await loop.arun("hi", tools=tools), model

    result, model = asyncio.run(main())
    assert [r.tool_names for r in model.requests] == [
        ["read_note", "write_note"],
        ["read_note", "write_note"],
        ["read_note", "write_note", "delete_note"],
        ["read_note", "write_note", "delete_note"],
    ]
    assert tool_texts(result)[-1] == ("delete_note", "delete_note ok", False)
