"""Skills over MCP, served (SEP-2640): a design's sections and skills as skill://
resources with skill://index.json, read back by the SDK's own client in memory (2026-07-28
and 2025 era) and over streamable HTTP from `statetools serve` on 127.0.0.1."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mcp
import mcp.types as types
import pytest
from pydantic import TypeAdapter

import statetools as st

STATETOOLS = str(Path(sys.executable).parent / "statetools")

PDF = """\
---
name: pdf-forms
description: Fill in PDF forms.
allowed-tools: fill_field
---
Read references/fields.md, then call fill_field for each field.
"""

FIELDS = "Fields: name, date.\n"

TOOLS_MODULE = '''
def fill_field(field: str, value: str) -> str:
    """Fill a form field."""
    return f"{field}={value}"
'''


def write_skills(root: Path) -> Path:
    skills = root / "skills"
    (skills / "pdf-forms" / "references").mkdir(parents=True)
    (skills / "pdf-forms" / "SKILL.md").write_text(PDF, encoding="utf-8")
    (skills / "pdf-forms" / "references" / "fields.md").write_text(FIELDS, encoding="utf-8")
    return skills


def fill_field(field: str, value: str) -> str:
    """Fill a form field."""
    return f"{field}={value}"


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


BILLING_MD = """\
---
name: billing
description: Refund rules.
allowed-tools: refund
---
Refunds within 30 days.
"""

EU_MD = """\
---
name: eu
description: EU
---
EU orders: 14 days more.
"""


def sections() -> st.Sections:
    refund = st.Tool.create("refund", "Refund an order", lambda order: f"refunded {order}")
    return st.Sections(
        st.Section(
            "billing",
            "Billing",
            "Refunds within 30 days.",
            summary="Refund rules.",
            tools=[refund],
            children=[st.Section("eu", "EU", "EU orders: 14 days more.")],
        )
    )


async def read_text(client: mcp.Client, uri: str) -> str:
    answer = await client.read_resource(uri)
    return "\n".join(c.text for c in answer.contents if isinstance(c, types.TextResourceContents))


class _Raw(types.Request[types.ReadResourceRequestParams, str]):
    method: str
    params: types.ReadResourceRequestParams


async def raw(client: mcp.Client, method: str, uri: str = "") -> dict[str, Any]:
    params = types.ReadResourceRequestParams(uri=uri or "skill://index.json")
    return await client.session.send_request(_Raw(method=method, params=params), TypeAdapter(dict))


async def served(client: mcp.Client) -> dict[str, Any]:
    listed = await client.list_resources()
    return {
        "version": client.protocol_version,
        "uris": [(r.uri, r.name, r.mime_type) for r in listed.resources],
        "index": json.loads(await read_text(client, "skill://index.json")),
        "billing": await read_text(client, "skill://billing/SKILL.md"),
        "eu": await read_text(client, "skill://billing/eu/SKILL.md"),
        "pdf": await read_text(client, "skill://pdf-forms/SKILL.md"),
        "fields": await read_text(client, "skill://pdf-forms/references/fields.md"),
        "listed": await raw(client, "skills/list"),
        "got": await raw(client, "skills/get", "skill://pdf-forms/SKILL.md"),
    }


EXPECTED_URIS = [
    ("skill://index.json", "skills-index", "application/json"),
    ("skill://billing/SKILL.md", "billing", "text/markdown"),
    ("skill://billing/eu/SKILL.md", "eu", "text/markdown"),
    ("skill://pdf-forms/SKILL.md", "pdf-forms", "text/markdown"),
    ("skill://pdf-forms/references/fields.md", "fields.md", "text/markdown"),
]

EXPECTED_INDEX = {
    "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
    "skills": [
        {
            "name": "billing",
            "type": "skill-md",
            "description": "Refund rules.",
            "url": "skill://billing/SKILL.md",
        },
        {
            "name": "eu",
            "type": "skill-md",
            "description": "EU",
            "url": "skill://billing/eu/SKILL.md",
        },
        {
            "name": "pdf-forms",
            "type": "skill-md",
            "description": "Fill in PDF forms.",
            "url": "skill://pdf-forms/SKILL.md",
        },
    ],
}

PDF_ENTRY = {
    "uri": "skill://pdf-forms/SKILL.md",
    "frontmatter": {
        "name": "pdf-forms",
        "description": "Fill in PDF forms.",
        "allowed-tools": "fill_field",
    },
    "resources": [
        {"uri": "skill://pdf-forms/SKILL.md", "digest": sha(PDF), "size": len(PDF)},
        {
            "uri": "skill://pdf-forms/references/fields.md",
            "digest": sha(FIELDS),
            "size": len(FIELDS),
        },
    ],
}


FILL_FIELD_SCHEMA = {
    "type": "object",
    "properties": {"field": {"type": "string"}, "value": {"type": "string"}},
    "required": ["field", "value"],
    "additionalProperties": False,
}

GATEWAY_PDF_ENTRY = {
    **PDF_ENTRY,
    "_meta": {
        "statetools/opens": {
            "tool": "load_skill",
            "arguments": {"key": "pdf-forms"},
            "sessionArgument": "session",
            "tools": [
                {
                    "name": "fill_field",
                    "description": "Fill a form field.",
                    "inputSchema": FILL_FIELD_SCHEMA,
                }
            ],
        }
    },
}
"""A gateway's entry says how the skill's tools open there (its load_skill call in the
client's session, and the definitions of the tools it lists only once open)."""


def check(seen: dict[str, Any], version: str) -> None:
    assert seen["version"] == version
    assert seen["uris"] == EXPECTED_URIS
    assert seen["index"] == EXPECTED_INDEX
    assert seen["billing"] == BILLING_MD
    assert seen["eu"] == EU_MD
    assert seen["pdf"] == PDF
    assert seen["fields"] == FIELDS
    entries = seen["listed"]["skills"]
    assert [entry["uri"] for entry in entries] == [s["url"] for s in EXPECTED_INDEX["skills"]]
    assert entries[0]["resources"] == [
        {"uri": "skill://billing/SKILL.md", "digest": sha(BILLING_MD), "size": len(BILLING_MD)},
        {"uri": "skill://billing/eu/SKILL.md", "digest": sha(EU_MD), "size": len(EU_MD)},
    ]
    assert entries[2] == GATEWAY_PDF_ENTRY
    assert seen["got"]["skill"] == GATEWAY_PDF_ENTRY


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_gateway_serves_sections_and_skills_in_memory(
    tmp_path: Path, mode: str, version: str
) -> None:
    skills = st.load_skills(write_skills(tmp_path), tools=[fill_field])
    server = st.mcp.disclosure_server([sections(), skills])

    async def main() -> dict[str, Any]:
        async with mcp.Client(server, mode=mode) as client:
            seen = await served(client)
            if mode == "auto":
                seen["extensions"] = client.server_capabilities.extensions
                answer = await client.read_resource("skill://index.json")
                seen["fresh"] = (answer.ttl_ms, answer.cache_scope)
            return seen

    seen = asyncio.run(main())
    check(seen, version)
    if mode == "auto":
        assert seen["extensions"] == {"io.modelcontextprotocol/skills": {}}
        assert seen["fresh"] == (300_000, "public")


def test_an_unknown_skill_or_file_is_invalid_params() -> None:
    server = st.mcp.disclosure_server([sections()])

    async def main() -> list[tuple[int, str]]:
        errors: list[tuple[int, str]] = []
        async with mcp.Client(server) as client:
            for call in (
                raw(client, "skills/get", "skill://refunds/SKILL.md"),
                client.read_resource("skill://billing/notes.md"),
            ):
                try:
                    await call
                except mcp.MCPError as error:
                    errors.append((error.error.code, error.error.message))
        return errors

    assert asyncio.run(main()) == [
        (-32602, "No skill is served at skill://refunds/SKILL.md"),
        (-32602, "No resource is served at skill://billing/notes.md"),
    ]


def test_a_design_without_sections_serves_no_resources() -> None:
    server = st.mcp.disclosure_server([st.Tool.create("ping", "Ping", lambda: "pong")])

    async def main() -> Any:
        async with mcp.Client(server) as client:
            return client.server_capabilities

    capabilities = asyncio.run(main())
    assert capabilities.resources is None
    assert capabilities.extensions is None


def test_publish_skills_keeps_the_resources_an_sdk_server_had(tmp_path: Path) -> None:
    from mcp.server.mcpserver import MCPServer as FastServer

    upstream = FastServer("forms")

    @upstream.resource("note://today", name="today", mime_type="text/plain")
    def today() -> str:
        return "Quiet day."

    st.mcp.publish_skills(upstream, [st.load_skills(write_skills(tmp_path), tools=[fill_field])])

    async def main() -> tuple[list[str], str, str]:
        async with mcp.Client(upstream) as client:
            listed = [r.uri for r in (await client.list_resources()).resources]
            return (
                listed,
                await read_text(client, "note://today"),
                await read_text(client, "skill://pdf-forms/SKILL.md"),
            )

    assert asyncio.run(main()) == (
        [
            "skill://index.json",
            "skill://pdf-forms/SKILL.md",
            "skill://pdf-forms/references/fields.md",
            "note://today",
        ],
        "Quiet day.",
        PDF,
    )


def test_a_section_key_that_is_no_skill_name_is_refused_with_its_path() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.mcp.disclosure_server([st.Sections(st.Section("_", "Odd", "x"))])
    assert str(caught.value) == (
        "section '_': section '_' has no usable skill name (got '' from its key) "
        "Hint: give it a key of letters and digits (a skill name is 1-64 of a-z, 0-9, -)"
    )


DESIGN = """
kind: skills
path: skills
tools:
  - forms_tools:fill_field
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def served_over_http(design: Path) -> Iterator[str]:
    """`statetools serve DESIGN --transport http` on a free port of 127.0.0.1."""
    port = free_port()
    process = subprocess.Popen(
        [STATETOOLS, "serve", str(design), "--transport", "http", "--port", str(port)],
        stderr=subprocess.PIPE,
        cwd=design.parent,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def skills_url(tmp_path: Path) -> Iterator[str]:
    write_skills(tmp_path)
    (tmp_path / "forms_tools.py").write_text(TOOLS_MODULE)
    design = tmp_path / "forms.yaml"
    design.write_text(DESIGN)
    with served_over_http(design) as url:
        yield url


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_statetools_serve_publishes_skills_over_http(
    skills_url: str, mode: str, version: str
) -> None:
    async def main() -> dict[str, Any]:
        async with mcp.Client(skills_url, mode=mode) as client:
            listed = await client.list_resources()
            return {
                "version": client.protocol_version,
                "uris": [r.uri for r in listed.resources],
                "index": json.loads(await read_text(client, "skill://index.json")),
                "pdf": await read_text(client, "skill://pdf-forms/SKILL.md"),
                "fields": await read_text(client, "skill://pdf-forms/references/fields.md"),
                "got": await raw(client, "skills/get", "skill://pdf-forms/SKILL.md"),
            }

    seen = asyncio.run(main())
    assert seen["version"] == version
    assert seen["uris"] == [
        "skill://index.json",
        "skill://pdf-forms/SKILL.md",
        "skill://pdf-forms/references/fields.md",
    ]
    assert seen["index"] == {
        "$schema": EXPECTED_INDEX["$schema"],
        "skills": [EXPECTED_INDEX["skills"][2]],
    }
    assert (seen["pdf"], seen["fields"]) == (PDF, FIELDS)
    assert seen["got"]["skill"] == GATEWAY_PDF_ENTRY
