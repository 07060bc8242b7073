"""benchmarks/anthropic_search_mode.py: Anthropic's tool_search mode on replayed requests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from statetools.review.tokens import array_tokens, count_text, wire_json
from tests.benchmarks.test_replay import TOOLS, _task

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import anthropic_search_mode as mode
import modes
import replay

SEARCH = """
tools_from: tools.json
definitions:
  - kind: facade
    name: find_tools
    description: Find the shop's tools
    search: {max_results: 3}
    tools: [get_order, cancel_order, refund]
  - kind: playbook
    name: basics
    description: Always there
    tools: [login, note]
"""


def _run(tmp_path: Path) -> replay.TaskResult:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "design.yaml").write_text(SEARCH)
    design = replay.load_replay_design(tmp_path / "design.yaml")
    tools = replay.read_tools(tmp_path / "tools.json")
    bench = replay.Replay(design, tools, modes=modes.measure_modes, search_by=("names",))
    result = bench.run(_task([("get_order", {"order_id": "A1"})]))
    assert result.failure is None
    return result


def _anthropic(name: str) -> str:
    entry = next(t["function"] for t in TOOLS if t["function"]["name"] == name)
    return wire_json(
        {"name": name, "description": entry["description"], "input_schema": entry["parameters"]}
    )


def test_the_server_search_saves_the_search_request_and_bills_its_tool_and_what_it_loads(
    tmp_path: Path,
) -> None:
    result = _run(tmp_path)

    assert result.statetools.requests == 3  # search, get_order, the answer
    server = result.modes[mode.SERVER]
    prefix = [
        wire_json({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
        _anthropic("login"),
        _anthropic("note"),
    ]
    loaded = count_text(_anthropic("get_order"))
    assert server.requests == 2
    assert server.breaks == 0
    assert server.tokens == 2 * array_tokens(prefix) + 2 * loaded
    write, read = replay.CACHE_WRITE, replay.CACHE_READ
    prefix_cost = write * array_tokens(prefix) + read * array_tokens(prefix)
    assert server.cost == prefix_cost + (write - read) * loaded + 2 * read * loaded


def test_the_client_search_keeps_the_facade_and_the_replay_requests(tmp_path: Path) -> None:
    result = _run(tmp_path)

    client = result.modes[mode.CLIENT]
    assert client.requests == 3
    assert client.breaks == 0
    assert client.cost == result.modes["deferred"].cost


def test_the_report_marks_the_cheapest_mode(tmp_path: Path) -> None:
    result = _run(tmp_path)

    text = mode.report([("shop", result.flat.cost, [result])], "python x.py")

    rows = [line for line in text.splitlines() if line.startswith("| shop |")]
    assert [row.split(" | ")[1] for row in rows] == list(mode.COMPARED)
    assert [row.endswith("| yes |") for row in rows] == [False, False, True, False]


ROOT = Path(__file__).resolve().parents[2]
DOC_ROWS = {
    "BFCL, class facades": "BFCL multi-turn base, class facades",
    "BFCL, search facade": "BFCL multi-turn base, search facade",
    "tau-bench retail, desk machine": "tau-bench retail, desk machine",
    "tau-bench retail, search after identification": (
        "tau-bench retail, search after identification"
    ),
    "tau-bench airline, desk machine": "tau-bench airline, desk machine",
    "tau-bench airline, search after look-up": "tau-bench airline, search after look-up",
    "GitHub MCP server, toolset facades": "GitHub MCP server, toolset facades",
    "GitHub MCP server, search facade": "GitHub MCP server, search facade",
}
DOC_MODES = {
    "`tools`": "tools, stable order (default)",
    "`deferred`": "deferred",
    "`tool_search`": mode.SERVER,
}


def test_the_providers_page_shows_the_measured_costs_and_chooses_the_cheapest() -> None:
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    section = results.split("<!-- anthropic_tool_search:start -->")[1].split("<!-- ")[0]
    measured: dict[tuple[str, str], str] = {}
    cheapest: dict[str, str] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 7 and cells[0] in DOC_ROWS.values():
            measured[cells[0], cells[1]] = cells[5]
            if cells[6] == "yes":
                cheapest[cells[0]] = cells[1]
    doc = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    rows = [line for line in doc.splitlines() if line.split(" | ")[0].strip("| ") in DOC_ROWS]

    assert len(rows) == len(DOC_ROWS)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        label = DOC_ROWS[cells[0]]
        shown = [cells[1], cells[2], cells[3].split()[0], cells[4]]
        modes_in_order = ["tools, stable order (default)", "deferred", mode.SERVER, mode.CLIENT]
        assert shown == [measured[label, m] for m in modes_in_order], label
        assert DOC_MODES[cells[5]] == cheapest[label] or (
            measured[label, DOC_MODES[cells[5]]] == measured[label, cheapest[label]]
        ), label
