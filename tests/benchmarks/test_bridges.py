"""benchmarks/bridges.py measures what it says: each framework, with the bridge and
with its own filter, runs 11 requests that each carried exactly the 10 visible tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from benchmarks import bridges
from statetools.disclosure.scheduler import Scheduler


@pytest.mark.parametrize(
    "measure",
    [m for _, _, m in bridges.FRAMEWORKS],
    ids=[f"{f} {o}" for f, o, _ in bridges.FRAMEWORKS],
)
def test_both_setups_run_with_ten_tools_per_request(measure: Callable[[int, int], Any]) -> None:
    bridge_ms, own_ms = measure(30, 1)  # the test models assert the 10 tools per request
    assert bridge_ms > 0
    assert own_ms > 0


def test_the_design_shows_ten_of_n() -> None:
    scheduler = Scheduler.for_items(bridges.design(30))
    assert list(scheduler.shown().names) == [f"t{i}" for i in range(10)]
