"""Skills read back from a statetools gateway open the gateway's tools: loading the
skill reads its section in the client's gateway session (a 2025-era connection, or a
2026-07-28 handle), and its tools are called there. With the official SDK client in
memory and over streamable HTTP from `statetools serve` on 127.0.0.1.

This replaces the earlier test that read back only a gateway skill without
allowed-tools (the gateway lists a skill's tools only once it is loaded there, so a skill
naming tools could not be read back)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

import statetools as st
from statetools.models import ScriptedModel
from tests.mcp.test_skills_remote import STEPS, tool_messages
from tests.mcp.test_skills_served import (
    DESIGN,
    FIELDS,
    TOOLS_MODULE,
    fill_field,
    served_over_http,
    write_skills,
)

PROMPT = (
    "## pdf-forms (skill of MCP server 'forms')\n\n"
    "Fill in PDF forms.\n"
    '(Summary only: call load_skill with key "pdf-forms" to read it in full.)'
)

LOADED = (
    "## pdf-forms (skill of MCP server 'forms')\n\n"
    "[Skill skill://pdf-forms/SKILL.md from MCP server 'forms']\n\n"
    "Read references/fields.md, then call fill_field for each field."
)
FILES = "\n\nFiles of this skill (read them with read_skill_file):\n- references/fields.md"
"""Listed from the skill's skills/list entry; a 2025-era client reads skill://index.json
(it sees no extensions), which lists no files."""


def in_memory(server: Any, mode: str) -> st.mcp.MCPServer:
    def client(handler: Any) -> mcp.Client:
        return mcp.Client(server, mode=mode, message_handler=handler, cache=None)

    return st.mcp.MCPServer(client, name="forms", describe=f"gateway ({mode})")


def over_http(url: str, mode: str) -> st.mcp.MCPServer:
    @contextlib.asynccontextmanager
    async def streams() -> AsyncIterator[Any]:
        async with (
            create_mcp_http_client() as session,
            streamable_http_client(url, http_client=session) as opened,
        ):
            yield opened

    def client(handler: Any) -> mcp.Client:
        return mcp.Client(streams(), mode=mode, message_handler=handler, cache=None)

    return st.mcp.MCPServer(client, name="forms", describe=url)


def check_run(server: st.mcp.MCPServer, mode: str) -> None:
    remote = asyncio.run(server.skills())
    model = ScriptedModel(list(STEPS))
    result = st.ToolLoop(model).run("Fill my form", tools=[remote])
    assert model.requests[0].messages[0].content == PROMPT
    assert [request.tool_names for request in model.requests] == [
        ["load_skill"],
        ["load_skill", "fill_field", "read_skill_file"],
        ["load_skill", "fill_field", "read_skill_file"],
        ["load_skill", "fill_field", "read_skill_file"],
    ]
    fill = next(t for t in model.requests[1].tools if t.name == "fill_field")
    assert (fill.description, sorted(fill.input_schema["properties"])) == (
        "Fill a form field.",
        ["field", "value"],  # no session argument: the handle is kept for the model
    )
    loaded = LOADED + (FILES if mode == "auto" else "")
    assert tool_messages(result) == [
        ("load_skill", loaded + "\n[now available: fill_field, read_skill_file]", False),
        ("read_skill_file", FIELDS, False),
        ("fill_field", "name=Ada", False),  # ran in the gateway: the skill opened it there
    ]
    assert result.output == "Done."


MODES = ["auto", "legacy"]


@pytest.mark.parametrize("mode", MODES)
def test_a_gateways_skill_opens_its_tools_in_memory(tmp_path: Path, mode: str) -> None:
    skills = st.load_skills(write_skills(tmp_path), tools=[fill_field])
    check_run(in_memory(st.mcp.disclosure_server([skills]), mode), mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_gateways_skill_tool_is_locked_until_loaded(tmp_path: Path, mode: str) -> None:
    """Locked here before loading (never sent), and the gateway still enforces: a
    client that did not load the skill there cannot call the tool."""
    skills = st.load_skills(write_skills(tmp_path), tools=[fill_field])
    gateway = st.mcp.disclosure_server([skills])
    remote = asyncio.run(in_memory(gateway, mode).skills())
    model = ScriptedModel([("fill_field", {"field": "name", "value": "Ada"}), "Done."])
    result = st.ToolLoop(model).run("Fill", tools=[remote])
    assert tool_messages(result) == [
        (
            "fill_field",
            "Tool 'fill_field' is locked. Call first: load_skill with key \"pdf-forms\".",
            True,
        )
    ]

    async def direct() -> tuple[bool, str]:
        async with mcp.Client(gateway, mode=mode) as client:
            answer = await client.call_tool("fill_field", {"field": "name", "value": "Ada"})
            return answer.is_error, answer.content[0].text  # type: ignore[union-attr]

    assert asyncio.run(direct()) == (
        True,
        "Tool 'fill_field' is locked. Call first: load_skill with key \"pdf-forms\".",
    )


@pytest.mark.parametrize("mode", MODES)
def test_two_runs_each_open_the_skill_in_their_own_session(tmp_path: Path, mode: str) -> None:
    skills = st.load_skills(write_skills(tmp_path), tools=[fill_field])
    server = in_memory(st.mcp.disclosure_server([skills]), mode)
    remote = asyncio.run(server.skills())
    for _ in range(2):
        model = ScriptedModel(
            [
                ("load_skill", {"key": "pdf-forms"}),
                ("fill_field", {"field": "date", "value": "today"}),
                "Done.",
            ]
        )
        result = st.ToolLoop(model).run("Fill", tools=[remote])
        assert tool_messages(result)[1] == ("fill_field", "date=today", False)


@pytest.fixture
def gateway_url(tmp_path: Path) -> Iterator[str]:
    write_skills(tmp_path)
    (tmp_path / "forms_tools.py").write_text(TOOLS_MODULE)
    design = tmp_path / "forms.yaml"
    design.write_text(DESIGN)
    with served_over_http(design) as url:
        yield url


@pytest.mark.parametrize("mode", MODES)
def test_a_skill_from_statetools_serve_opens_its_tools_over_http(
    gateway_url: str, mode: str
) -> None:
    check_run(over_http(gateway_url, mode), mode)


def test_an_expired_gateway_session_is_said_and_loading_again_starts_a_new_one(
    tmp_path: Path,
) -> None:
    now = [0.0]
    skills = st.load_skills(write_skills(tmp_path), tools=[fill_field])
    gateway = st.mcp.disclosure_server([skills], session_ttl=60.0, clock=lambda: now[0])
    remote = asyncio.run(in_memory(gateway, "auto").skills())

    def later(request: Any) -> Any:
        now[0] += 61.0  # the gateway's session expires between two calls
        return ("fill_field", {"field": "date", "value": "today"})

    model = ScriptedModel(
        [
            ("load_skill", {"key": "pdf-forms"}),
            ("fill_field", {"field": "name", "value": "Ada"}),
            later,
            ("load_skill", {"key": "pdf-forms"}),
            ("fill_field", {"field": "date", "value": "today"}),
            "Done.",
        ]
    )
    result = st.ToolLoop(model).run("Fill", tools=[remote])
    assert [m[1:] for m in tool_messages(result)][1:] == [
        ("name=Ada", False),
        (
            "The session of MCP server 'forms' expired, which locked 'fill_field' there "
            "again. Load its skill again, then call 'fill_field' again.",
            True,
        ),
        (LOADED + FILES, False),
        ("date=today", False),
    ]
