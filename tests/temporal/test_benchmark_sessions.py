"""benchmarks/temporal_sessions.py on a few sessions: its design, its checks (a wrong
session is caught) and its worker (the real ``statetools worker`` with capacity
options). The benchmark itself, with 1,000 sessions, runs in ``make bench``."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from datetime import timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import temporal_desk as desk
import temporal_sessions as bench

import statetools as st
from statetools.cli import _parser
from statetools.cli.server_commands import worker_options
from statetools.messages import messages_to_json
from statetools.temporal import SessionResult, session_worker
from tests.temporal.conftest import DevServer


def _local(n: int) -> SessionResult:
    result = st.ToolLoop(desk.MODEL).run(desk.prompt(n), tools=desk.DESIGN)
    assert result.output is not None
    return SessionResult(
        result.output,
        [result.output],
        messages_to_json(list(result.messages)),
        result.state.to_json(),
        result.iterations,
        1,
        trace=result.trace.to_json(),
    )


def test_sessions_of_each_kind_end_with_the_expected_answer() -> None:
    outputs = [_local(n).output for n in range(3)]

    assert outputs == [
        "customer C00000\n[now available: order_status]",
        "customer C00001\n[now available: order_status] | "
        "Tools now available: write_note, read_notes. | order W1 is packed | "
        "noted for C00001: 14 characters",
        "customer C00002\n[now available: order_status] | order W2 is delivered | "
        "Tools now available: write_note, read_notes. | no notes for C00002",
    ]
    assert outputs == [desk.expected_answer(n) for n in range(3)]
    assert [_local(n).iterations for n in range(3)] == [2, 3, 4]


def test_the_benchmark_finds_a_wrong_session() -> None:
    right = _local(4)
    other = _local(7)
    tools = [e for e in right.trace if e["type"] == "iteration_started"]
    wrong_tools = dataclasses.replace(
        right,
        trace=[{**e, "tools": ["find_customer"]} if e is tools[0] else e for e in right.trace],
    )

    assert _check(4, right) == []
    assert _check(4, dataclasses.replace(right, output="done")) == [
        f"answer 'done', expected {desk.expected_answer(4)!r}"
    ]
    assert _check(4, wrong_tools) == [
        f"tools shown [['find_customer'], {desk.OPEN}, {desk.OPEN}], expected {desk.SHOWN[1]}"
    ]
    assert _check(4, dataclasses.replace(right, messages=other.messages)) == [
        "history differs from a local run's"
    ]


def _check(n: int, result: SessionResult) -> list[str]:
    return asyncio.run(bench.check(n, result))


def _worker_arguments(*options: str) -> argparse.Namespace:
    return _parser().parse_args(["worker", "d.yaml", "--task-queue", "q", *options])


def test_worker_capacity_options_reach_the_temporal_worker(dev_server: DevServer) -> None:
    options = worker_options(
        _worker_arguments(
            "--max-concurrent-workflow-tasks",
            "7",
            "--max-concurrent-activities",
            "5",
            "--max-cached-workflows",
            "30",
            "--sticky-timeout",
            "2",
        )
    )
    worker = session_worker(dev_server.env.client, "q", [], desk.MODEL, **options)
    config = worker.config()

    assert config.get("max_concurrent_workflow_tasks") == 7
    assert config.get("max_concurrent_activities") == 5
    assert config.get("max_cached_workflows") == 30
    assert config.get("sticky_queue_schedule_to_start_timeout") == timedelta(seconds=2)
    assert worker_options(_worker_arguments()) == {
        "sticky_queue_schedule_to_start_timeout": timedelta(seconds=10)
    }


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-concurrent-workflow-tasks", "1", "expected a whole number of 2 or more, got '1'"),
        ("--max-concurrent-activities", "0", "expected a whole number of 1 or more, got '0'"),
        ("--max-cached-workflows", "many", "expected a whole number of 0 or more, got 'many'"),
        ("--sticky-timeout", "0", "expected a number of seconds above 0, got '0'"),
        ("--sticky-timeout", "nan", "expected a number of seconds above 0, got 'nan'"),
    ],
)
def test_worker_capacity_options_refuse_bad_numbers(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        _worker_arguments(option, value)

    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"statetools worker: error: argument {option}: {message}"
    )


def test_a_few_concurrent_sessions_on_a_worker_process(
    dev_server: DevServer, tmp_path: Path
) -> None:
    settings = bench.WorkerSettings(workflow_tasks=4, activities=4, cache=8)
    measured = dev_server.loop.run_until_complete(
        bench.run_size(
            dev_server.env.client,
            dev_server.target,
            bench.dev_server_pid(),
            6,
            settings,
            tmp_path,
        )
    )

    assert measured.size == 6
    assert measured.model_calls == 2 + 3 + 4 + 2 + 3 + 4
    assert len(measured.latencies) == 6
    assert all(0 < latency <= measured.wall for latency in measured.latencies)
    assert measured.peak_rss > 20 * 2**20
    assert measured.worker_cpu > 0
    table = bench.report([measured], (1.0, 1.0, 1.0))
    assert "| 6 | 8 | 18 | " in table
    assert "--max-concurrent-workflow-tasks 4 --max-concurrent-activities 4" in table
