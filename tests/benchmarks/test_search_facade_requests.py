"""benchmarks/search_facade_requests.py measures what it says: every request of a run
declares the search facade's tools that may open (all but the tenth behind v0), and
every call of the run runs."""

from __future__ import annotations

import pytest

from benchmarks import search_facade_requests as bench


@pytest.mark.parametrize("mode", list(bench.ADAPTERS))
def test_each_request_declares_what_the_facade_may_open_and_every_call_runs(mode: str) -> None:
    graph = bench.design(100)
    adapter = bench.ADAPTERS[mode]()
    assert bench.searchable_sizes(graph, adapter) == [90, 90, 90]
    assert bench.one_run(graph, adapter, 4) >= 0.0
