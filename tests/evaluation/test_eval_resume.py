"""Ctrl-C in the middle of ``statetools eval``, then the same command again: the second
process runs only what the first did not finish, and the report is the full one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import statetools
from tests.evaluation.policy_server import PolicyServer
from tests.evaluation.shop import FACADES, PLANS, write_shop
from tests.evaluation.test_eval_policy import REQUESTS

ROOT = Path(statetools.__file__).resolve().parents[1]


@pytest.fixture
def slow_policy() -> Iterator[PolicyServer]:
    server = PolicyServer(PLANS, FACADES, delay=0.15).start()
    yield server
    server.stop()


def _command(tasks: Path, url: str, out: Path, facade: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        # Ctrl-C as at a terminal, even when this test runs where SIGINT is ignored (a
        # background job inherits SIG_IGN, and Python then leaves it ignored)
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from statetools.cli import main; sys.exit(main(sys.argv[1:]))",
        "eval",
        str(tasks),
        "--model",
        "openai-chat:policy",
        "--base-url",
        url,
        "--flat",
        "--design",
        f"facade={facade}",
        "--concurrency",
        "1",
        "--out",
        str(out),
    ]


def _runs(journal: Path) -> list[tuple[str, str]]:
    if not journal.exists():
        return []
    keys = []
    for line in journal.read_text().splitlines()[1:]:
        run = json.loads(line)["run"]
        keys.append((run["condition"], run["task"]))
    return keys


def test_ctrl_c_then_the_same_command_continues_where_it_stopped(
    tmp_path: Path, slow_policy: PolicyServer
) -> None:
    shop = write_shop(tmp_path)
    out = tmp_path / "results.json"
    journal = tmp_path / "results.runs.jsonl"
    command = _command(shop["tasks"], slow_policy.url, out, shop["facade"])
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    first = subprocess.Popen(
        command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while len(_runs(journal)) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGINT)
    _, stderr = first.communicate(timeout=60)
    saved = _runs(journal)
    asked_first = len(slow_policy.requests)

    assert first.returncode == 130, stderr
    assert stderr.splitlines()[-1] == (
        f"interrupted; finished runs are saved in {journal}: run the same command again to continue"
    )
    assert 3 <= len(saved) < 8
    assert not out.exists()

    second = subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=120, check=False
    )

    assert second.returncode == 0, second.stderr
    assert (
        second.stderr.splitlines()[0] == f"continuing: {len(saved)} of 8 runs already in {journal}"
    )
    missing = [
        (condition, task)
        for condition in ("flat", "facade")
        for task in ("cancel", "lookup", "refund", "products")
        if (condition, task) not in saved
    ]
    assert _runs(journal) == saved + missing
    # the second process asked the model only for the runs the first did not finish
    asked_second = len(slow_policy.requests) - asked_first
    assert asked_second == sum(len(REQUESTS[condition][task]) for condition, task in missing)
    summaries = json.loads(out.read_text())["summaries"]
    assert [(s["name"], s["successes"], s["requests"]) for s in summaries] == [
        ("flat", 3, 10),
        ("facade", 2, 11),
    ]
