"""Skills over MCP, read: MCPServer(...).skills() gives st.Sections whose skills open
the server's tools through load_skill as local skills open theirs; bad indexes, entries
and SKILL.md files are SpecErrors naming the server and the URI."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import MCPError
from mcp.server import Server
from mcp.server.mcpserver import MCPServer as FastServer
from mcp_types import INVALID_PARAMS

import statetools as st
from statetools.mcp.gateway import http_app
from statetools.models import ScriptedModel
from tests.local_asgi import asgi_served
from tests.mcp.test_skills_served import (
    FIELDS,
    PDF,
    fill_field,
    write_skills,
)


def shop(root: Path) -> FastServer:
    """An SDK server with the tool fill_field and the pdf-forms skill naming it."""
    upstream = FastServer("forms")
    upstream.tool()(fill_field)
    st.mcp.publish_skills(upstream, [st.load_skills(write_skills(root), tools=[fill_field])])
    return upstream


STEPS: list[Any] = [
    ("load_skill", {"key": "pdf-forms"}),
    ("read_skill_file", {"skill": "pdf-forms", "path": "references/fields.md"}),
    ("fill_field", {"field": "name", "value": "Ada"}),
    "Done.",
]


def run(sections: st.Sections) -> tuple[ScriptedModel, st.LoopResult]:
    model = ScriptedModel(list(STEPS))
    result = st.ToolLoop(model).run("Fill my form", tools=[sections])
    return model, result


def tool_messages(result: st.LoopResult) -> list[tuple[str | None, str, bool]]:
    return [(m.name, m.content, m.is_error) for m in result.messages if m.role == "tool"]


def test_a_remote_skill_opens_its_servers_tools_like_a_local_skill(tmp_path: Path) -> None:
    server = st.mcp.MCPServer.in_process(shop(tmp_path / "remote"), name="forms")
    remote = asyncio.run(server.skills())
    model, result = run(remote)

    assert model.requests[0].messages[0].content == (
        "## pdf-forms (skill of MCP server 'forms')\n\n"
        "Fill in PDF forms.\n"
        '(Summary only: call load_skill with key "pdf-forms" to read it in full.)'
    )
    assert [request.tool_names for request in model.requests] == [
        ["load_skill"],
        ["load_skill", "fill_field", "read_skill_file"],
        ["load_skill", "fill_field", "read_skill_file"],
        ["load_skill", "fill_field", "read_skill_file"],
    ]
    assert tool_messages(result) == [
        (
            "load_skill",
            "## pdf-forms (skill of MCP server 'forms')\n\n"
            "[Skill skill://pdf-forms/SKILL.md from MCP server 'forms']\n\n"
            "Read references/fields.md, then call fill_field for each field.\n\n"
            "Files of this skill (read them with read_skill_file):\n"
            "- references/fields.md\n"
            "[now available: fill_field, read_skill_file]",
            False,
        ),
        ("read_skill_file", FIELDS, False),
        ("fill_field", "name=Ada", False),
    ]
    assert result.output == "Done."

    # the same folder loaded locally opens the same tools at the same turns
    local_model, local = run(st.load_skills(write_skills(tmp_path / "local"), tools=[fill_field]))
    assert [r.tool_names for r in local_model.requests] == [r.tool_names for r in model.requests]
    assert [m[1] for m in tool_messages(local)][1:] == [m[1] for m in tool_messages(result)][1:]


def test_remote_skills_before_loading_lock_the_tool(tmp_path: Path) -> None:
    server = st.mcp.MCPServer.in_process(shop(tmp_path), name="forms")
    remote = asyncio.run(server.skills())
    model = ScriptedModel([("fill_field", {"field": "name", "value": "Ada"}), "Done."])
    result = st.ToolLoop(model).run("Fill", tools=[remote])
    assert tool_messages(result) == [
        (
            "fill_field",
            "Tool 'fill_field' is locked. Call first: load_skill with key \"pdf-forms\".",
            True,
        )
    ]


def test_remote_skill_files_stay_inside_the_skill_and_its_listing(tmp_path: Path) -> None:
    server = st.mcp.MCPServer.in_process(shop(tmp_path), name="forms")
    remote = asyncio.run(server.skills())
    reader = next(t for t in remote.common_tools if t.name == "read_skill_file")
    assert [
        reader.call({"skill": "pdf-forms", "path": path}).text
        for path in ("../secret.txt", "notes.md", "references/fields.md")
    ] + [reader.call({"skill": "travel", "path": "x.md"}).text] == [
        "Cannot read '../secret.txt': give a path inside the skill's folder, without '..'.",
        "Skill 'pdf-forms' has no file 'notes.md'. Its files: references/fields.md.",
        FIELDS,
        "No skill is named 'travel'. Skills: pdf-forms.",
    ]


@pytest.fixture
def shop_url(tmp_path: Path) -> Iterator[str]:
    """The SDK server of shop() over streamable HTTP on 127.0.0.1, in a thread."""
    with asgi_served(http_app(shop(tmp_path))) as base:
        yield f"{base}/mcp"


def test_a_remote_skill_over_streamable_http_opens_its_tool(shop_url: str) -> None:
    remote = asyncio.run(st.mcp.MCPServer.http(shop_url, name="forms").skills())
    model, result = run(remote)
    assert [request.tool_names for request in model.requests][1] == [
        "load_skill",
        "fill_field",
        "read_skill_file",
    ]
    assert [m[1] for m in tool_messages(result)][1:] == [FIELDS, "name=Ada"]


# malformed servers ------------------------------------------------------------------


def serving(files: dict[str, str], *, entries: list[Any] | None = None) -> Server[Any]:
    """A low-level SDK server serving ``files`` (URI -> text) and, when ``entries`` is
    given, skills/list with them (declaring the Skills extension)."""

    async def read(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if params.uri not in files:
            raise MCPError(code=INVALID_PARAMS, message=f"no {params.uri}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, text=files[params.uri])]
        )

    async def listed(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    server: Server[Any] = Server("bad", on_read_resource=read, on_list_resources=listed)
    if entries is not None:

        async def skills(ctx: Any, params: Any) -> dict[str, Any]:
            return {"skills": entries}

        server.add_request_handler("skills/list", types.PaginatedRequestParams, skills)
        server.extensions["io.modelcontextprotocol/skills"] = {}
    return server


def failure(server: Server[Any]) -> str:
    with pytest.raises(st.StatetoolsError) as caught:
        asyncio.run(st.mcp.MCPServer.in_process(server, name="bad").skills())
    return str(caught.value)


GOOD_MD = "---\nname: tone\ndescription: Tone.\n---\nBe brief.\n"


def entry(text: str = GOOD_MD, **change: Any) -> dict[str, Any]:
    data = text.encode()
    return {
        "uri": "skill://tone/SKILL.md",
        "frontmatter": {"name": "tone", "description": "Tone."},
        "resources": [
            {
                "uri": "skill://tone/SKILL.md",
                "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
                "size": len(data),
            }
        ],
        **change,
    }


INDEX = json.dumps(
    {
        "skills": [
            {"name": "tone", "type": "skill-md", "description": "T", "url": "skill://tone/SKILL.md"}
        ]
    }
)

CASES: list[tuple[str, Callable[[], Server[Any]], str]] = [
    (
        "no skills at all",
        lambda: serving({}),
        "mcp server 'bad': skill://index.json: the server serves no skills (no "
        "io.modelcontextprotocol/skills extension, and reading skill://index.json failed: "
        "cannot read skill://index.json from MCP server 'bad': no skill://index.json) "
        "Hint: check that the server publishes skills (SEP-2640)",
    ),
    (
        "index not JSON",
        lambda: serving({"skill://index.json": "{skills"}),
        "mcp server 'bad': skill://index.json: not JSON: Expecting property name enclosed "
        "in double quotes: line 1 column 2 (char 1) Hint: serve "
        '{"skills": [{"name", "type": "skill-md", "description", "url"}, ...]}',
    ),
    (
        "index entry without url",
        lambda: serving({"skill://index.json": '{"skills": [{"name": "tone"}]}'}),
        "mcp server 'bad': skill://index.json: skills[0].url: not the URI of a SKILL.md: "
        'None Hint: serve {"skills": [{"name", "type": "skill-md", "description", "url"}, ...]}',
    ),
    (
        "entry without resources",
        lambda: serving({}, entries=[{"uri": "skill://tone/SKILL.md", "frontmatter": {}}]),
        "mcp server 'bad': skills/list: skills[0]: a skill entry needs uri, frontmatter and "
        "resources Hint: fix the server",
    ),
    (
        "an entry whose allowed-tools the server lacks",
        lambda: serving(
            {},
            entries=[
                entry(frontmatter={"name": "tone", "description": "T", "allowed-tools": "mail"})
            ],
        ),
        "mcp server 'bad': skill://tone/SKILL.md: allowed-tools names tools the server does "
        "not have: mail Hint: a skill served over MCP opens tools of its own server; it "
        "lists: none",
    ),
]


@pytest.mark.parametrize(("case", "server", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_remote_skills_are_clear_errors(
    case: str, server: Callable[[], Server[Any]], message: str
) -> None:
    assert failure(server()) == message


def test_a_good_entry_from_skills_list_is_read(tmp_path: Path) -> None:
    remote = asyncio.run(
        st.mcp.MCPServer.in_process(
            serving({"skill://tone/SKILL.md": GOOD_MD}, entries=[entry()]), name="ok"
        ).skills()
    )
    assert remote.keys() == ["tone"]
    assert remote.common_tools == ()  # no files besides SKILL.md: no read_skill_file
    assert remote.sections[0].summary == "Tone."
    assert remote.facade.call({"key": "tone"}).text == (
        "## tone (skill of MCP server 'ok')\n\n"
        "[Skill skill://tone/SKILL.md from MCP server 'ok']\n\nBe brief."
    )


def test_pdf_text_is_the_one_served(tmp_path: Path) -> None:
    server = st.mcp.MCPServer.in_process(shop(tmp_path), name="forms")
    assert asyncio.run(server.read_resource("skill://pdf-forms/SKILL.md")).decode() == PDF


def test_skills_sharing_a_name_get_their_paths_as_keys_and_tools_can_be_renamed() -> None:
    index = {
        "skills": [
            {
                "name": "refunds",
                "type": "skill-md",
                "description": f"Refunds at {prefix}.",
                "url": f"skill://{prefix}/refunds/SKILL.md",
            }
            for prefix in ("acme", "other.shop")
        ]
    }
    files = {"skill://index.json": json.dumps(index)}
    for prefix in ("acme", "other.shop"):
        files[f"skill://{prefix}/refunds/SKILL.md"] = (
            f"---\nname: refunds\ndescription: Refunds at {prefix}.\n---\nx\n"
        )
    server = st.mcp.MCPServer.in_process(serving(files), name="two")
    remote = asyncio.run(server.skills(tool_name="load_two", file_tool_name="read_two_file"))
    assert remote.keys() == ["acme_refunds", "other_shop_refunds"]
    assert [s.summary for s in remote.sections] == ["Refunds at acme.", "Refunds at other.shop."]
    assert remote.tool_name == "load_two"
    assert [tool.name for tool in remote.common_tools] == ["read_two_file"]
