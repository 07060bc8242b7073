"""benchmarks/bridges.py measures what it says: each framework, with the bridge and
with its own filter, runs 11 requests that each carried exactly the 10 visible tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from benchmarks import bridges
from statetools.engine.scheduler import Scheduler


@pytest.mark.parametrize(
    "measure",
    [m for _, _, m in bridges.FRAMEWORKS],
    ids=[f"{f} {o}" for f, o, _ in bridges.FRAMEWORKS],
)
def test_both_setups_run_with_ten_tools_per_request(measure: Callable[[int, int], Any]) -> None:
    timing = measure(30, 1)  # the test models assert the 10 tools per request
    assert timing.bridge_ms > 0
    assert timing.own_ms > 0
    assert len(timing.paired) == 1


def test_the_design_shows_ten_of_n() -> None:
    scheduler = Scheduler.for_items(bridges.design(30))
    assert list(scheduler.shown().names) == [f"t{i}" for i in range(10)]


def test_paired_ratios_divide_each_rounds_bridge_run_by_the_filter_run_next_to_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [0.0]
    monkeypatch.setattr(bridges.time, "perf_counter", lambda: clock[0])
    bridge_costs = iter([9.0, 2.0, 3.0, 4.0])  # the first run of each side is the warm-up
    own_costs = iter([9.0, 1.0, 2.0, 1.0])

    def run(costs: Any) -> Callable[[], None]:
        def once() -> None:
            clock[0] += next(costs)

        return once

    timing = bridges.interleaved(run(bridge_costs), run(own_costs), repeats=3, seconds=0.0)
    per_request = 1000 / bridges.REQUESTS
    assert timing.paired == pytest.approx((2.0, 1.5, 4.0))
    assert timing.bridge_ms == pytest.approx(2.0 * per_request)
    assert timing.own_ms == pytest.approx(1.0 * per_request)
    assert timing.ratio == pytest.approx(2.0)


def test_median_interval_brackets_the_median_and_is_repeatable() -> None:
    values = [0.9, 1.0, 1.0, 1.1, 1.2, 0.95, 1.05]
    middle, low, high = bridges.median_interval(values)
    assert middle == 1.0
    assert low <= middle <= high
    assert (low, high) == bridges.median_interval(values)[1:]
    assert bridges.median_interval([1.0, 1.0]) == (1.0, 1.0, 1.0)
