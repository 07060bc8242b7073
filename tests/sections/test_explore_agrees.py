"""Property test: on random section trees, explore() and real runs agree.

Sections share tools (so one read may open what another already did), some are full,
some summarized, some text only. Every tool set a run sends is one explore() found;
replaying the path explore() gives for a set shows that set; and reading every section
of a state's ``max_reads`` leaves the tools of that state (those reads open nothing
more), so the prompt range per state is one a run can be in.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import statetools as st
from statetools.models import ScriptedModel

TOOLS = [st.Tool.create(f"t{i}", f"Tool {i}.", lambda: "ok") for i in range(4)]
STEP = re.compile(r"^read_section\(key=(.+)\)$")


@hs.composite
def section_trees(draw: hs.DrawFn, depth: int = 0) -> list[st.Section]:
    """One level of sections (keys s0, s1, ...), each maybe with children."""
    count = draw(hs.integers(1 if depth == 0 else 0, 3 if depth == 0 else 2))
    sections = []
    for i in range(count):
        tools = draw(hs.lists(hs.sampled_from(TOOLS), max_size=2, unique_by=lambda t: t.name))
        children = draw(section_trees(depth + 1)) if depth < 2 else []
        sections.append(
            st.Section(
                f"s{i}",
                f"S{i}",
                f"Body {depth}.{i}.",
                summary=f"About {depth}.{i}.",
                visibility=draw(hs.sampled_from(["summary", "summary", "full"])),
                tools=tools,
                children=children,
            )
        )
    return sections


def calls(path: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    """A path of explore's steps as the model's calls."""
    found: list[tuple[str, dict[str, Any]]] = []
    for step in path:
        match = STEP.match(step)
        found.append(("read_section", {"key": match.group(1)}) if match else (step, {}))
    return found


def sent(sections: st.Sections, steps: list[tuple[str, dict[str, Any]]]) -> list[frozenset[str]]:
    """The tool sets the model was sent, one call per turn."""
    model = ScriptedModel([*steps, "end"])
    st.ToolLoop(model, max_iterations=len(steps) + 1).run("go", tools=[sections])
    return [frozenset(request.tool_names) for request in model.requests]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(roots=section_trees(), data=hs.data())
def test_explore_and_runs_agree_on_section_trees(
    roots: list[st.Section], data: hs.DataObject
) -> None:
    sections = st.Sections(*roots)
    exploration = st.explore([sections])
    found = {frozenset(v.tools) for v in exploration.visible_sets}
    for visible_set in exploration.visible_sets:
        assert sent(sections, calls(visible_set.path))[-1] == frozenset(visible_set.tools)
    for state in exploration.prompt_states:
        first = [key for key in state.max_keys if key not in state.keys]
        reads = [("read_section", {"key": key}) for key in first]
        assert sent(sections, [*reads, *calls(state.path)])[-1] == frozenset(state.tools)
    keys = sections.keys()
    reads = data.draw(hs.lists(hs.sampled_from(keys), max_size=6))
    for tools in sent(sections, [("read_section", {"key": key}) for key in reads]):
        assert tools in found, (reads, sorted(tools))
