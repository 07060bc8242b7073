"""The oracle replay of benchmarks/tokens.py, on a tiny catalogue written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import replay
from statetools.engine.events import Event, IterationStarted
from statetools.models.base import ToolDefinition
from statetools.review.tokens import array_tokens, count_text


def _tool(name: str, **properties: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {name} tool of the test shop.",
            "parameters": {
                "type": "object",
                "properties": {key: {"type": kind} for key, kind in properties.items()},
                "required": list(properties),
            },
        },
    }


TOOLS = [
    _tool("login", email="string"),
    _tool("get_order", order_id="string"),
    _tool("cancel_order", order_id="string"),
    _tool("refund", order_id="string", amount="number"),
    _tool("store_credit", amount="number"),
    _tool("note"),
]

FACADES = """
tools_from: tools.json
definitions:
  - kind: facade
    name: orders
    description: Open the order tools
    tools: [get_order, cancel_order]
  - kind: facade
    name: money
    description: Open the money tools
    tools: [refund, store_credit]
    categories: {refunds: [refund], credit: [store_credit]}
  - kind: playbook
    name: basics
    description: Always there
    tools: [login, note]
"""

MACHINE = """
tools_from: tools.json
kind: machine
name: desk
description: Help one customer
states:
  START:
    tools:
      - {tool: login, transitions_to: HELPING}
  HELPING:
    tools: [get_order, cancel_order, refund, store_credit]
global_tools: [note]
"""


def _design(tmp_path: Path, text: str) -> replay.Replay:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "design.yaml").write_text(text)
    design = replay.load_replay_design(tmp_path / "design.yaml")
    return replay.Replay(design, replay.read_tools(tmp_path / "tools.json"))


def _task(*turns: list[tuple[str, dict[str, Any]]], fails: tuple[int, ...] = ()) -> replay.Task:
    return replay.parse_tasks(
        [
            {
                "id": "t1",
                "turns": [
                    [
                        {"name": name, "arguments": arguments, "fails": index in fails}
                        for index, (name, arguments) in enumerate(turn)
                    ]
                    for turn in turns
                ],
            }
        ]
    )[0]


def _entries(*names: str) -> list[str]:
    by_name = {t["function"]["name"]: t for t in TOOLS}
    definitions = [
        ToolDefinition(
            n, by_name[n]["function"]["description"], by_name[n]["function"]["parameters"]
        )
        for n in names
    ]
    return replay.definition_entries(definitions)


def test_a_closed_facade_costs_one_request_and_the_calls_run(tmp_path: Path) -> None:
    bench = _design(tmp_path, FACADES)
    task = _task([("get_order", {"order_id": "A1"}), ("cancel_order", {"order_id": "A1"})])

    result = bench.run(task)

    assert result.failure is None
    assert (result.flat.requests, result.statetools.requests) == (3, 4)
    assert (result.disclosures, result.facades_opened, result.extra_requests) == (1, 1, 1)
    flat = array_tokens(
        _entries("login", "get_order", "cancel_order", "refund", "store_credit", "note")
    )
    assert result.flat.tokens == 3 * flat
    lower = array_tokens(_entries("get_order")) + 2 * array_tokens(
        _entries("get_order", "cancel_order")
    )
    assert result.lower.tokens == lower
    assert result.disclosure_tokens < result.statetools.tokens


def test_the_replay_sends_what_the_scheduler_shows(tmp_path: Path) -> None:
    bench = _design(tmp_path, FACADES)
    seen: list[tuple[str, ...]] = []

    def listen(event: Event) -> None:
        if isinstance(event, IterationStarted):
            seen.append(event.tools)

    bench.listeners = (listen,)

    bench.run(_task([("refund", {"order_id": "A1", "amount": 5})]))

    assert seen == [
        ("orders", "money", "login", "note"),
        ("orders", "money", "login", "note", "refund"),  # opened, appended at the end
        ("orders", "money", "login", "note", "refund"),
    ]


def test_a_by_category_facade_is_opened_with_the_category_of_the_tool(tmp_path: Path) -> None:
    bench = _design(tmp_path, FACADES)

    result = bench.run(_task([("refund", {"order_id": "A1", "amount": 5})]))

    assert result.failure is None
    assert result.facades_opened == 1
    assert result.statetools.breaks == 0  # the facade stays: opening only appends


def test_a_plain_facade_that_unfolds_breaks_the_cached_prefix(tmp_path: Path) -> None:
    bench = _design(tmp_path, FACADES)

    result = bench.run(_task([("get_order", {"order_id": "A1"})]))

    assert result.statetools.breaks == 1


def test_a_prerequisite_the_ground_truth_skips_is_called_with_placeholders(
    tmp_path: Path,
) -> None:
    bench = _design(tmp_path, MACHINE)

    result = bench.run(_task([("refund", {"order_id": "A1", "amount": 5})]))

    assert result.failure is None
    assert (result.disclosures, result.states_entered, result.facades_opened) == (1, 1, 0)
    assert result.statetools.requests == 3


def test_a_call_marked_as_failing_fails_and_changes_nothing(tmp_path: Path) -> None:
    bench = _design(tmp_path, MACHINE)
    task = _task(
        [
            ("login", {"email": "wrong@example.com"}),
            ("login", {"email": "ada@example.com"}),
            ("get_order", {"order_id": "A1"}),
        ],
        fails=(0,),
    )

    result = bench.run(task)

    assert result.failure is None
    assert result.disclosures == 0
    assert result.states_entered == 1


def test_disclosure_carries_over_to_the_next_user_turn(tmp_path: Path) -> None:
    bench = _design(tmp_path, FACADES)
    task = _task([("get_order", {"order_id": "A1"})], [], [("cancel_order", {"order_id": "A1"})])

    result = bench.run(task)

    assert result.failure is None
    assert result.facades_opened == 1
    assert (result.flat.requests, result.statetools.requests) == (5, 6)


def test_a_tool_the_design_cannot_reach_is_a_reported_failure(tmp_path: Path) -> None:
    bench = _design(
        tmp_path, MACHINE.replace("      - {tool: login, transitions_to: HELPING}", "      - login")
    )

    result = bench.run(_task([("get_order", {"order_id": "A1"})]))

    assert result.failure == "turn 1: no disclosure path reaches 'get_order'"


def test_a_call_the_design_does_not_know_is_a_reported_failure(tmp_path: Path) -> None:
    bench = _design(tmp_path, FACADES)

    result = bench.run(_task([("teleport", {})]))

    assert result.failure == "turn 1: no disclosure path reaches 'teleport'"


def test_check_calls_names_the_first_call_that_did_not_run() -> None:
    turn = [replay.Call("a", {"x": 1}), replay.Call("b")]
    assert replay.check_calls([], turn) == "ground-truth call 'a' did not run"


def test_billed_caches_the_shared_prefix_and_writes_the_rest() -> None:
    first = _entries("login", "note")
    second = _entries("login", "note", "refund")
    whole = array_tokens(first)

    assert replay.billed([first]) == pytest.approx(1.25 * whole)
    assert replay.billed([first, first]) == pytest.approx(1.35 * whole)
    prefix = count_text("[" + ",".join(first))
    assert replay.billed([first, second]) == pytest.approx(
        1.25 * whole + 0.1 * prefix + 1.25 * (array_tokens(second) - prefix)
    )
    assert replay.prefix_breaks([first, second, first]) == 1


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"a": 1}),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, {}),
        ({"type": "string", "enum": ["open", "closed"]}, "open"),
        ({"type": "array", "items": {"type": "boolean"}, "minItems": 2}, [True, True]),
        ({"type": ["null", "number"]}, 1),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "x"),
    ],
)
def test_placeholder_values_fit_their_schema(schema: dict[str, Any], value: Any) -> None:
    assert replay.placeholder(schema) == value


def test_the_report_states_each_target_as_met_or_not(tmp_path: Path) -> None:
    from benchmarks import tokens

    _design(tmp_path, FACADES)
    tasks = [{"id": "t1", "turns": [[{"name": "get_order", "arguments": {"order_id": "A1"}}]]}]
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))

    summary, results = tokens.run_catalogue(
        "tiny", tmp_path / "tools.json", tmp_path / "tasks.json", tmp_path / "design.yaml"
    )
    text = tokens.report([summary], "python benchmarks/tokens.py")

    assert [r.failure for r in results] == [None]
    assert (summary.tasks, summary.flat_requests, summary.requests) == (1, 2, 3)
    assert [ok for _, ok, _ in summary.targets()] == [False, False, True]
    assert "| tiny | NOT met: " in text
    assert "Replay failures (a ground-truth call that did not run" in text
