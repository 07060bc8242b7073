"""Property: however the model searches, what is shown only grows at the end, the
search facade stays first, and a resumed run shows the same tools in the same order."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import statetools as st
from statetools.models import ScriptedModel
from tests.search.catalogue import RESOURCES, VERBS, catalogue

NAMES = [tool.name for tool in catalogue()]
WORDS = [*RESOURCES, *VERBS, "merge", "star", "fork", "copilot", "nothing"]

search_call = hs.one_of(
    hs.builds(
        lambda q: {"query": q},
        hs.lists(hs.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    ),
    hs.builds(lambda n: {"names": n}, hs.lists(hs.sampled_from(NAMES), min_size=1, max_size=4)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(search_call, min_size=1, max_size=8), hs.integers(min_value=1, max_value=5))
def test_searches_only_append_and_resume_in_place(
    searches: list[dict[str, Any]], max_results: int
) -> None:
    facade = st.UnfoldingTool.searchable("find", "Find tools", catalogue(), max_results=max_results)
    model = ScriptedModel([*(("find", arguments) for arguments in searches), "done"])
    result = st.ToolLoop(model).run("go", tools=[facade])

    previous: list[str] = []
    for request in model.requests:
        assert request.tool_names[: len(previous)] == previous
        assert request.tool_names[0] == "find"
        previous = request.tool_names
    resumed = st.Scheduler.for_items([facade], result.state)
    assert [t.name for t in resumed.visible()] == previous
