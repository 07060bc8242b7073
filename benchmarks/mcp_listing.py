"""The GitHub design driven from a saved MCP listing instead of a tools file.

``statetools mcp list github --url ... --save FILE`` saves what the GitHub MCP server
lists; a design then reads the tools from that listing (``mcp_servers:`` with
``listing:``) and can be checked, explored, counted and replayed without the server.
Offline there is no server to list, so this script writes the saved listing from the
shared catalogue (read by path; the listing goes to ``build/bench/``), derives the MCP
form of ``benchmarks/designs/github.yaml`` (its ``tools_from:`` line replaced by an
``mcp_servers:`` entry) and replays the GitHub tasks with both designs: the figures
must be the same.

Run: ``python benchmarks/mcp_listing.py [--write]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section
from convert import BUILD, SHARED, github
from tokens import DESIGNS, Summary, run_catalogue

import statetools as st

SERVER = "https://api.githubcopilot.com/mcp/"


def write_listing(tools_file: Path, out: Path) -> Path:
    """The saved-listing form (``{"server", "tools"}``) of an OpenAI-format tools file."""
    tools = [
        {
            "name": item["function"]["name"],
            "description": item["function"].get("description") or "",
            "inputSchema": item["function"].get("parameters") or {"type": "object"},
        }
        for item in json.loads(tools_file.read_text(encoding="utf-8"))
    ]
    listing = st.mcp.Listing("github", tuple(tools))
    out.write_text(listing.to_json(), encoding="utf-8")
    return out


def mcp_design(listing: Path, out: Path) -> Path:
    """``github.yaml`` with its tools from ``listing`` (an ``mcp_servers:`` entry)."""
    lines = (DESIGNS / "github.yaml").read_text(encoding="utf-8").splitlines()
    entry = [
        "mcp_servers:",
        "  github:",
        f"    url: {SERVER}",
        f"    listing: {listing.name}",
    ]
    body = [entry if line.startswith("tools_from:") else [line] for line in lines]
    out.write_text("\n".join(line for block in body for line in block) + "\n", encoding="utf-8")
    return out


def row(label: str, summary: Summary, seconds: float) -> str:
    return (
        f"| {label} | {summary.catalogue_tools} | {summary.first_tokens:,} | "
        f"{summary.statetools:,.0f} | {summary.flat:,.0f} | {len(summary.failures)} | "
        f"{seconds * 1000:,.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    tools, tasks = github(args.shared, BUILD)
    listing = write_listing(tools, BUILD / "github.listing.json")
    derived = mcp_design(listing, BUILD / "github_mcp.yaml")
    rows: list[str] = []
    summaries: list[Any] = []
    for label, design in (
        ("tools_from (the OpenAI-format tools file)", DESIGNS / "github.yaml"),
        ("mcp_servers with a saved listing", derived),
    ):
        st.load_design(design)  # warm: imports and caches
        started = time.perf_counter()
        st.load_design(design)
        loaded = time.perf_counter() - started
        summary, _ = run_catalogue("github", tools, tasks, design)
        summaries.append(summary)
        rows.append(row(label, summary, loaded))
    a, b = summaries
    same = (a.catalogue_tools, a.first_tokens, a.statetools, a.flat, a.failures) == (
        b.catalogue_tools,
        b.first_tokens,
        b.statetools,
        b.flat,
        b.failures,
    )
    body = "\n".join(
        [
            "## The GitHub design from a saved MCP listing",
            "",
            "`python benchmarks/mcp_listing.py --write`: the GitHub tasks replayed with the "
            "design reading its 117 tools from a tools file and from a saved MCP listing "
            "(`mcp_servers:` + `listing:`; no server is started). Tokens are means per task "
            "(o200k_base, as the OpenAI SDK sends tools).",
            "",
            "| tools from | tools | first visible set | statetools | flat | failed tasks "
            "| load (ms) |",
            "|---|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"Same figures from both: {'yes' if same else 'NO'}. {machine_line()}",
        ]
    )
    print(body)
    if args.write:
        write_section("mcp-listing", body)
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
