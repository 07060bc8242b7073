"""The token replay that searches with the user's words (benchmarks/user_words.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks import user_words
from statetools.engine.events import Event, ToolCalled


def _tool(name: str, description: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": {}},
        },
    }


TOOLS = [
    _tool("cancel_order", "Cancel an order that has not shipped."),
    _tool("refund", "Give money back for a returned purchase."),
    _tool("weather", "Forecast for a city."),
]
DESIGN = """
tools_from: tools.json
kind: facade
name: find_tools
description: Find tools by what they do
search: {max_results: 1}
tools: [cancel_order, refund, weather]
"""
TASKS = [
    {
        "id": "t1",
        "turns": [
            [{"name": "cancel_order", "arguments": {}}, {"name": "refund", "arguments": {}}],
            [{"name": "weather", "arguments": {}}],
        ],
    }
]
WORDS = {"t1": ["please cancel my order", "what is the forecast in Paris"]}


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "tasks.json").write_text(json.dumps(TASKS))
    (tmp_path / "design.yaml").write_text(DESIGN)
    return tmp_path / "tools.json", tmp_path / "tasks.json", tmp_path / "design.yaml"


def test_each_turn_starts_with_a_search_in_the_users_words(tmp_path: Path) -> None:
    tools, tasks, design_path = _files(tmp_path)
    design = user_words._design(design_path, "bm25")
    events: list[Event] = []
    replay = user_words.WordsReplay(design, user_words.read_tools(tools), WORDS, "find_tools")
    replay.listeners = (events.append,)
    result = replay.run(user_words.read_tasks(tasks)[0])
    assert result.failure is None
    assert [(e.name, dict(e.arguments)) for e in events if isinstance(e, ToolCalled)] == [
        ("find_tools", {"query": "please cancel my order"}),
        ("cancel_order", {}),
        ("find_tools", {"query": "refund"}),  # the miss: searched by the tool's own name
        ("refund", {}),
        ("find_tools", {"query": "what is the forecast in Paris"}),
        ("weather", {}),
    ]
    turns = replay.oracles["t1"]
    assert [(o.sought, o.found, o.searches) for o in turns] == [
        (["cancel_order", "refund"], ["cancel_order"], 1),
        (["weather"], ["weather"], 1),
    ]
    assert result.disclosures == 3


def test_the_row_counts_misses_and_extra_searches_next_to_the_oracle(tmp_path: Path) -> None:
    tools, tasks, design = _files(tmp_path)
    oracle = user_words.run("shop", tools, tasks, design, None, "bm25", None)
    words = user_words.run("shop", tools, tasks, design, WORDS, "bm25", None)
    assert (oracle.search, oracle.searches, oracle.missed, oracle.failed) == (
        "oracle, bm25",
        2.0,
        0,
        0,
    )
    assert (words.search, words.searches, words.words_searches) == ("user's words, bm25", 3.0, 2.0)
    assert (words.sought, words.missed, words.never_found, words.tools) == (3, 1, 1, 3)
    assert (words.turns_missing, words.tasks_missing, words.failed) == (1.0, 1, 0)
    rows = user_words.section([oracle, words], "cmd").splitlines()
    assert [line for line in rows if line.startswith("| shop")] == [
        "| shop | oracle, bm25 | 1 | 0 | 987 | 7.00 | +2.00 | 2.00 | - | - | - | - | - |",
        "| shop | user's words, bm25 | 1 | 0 | 1,065 | 8.00 | +3.00 | 3.00 | 1.00 | 1/3 (33%) "
        "| 1.00 | 1 | 1/3 (33%) |",
    ]
