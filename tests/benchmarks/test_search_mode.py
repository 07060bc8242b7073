"""benchmarks/search_mode.py: the replay in OpenAI's tool_search mode, and its measure."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from statetools.review.tokens import array_tokens, count_text, wire_json
from tests.benchmarks.test_replay import FACADES, TOOLS, _task

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import replay
import search_mode


def test_a_facade_call_becomes_a_search_and_the_tools_array_never_changes(
    tmp_path: Path,
) -> None:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "design.yaml").write_text(FACADES)
    design = replay.load_replay_design(tmp_path / "design.yaml")
    bench = replay.Replay(design, replay.read_tools(tmp_path / "tools.json"), wrap=search_mode.wrap)
    sent: list[replay.ModelRequest] = []

    result = bench.run(_task([("get_order", {"order_id": "A1"})]), sent)

    assert result.failure is None
    bodies = [search_mode.ADAPTER.request_body(request) for request in sent]
    assert len(bodies) == 3
    assert bodies[0]["tools"] == bodies[1]["tools"] == bodies[2]["tools"]
    assert [t.get("name", t["type"]) for t in bodies[0]["tools"]] == [
        "tool_search",
        "orders",
        "money",
        "login",
        "note",
    ]
    pair = [i for i in bodies[1]["input"] if i.get("type", "").startswith("tool_search")]
    assert pair[0]["arguments"] == {"names": ["get_order"]}
    assert [t["name"] for t in pair[1]["tools"][0]["tools"]] == ["get_order", "cancel_order"]

    measured = search_mode.measure_search(sent)

    seen = [search_mode._seen(entry) for entry in bodies[0]["tools"]]
    assert "cancel_order" not in "".join(seen)  # deferred: not billed before a search
    items = count_text(wire_json(pair[1]["tools"]))
    assert (measured.requests, measured.breaks) == (3, 0)
    assert measured.tokens == 3 * array_tokens(seen) + 2 * items
    assert measured.cost == pytest.approx(replay.billed([seen] * 3) + 1.35 * items)
