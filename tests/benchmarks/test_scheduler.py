"""benchmarks/scheduler.py times real work: every call of each design's walk is of a
tool visible at that turn, at every size (a walk that named missing tools once made
the small machine look cheap)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import statetools as st
from benchmarks import scheduler as bench


@pytest.mark.parametrize("n", bench.SIZES[:2])
@pytest.mark.parametrize("build", list(bench.DESIGNS.values()), ids=list(bench.DESIGNS))
def test_every_call_of_the_walk_is_visible_when_made(
    build: Callable[[int], tuple[list[Any], list[str]]], n: int
) -> None:
    items, walk = build(n)
    scheduler = st.Scheduler(st.disclosure_graph(*items))
    assert len(walk) == bench.TURNS
    for index, name in enumerate(walk):
        scheduler.begin_turn()
        assert name in [tool.name for tool in scheduler.visible()], (index, name)
        scheduler.record(st.ToolCall(f"c{index}", name, {}), bench.RESULT)


def test_the_machine_walk_goes_round_its_ring_of_states() -> None:
    _, walk = bench.machine(100)
    assert walk == [f"next{i % 10}" for i in range(20)]
