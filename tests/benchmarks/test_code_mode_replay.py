"""benchmarks/code_mode.py: each turn's calls sent as one script that really runs."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import statetools as st
from statetools.messages import ToolCall
from statetools.review.tokens import tools_tokens
from tests.benchmarks.test_replay import MACHINE, TOOLS, _task

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import code_mode
import replay


def _bench(tmp_path: Path) -> code_mode.CodeReplay:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "design.yaml").write_text(MACHINE)
    design = replay.load_replay_design(tmp_path / "design.yaml")
    return code_mode.CodeReplay(design.tools, replay.read_tools(tmp_path / "tools.json"))


def test_a_turn_is_one_script_with_its_disclosure_calls_and_costs_two_requests(
    tmp_path: Path,
) -> None:
    bench = _bench(tmp_path)
    task = _task(
        [("get_order", {"order_id": "A1"}), ("cancel_order", {"order_id": "A1"})],
        [("refund", {"order_id": "A1", "amount": 5})],
        fails=(1,),
    )

    result = asyncio.run(bench.arun(task))

    assert result.failure is None
    assert result.calls == 4  # login (the machine's way to HELPING) and the three calls
    assert result.code.requests == 4  # a script and an answer per turn
    assert result.flat.requests == 5  # one per call, one answer per turn
    scheduler = st.Scheduler(bench.graph)
    start = tools_tokens(scheduler.visible())
    scheduler.record(ToolCall("c", "login", {"email": "x"}), st.ToolResult.text("ok"))
    helping = tools_tokens(scheduler.visible())
    assert helping > start
    assert result.code.tokens == start + 3 * helping


def test_the_script_of_a_turn_calls_the_tools_in_order_and_catches_expected_failures() -> None:
    steps = [("login", {"email": "x"}, False), ("cancel_order", {"order_id": "A1"}, True)]
    assert code_mode.script_of(steps) == (
        "login(**{'email': 'x'})\n"
        "try:\n"
        "    cancel_order(**{'order_id': 'A1'})\n"
        "except RuntimeError as error:\n"
        "    print(error)"
    )


def test_the_report_puts_code_mode_next_to_flat_and_the_designs() -> None:
    summary = code_mode.CodeSummary(
        "tau", "every tool", 2, (), 100.0, 5.0, 40.0, 2.0, 30.0, 20.0, 80.0
    )
    text = code_mode.report([summary], {"tau": [("desk machine", 30.0, 6.0, 0.5)]}, "cmd")
    assert "| tau | code mode, every tool | 2 | 0 | 40 | 2.00 | 0.250 | 30 |" in text
    assert "| tau | flat | 2 | 0 | 100 | 5.00 | 1.000 | 0 |" in text
    assert "| tau | desk machine | 2 | | 30 | 6.00 | 0.500 | 0 |" in text


def test_a_turn_without_calls_is_one_answer(tmp_path: Path) -> None:
    bench = _bench(tmp_path)

    result = asyncio.run(bench.arun(_task([], [("login", {"email": "x"})])))

    assert (result.failure, result.calls, result.code.requests) == (None, 1, 3)
