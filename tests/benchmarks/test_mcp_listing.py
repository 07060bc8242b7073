"""benchmarks/mcp_listing.py: a tools file as a saved MCP listing gives the same design."""

from __future__ import annotations

import json
from pathlib import Path

import statetools as st
from benchmarks import mcp_listing
from statetools.review.tokens import tools_tokens

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {name} tool.\n",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string"}},
                "required": ["q"],
            },
        },
    }
    for name in ("list_issues", "create_issue")
]

FACADE = "definitions:\n  - {kind: facade, name: issues, description: Open issues, "
FACADE += "tools: [list_issues, create_issue]}\n"


def test_a_design_from_the_saved_listing_equals_the_one_from_the_tools_file(
    tmp_path: Path,
) -> None:
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps(TOOLS))
    listing = mcp_listing.write_listing(tools_file, tmp_path / "listing.json")
    saved = json.loads(listing.read_text())
    assert saved["server"] == "github"
    assert [tool["name"] for tool in saved["tools"]] == ["list_issues", "create_issue"]
    (tmp_path / "a.yaml").write_text(f"tools_from: tools.json\n{FACADE}")
    (tmp_path / "b.yaml").write_text(
        f"mcp_servers:\n  github: {{url: {mcp_listing.SERVER}, listing: listing.json}}\n{FACADE}"
    )
    from_file, from_listing = (st.load_design(tmp_path / n) for n in ("a.yaml", "b.yaml"))
    assert [type(t).__name__ for t in from_listing.catalogue] == ["MCPTool", "MCPTool"]
    shown = [
        [(t.name, t.description, t.input_schema) for t in design.definitions[0].inner]
        for design in (from_file, from_listing)
    ]
    assert shown[0] == shown[1]
    assert tools_tokens(from_file.definitions[0].inner) == tools_tokens(
        from_listing.definitions[0].inner
    )
