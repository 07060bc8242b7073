"""benchmarks/layered_cache.py on a tiny catalogue written here: the real loop, the
whole prompt of every request, the default and the cache-safe layered forms."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import layered_cache
import replay

import statetools as st
from statetools.models.base import ToolDefinition
from statetools.review.tokens import array_tokens, wire_json
from tests.benchmarks.test_replay import TOOLS, _task

CATALOGUE = [
    ToolDefinition(t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
    for t in TOOLS
]
TASK = _task(
    [("get_order", {"order_id": "A1"}), ("refund", {"order_id": "A1", "amount": 5})],
    [("get_order", {"order_id": "A2"}), ("note", {})],
)


def run(form: str) -> layered_cache.Run:
    items = layered_cache.form_tools(form, CATALOGUE)
    return layered_cache.run_task(TASK, items, detail=form != "flat")


def test_flat_sends_the_catalogue_in_every_request_and_breaks_nothing() -> None:
    flat = run("flat")

    # turn 1: two calls and the answer; turn 2: the same
    assert (flat.requests, flat.breaks, flat.detail_tokens, flat.refused) == (6, 0, 0, 0)
    assert flat.tool_tokens == 6 * array_tokens(replay.definition_entries(CATALOGUE))


def test_the_default_form_breaks_the_prefix_at_each_detail_and_the_safe_form_never() -> None:
    swapped, safe = run("layered"), run("layered, cache-safe")

    # one detail request before the first call of each of the three tools
    assert (swapped.requests, safe.requests) == (9, 9)
    assert (swapped.breaks, safe.breaks) == (3, 0)
    base = st.layered(*layered_cache.form_tools("flat", CATALOGUE), swap=False)
    entries = replay.definition_entries([t.definition for t in base])
    assert safe.tool_tokens == 9 * array_tokens(entries)
    detail = base[-1]
    texts = [wire_json(detail.call({"name": n}).text) for n in ("get_order", "refund", "note")]
    assert safe.detail_tokens == swapped.detail_tokens == array_tokens(texts)
    assert (swapped.refused, safe.refused) == (0, 0)
    assert safe.cost < swapped.cost
    assert safe.tokens < swapped.tokens


def test_the_table_gives_means_per_task_against_flat() -> None:
    runs = {
        "flat": [layered_cache.Run(4, 1000, 900, 500.0, 0, 0, 0)],
        "layered": [layered_cache.Run(6, 900, 700, 750.0, 2, 40, 0)],
        "layered, cache-safe": [layered_cache.Run(6, 850, 650, 300.0, 0, 40, 1)],
    }

    assert layered_cache.table("Tiny shop", runs) == [
        "#### Tiny shop (1 tasks)",
        "",
        "| form | requests | prompt tokens | of which tools | detail in results | "
        "cost vs flat | prefix breaks | refused calls |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        "| flat | 4.00 (+0.00) | 1,000 | 900 | 0 | 1.000 | 0.00 | 0.00 |",
        "| layered | 6.00 (+2.00) | 900 | 700 | 40 | 1.500 | 2.00 | 0.00 |",
        "| layered, cache-safe | 6.00 (+2.00) | 850 | 650 | 40 | 0.600 | 0.00 | 1.00 |",
        "",
    ]
