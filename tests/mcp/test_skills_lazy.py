"""Remote skills are read when needed (SEP-2640, "Lazy Retrieval"): skills() reads the
listing only; a skill's SKILL.md is read when the model first loads it, once, and kept;
a SKILL.md that cannot be read or does not check out is an error result the model sees,
and the run goes on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.server import Server

import statetools as st
from statetools.mcp.gateway import http_app
from statetools.models import ModelCapabilities, ScriptedModel
from tests.local_asgi import asgi_served
from tests.mcp.test_skills_remote import GOOD_MD, INDEX, entry, serving, shop, tool_messages


def counting(server: Any) -> list[str]:
    """The URIs ``server`` is asked to read, in order (its resources/read, wrapped)."""
    low = getattr(server, "_lowlevel_server", server)
    earlier = low.get_request_handler("resources/read")
    assert earlier is not None
    reads: list[str] = []

    async def read(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        reads.append(params.uri)
        return await earlier.handler(ctx, params)

    low.add_request_handler("resources/read", types.ReadResourceRequestParams, read)
    return reads


LOADED = (
    "## pdf-forms (skill of MCP server 'forms')\n\n"
    "[Skill skill://pdf-forms/SKILL.md from MCP server 'forms']\n\n"
    "Read references/fields.md, then call fill_field for each field.\n\n"
    "Files of this skill (read them with read_skill_file):\n"
    "- references/fields.md"
)


def test_skill_md_is_read_when_first_loaded_and_once(tmp_path: Path) -> None:
    upstream = shop(tmp_path)
    reads = counting(upstream)
    remote = asyncio.run(st.mcp.MCPServer.in_process(upstream, name="forms").skills())
    assert reads == []  # the listing (skills/list) names and summarizes; nothing is read

    model = ScriptedModel(
        [
            ("load_skill", {"key": "pdf-forms"}),
            ("load_skill", {"key": "pdf-forms"}),
            ("fill_field", {"field": "name", "value": "Ada"}),
            "Done.",
        ]
    )
    result = st.ToolLoop(model).run("Fill my form", tools=[remote])
    assert reads == ["skill://pdf-forms/SKILL.md"]
    assert tool_messages(result) == [
        ("load_skill", LOADED + "\n[now available: fill_field, read_skill_file]", False),
        ("load_skill", LOADED, False),
        ("fill_field", "name=Ada", False),
    ]

    # kept with the skills: another run loads it without reading it again
    again = ScriptedModel([("load_skill", {"key": "pdf-forms"}), "Done."])
    st.ToolLoop(again).run("Fill", tools=[remote])
    assert reads == ["skill://pdf-forms/SKILL.md"]


def test_a_static_model_restarts_with_the_read_skill_in_its_prompt(tmp_path: Path) -> None:
    """A model that cannot take new tools mid-conversation gets the loaded skill's
    text in the system prompt (read once, for the result and the prompt alike)."""
    upstream = shop(tmp_path)
    reads = counting(upstream)
    remote = asyncio.run(st.mcp.MCPServer.in_process(upstream, name="forms").skills())
    static = ModelCapabilities(supports_dynamic_tools=False)
    model = ScriptedModel([("load_skill", {"key": "pdf-forms"}), "Done."], capabilities=static)
    st.ToolLoop(model).run("Fill my form", tools=[remote])
    assert model.requests[1].messages[0].content == LOADED
    assert reads == ["skill://pdf-forms/SKILL.md"]


def missing() -> Server[Any]:
    """Lists the skill tone but cannot read its SKILL.md."""
    return serving({}, entries=[entry()])


def test_a_skill_md_that_cannot_be_read_is_an_error_result_and_read_again() -> None:
    upstream = missing()
    reads = counting(upstream)
    remote = asyncio.run(st.mcp.MCPServer.in_process(upstream, name="bad").skills())
    model = ScriptedModel(
        [("load_skill", {"key": "tone"}), ("load_skill", {"key": "tone"}), "Going on."]
    )
    result = st.ToolLoop(model).run("Write", tools=[remote])
    text = (
        "Cannot load skill 'tone' of MCP server 'bad': cannot read skill://tone/SKILL.md "
        "from MCP server 'bad': no skill://tone/SKILL.md. Go on without it, or load it "
        "again later."
    )
    assert tool_messages(result) == [("load_skill", text, True), ("load_skill", text, True)]
    assert reads == ["skill://tone/SKILL.md", "skill://tone/SKILL.md"]  # not kept: tried again
    assert result.output == "Going on."
    assert model.requests[2].tool_names == ["load_skill"]  # nothing opened


def index_with(md: str) -> Callable[[], Server[Any]]:
    return lambda: serving({"skill://index.json": INDEX, "skill://tone/SKILL.md": md})


READ_CASES: list[tuple[str, Callable[[], Server[Any]], str]] = [
    (
        "SKILL.md without front matter",
        index_with("Be brief.\n"),
        "skill://tone/SKILL.md: SKILL.md does not start with front matter",
    ),
    (
        "SKILL.md naming another skill",
        index_with("---\nname: voice\ndescription: V.\n---\nx\n"),
        "skill://tone/SKILL.md: the skill name 'voice' differs from its folder 'tone'",
    ),
    (
        "allowed-tools the server lacks",
        index_with("---\nname: tone\ndescription: T.\nallowed-tools: send_mail\n---\nx\n"),
        "skill://tone/SKILL.md: allowed-tools names tools the server does not have: send_mail",
    ),
    (
        "digest that does not match",
        lambda: serving(
            {"skill://tone/SKILL.md": GOOD_MD.replace("brief", "long")}, entries=[entry()]
        ),
        "skill://tone/SKILL.md: what was read (47 bytes) differs from the skill's entry "
        "(48 bytes, sha256:c903d393d764...)",
    ),
    (
        "front matter that differs from the entry",
        lambda: serving(
            {"skill://tone/SKILL.md": GOOD_MD},
            entries=[entry(frontmatter={"name": "tone", "description": "Voice."})],
        ),
        "skill://tone/SKILL.md: its front matter differs from the skill's entry",
    ),
]


@pytest.mark.parametrize(("case", "server", "why"), READ_CASES, ids=[c[0] for c in READ_CASES])
def test_a_skill_md_that_does_not_check_out_is_an_error_result(
    case: str, server: Callable[[], Server[Any]], why: str
) -> None:
    remote = asyncio.run(st.mcp.MCPServer.in_process(server(), name="bad").skills())
    model = ScriptedModel([("load_skill", {"key": "tone"}), "Going on."])
    result = st.ToolLoop(model).run("Write", tools=[remote])
    assert tool_messages(result) == [
        (
            "load_skill",
            f"Cannot load skill 'tone' of MCP server 'bad': {why}. Go on without it, or "
            "load it again later.",
            True,
        )
    ]
    assert result.output == "Going on."


def test_a_server_gone_before_the_skill_is_loaded_is_an_error_result(tmp_path: Path) -> None:
    with asgi_served(http_app(shop(tmp_path))) as base:  # the server stops at the block's end
        url = f"{base}/mcp"
        forms = st.mcp.MCPServer.http(url, name="forms")
        remote = asyncio.run(forms.skills())

    model = ScriptedModel([("load_skill", {"key": "pdf-forms"}), "Going on."])
    result = st.ToolLoop(model).run("Fill my form", tools=[remote])
    [(name, text, is_error)] = tool_messages(result)
    assert (name, is_error) == ("load_skill", True)
    assert text.startswith(
        "Cannot load skill 'pdf-forms' of MCP server 'forms': cannot connect to MCP server "
        f"'forms' ({url}): "
    )
    assert text.endswith(". Go on without it, or load it again later.")
    assert result.output == "Going on."
    assert model.requests[1].tool_names == ["load_skill"]
