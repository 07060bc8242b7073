"""The baselines of benchmarks/baselines.py and search facades in the replay, on a tiny
catalogue written here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import alternatives
import baselines
import replay

from statetools.review.tokens import array_tokens
from tests.benchmarks.test_replay import TOOLS, _entries, _task

SEARCH = """
tools_from: tools.json
kind: facade
name: find_tools
description: Find tools
search: {max_results: 2}
tools: [login, get_order, cancel_order, refund, store_credit, note]
"""

TASK = _task(
    [
        ("login", {"email": "a@b.c"}),
        ("get_order", {"order_id": "A1"}),
        ("get_order", {"order_id": "A2"}),
        ("refund", {"order_id": "A1", "amount": 5}),
    ]
)


def _replay(tmp_path: Path, search_by: tuple[str, ...]) -> replay.Replay:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "design.yaml").write_text(SEARCH)
    design = replay.load_replay_design(tmp_path / "design.yaml")
    return replay.Replay(design, replay.read_tools(tmp_path / "tools.json"), search_by=search_by)


def test_a_search_by_words_opens_the_best_matches(tmp_path: Path) -> None:
    result = _replay(tmp_path, ("query", "names")).run(TASK)

    assert result.failure is None
    assert (result.statetools.requests, result.disclosures) == (8, 3)
    assert result.statetools.breaks == 0


def test_one_search_per_turn_opens_every_tool_the_turn_needs(tmp_path: Path) -> None:
    bench = _replay(tmp_path, ("turn", "query", "names"))
    result = bench.run(TASK)

    assert result.failure is None
    assert (result.statetools.requests, result.disclosures) == (6, 1)
    facade = bench.graph.entries["find_tools"].tool
    (search,) = replay.definition_entries(
        [replay.ToolDefinition(facade.name, facade.description, facade.input_schema)]
    )
    opened = _entries("login", "get_order", "refund")
    assert result.statetools.tokens == array_tokens([search]) + 5 * array_tokens([search, *opened])


def test_the_ideal_search_costs_one_request_per_new_tool() -> None:
    names = [t["function"]["name"] for t in TOOLS]
    texts = dict(zip(names, _entries(*names), strict=True))
    (search,) = replay.definition_entries([baselines.SEARCH_TOOL])
    measure = baselines.ideal_search(TASK, texts)

    login, get_order, refund = _entries("login", "get_order", "refund")
    expected = [
        [search],
        [search, login],
        [search, login],
        [search, login, get_order],
        [search, login, get_order],
        [search, login, get_order],
        [search, login, get_order, refund],
        [search, login, get_order, refund],
    ]
    assert measure == replay.measure(expected)


def _catalogue(tmp_path: Path) -> list[replay.ToolDefinition]:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    return replay.read_tools(tmp_path / "tools.json")


def test_the_two_layer_catalogue_swaps_in_each_full_tool_at_the_end(tmp_path: Path) -> None:
    catalogue = _catalogue(tmp_path)
    measure = baselines.two_layer(_task([("refund", {"order_id": "A", "amount": 1})]), catalogue)

    assert (measure.requests, measure.breaks) == (3, 1)


def test_allowed_tools_sends_everything_and_counts_the_allowed_list(tmp_path: Path) -> None:
    catalogue = _catalogue(tmp_path)
    measure = baselines.allowed_tools(TASK, catalogue)
    flat = replay.measure(replay.reference_requests(TASK, catalogue))

    assert measure.requests == flat.requests
    assert measure.tokens > flat.tokens
    assert measure.breaks == 0


def test_own_grouping_shows_the_groups_of_the_tools_used(tmp_path: Path) -> None:
    catalogue = _catalogue(tmp_path)
    groups = {"orders": ["get_order", "cancel_order"], "money": ["refund", "store_credit"]}
    measure = baselines.own_grouping(TASK, catalogue, groups)
    shown = _entries("login", "get_order", "cancel_order", "refund", "store_credit")

    assert measure == replay.measure([shown] * 5)


def test_the_report_has_one_table_per_catalogue_and_states_the_targets(tmp_path: Path) -> None:
    bench = _replay(tmp_path, ("turn", "query", "names"))
    calls = [{"name": c.name, "arguments": dict(c.arguments)} for c in TASK.calls]
    (tmp_path / "tasks.json").write_text(json.dumps([{"id": "t1", "turns": [calls]}]))
    result = bench.run(replay.read_tasks(tmp_path / "tasks.json")[0])
    catalogue = alternatives.Catalogue(
        "Tiny shop",
        "tiny",
        tmp_path / "tools.json",
        tmp_path / "tasks.json",
        (("search", [result]),),
    )

    text = alternatives.report([catalogue], tmp_path, "python benchmarks/tokens.py --write")

    assert "#### Tiny shop (1 tasks)" in text
    assert "| statetools: search |" in text
    assert "| ideal tool search |" in text
    assert (
        "- Tiny shop: best design *search*. Fewer tool tokens than the ideal tool search: **"
        in text
    )
