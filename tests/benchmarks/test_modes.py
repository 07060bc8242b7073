"""benchmarks/modes.py: the replayed requests measured per disclosure mode."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from statetools.review.tokens import array_tokens, count_text, wire_json
from tests.benchmarks.test_replay import FACADES, TOOLS, _task

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import modes
import replay


def _bench(tmp_path: Path) -> replay.Replay:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "design.yaml").write_text(FACADES)
    design = replay.load_replay_design(tmp_path / "design.yaml")
    tools = replay.read_tools(tmp_path / "tools.json")
    return replay.Replay(design, tools, modes=modes.measure_modes)


def test_every_mode_measures_the_same_requests(tmp_path: Path) -> None:
    bench = _bench(tmp_path)

    result = bench.run(_task([("get_order", {"order_id": "A1"})]))

    assert result.failure is None
    measured = result.modes
    assert list(measured) == list(modes.MODES)
    assert measured["tools, stable order (default)"] == result.statetools
    assert measured["tools, registration order"].breaks == 1
    assert measured["tools, stable order (default)"].breaks == 1
    assert (measured["allowed_tools"].breaks, measured["deferred"].breaks) == (0, 0)
    registered = modes.design_definitions(bench.graph)
    assert [t.name for t in registered] == [
        "orders",
        "get_order",
        "cancel_order",
        "money",
        "refund",
        "store_credit",
        "login",
        "note",
    ]
    everything = replay.definition_entries(registered)
    choices = [
        ["orders", "money", "login", "note"],
        ["money", "login", "note", "get_order", "cancel_order"],
        ["money", "login", "note", "get_order", "cancel_order"],
    ]
    choice_tokens = sum(
        count_text(
            wire_json(
                {
                    "type": "allowed_tools",
                    "allowed_tools": {
                        "mode": "auto",
                        "tools": [{"type": "function", "function": {"name": n}} for n in names],
                    },
                }
            )
        )
        for names in choices
    )
    assert measured["allowed_tools"] == replay.Measure(
        3,
        3 * array_tokens(everything) + choice_tokens,
        replay.billed([everything] * 3) + choice_tokens,
        0,
    )
    start = [e for e, t in zip(everything, registered, strict=True) if t.name in choices[0]]
    assert measured["deferred"].tokens > 3 * array_tokens(start)
    assert measured["deferred"].cost < measured["allowed_tools"].cost


def test_the_report_has_a_row_per_catalogue_and_mode(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    result = bench.run(_task([("get_order", {"order_id": "A1"})]))

    text = modes.report([("shop", result.flat.cost, [result])])

    rows = [line for line in text.splitlines() if line.startswith("| shop |")]
    assert [row.split(" | ")[1] for row in rows] == list(modes.MODES)
    assert rows[2].split(" | ")[2] == "0.00"
