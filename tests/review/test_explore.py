"""explore(): visible sets, fewest turns and their paths, tokens, bounds."""

from __future__ import annotations

import enum
import json

import pytest

import statetools as st
from statetools.review import Exploration, ExplorationTooLarge, Progress, VisibleSet, explore
from tests.review.designs import order, research, tool


def sets(exploration: Exploration) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    return [(s.tools, s.path) for s in exploration.visible_sets]


def test_playbook_min_turns_paths_and_sets() -> None:
    exploration = explore(st.disclosure_graph(research()))
    assert sets(exploration) == [
        (("search",), ()),
        (("search", "analyze"), ("search",)),
        (("search", "analyze", "report"), ("search", "analyze")),
    ]
    assert exploration.min_turns == {"search": 0, "analyze": 1, "report": 2}
    assert exploration.paths == {
        "search": (),
        "analyze": ("search",),
        "report": ("search", "analyze"),
    }
    assert exploration.never_visible == ()
    assert (exploration.states, exploration.depth, exploration.complete) == (3, 2, True)


def test_tokens_of_sets_largest_and_flat() -> None:
    exploration = explore(st.disclosure_graph(research()))
    assert exploration.tool_tokens == {"search": 36, "analyze": 37, "report": 36}
    assert [s.tokens for s in exploration.visible_sets] == [37, 73, 108]
    assert exploration.initial == VisibleSet(("search",), 37, ())
    assert exploration.largest.tools == ("search", "analyze", "report")
    assert (exploration.max_tokens, exploration.flat_tokens) == (108, 108)


def test_anthropic_serialization_is_counted_too() -> None:
    exploration = explore(st.disclosure_graph(research()), provider="anthropic")
    assert exploration.tool_tokens == {"search": 30, "analyze": 31, "report": 30}
    assert exploration.flat_tokens == 93


def test_machine_states_and_global_tools() -> None:
    exploration = explore(st.disclosure_graph(order()))
    assert sets(exploration) == [
        (("confirm", "help"), ()),
        (("ship", "help"), ("confirm",)),
        (("help",), ("confirm", "ship")),
    ]
    assert exploration.min_turns == {"confirm": 0, "help": 0, "ship": 1}
    assert exploration.states == 3


def test_guarded_transition_may_fire_or_not() -> None:
    machine = (
        st.StateMachineTool("m", "M", enum.Enum("S", "A B"))
        .in_state("A")
        .with_tool(tool("attempt"))
        .transitions_to("B", lambda result: result.text == "ok", label="ok")
        .in_state("B")
        .with_tool(tool("done"))
    )
    exploration = explore(st.disclosure_graph(machine))
    assert sets(exploration) == [(("attempt",), ()), (("done",), ("attempt",))]
    assert exploration.states == 2  # a failed guard leaves the machine in A


def test_when_is_taken_both_ways_and_artifacts_need_a_call() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("fetch"))
        .with_tool(tool("maybe"))
        .unlocked_when(lambda view: True, "it is Monday")
        .with_tool(tool("use"))
        .unlocked_by_artifact(dict)
    )
    exploration = explore(st.disclosure_graph(playbook))
    assert sets(exploration) == [
        (("fetch",), ()),
        (("fetch", "maybe"), ()),
        (("fetch", "use"), ("fetch",)),
        (("fetch", "maybe", "use"), ("fetch",)),
    ]
    assert exploration.min_turns == {"fetch": 0, "maybe": 0, "use": 1}
    assert exploration.initial.tools == ("fetch", "maybe")


def test_in_state_conditions_follow_the_machine() -> None:
    playbook = (
        st.PlaybookTool("p", "P").with_tool(tool("track")).unlocked(st.InState("order", "SENT"))
    )
    exploration = explore(st.disclosure_graph(order(), playbook))
    assert exploration.min_turns["track"] == 1
    assert exploration.paths["track"] == ("confirm",)


def test_tools_that_never_show() -> None:
    playbook = st.PlaybookTool("p", "P").with_tool(tool("a")).with_tool(tool("b")).unlocked_by("b")
    exploration = explore(st.disclosure_graph(playbook))
    assert exploration.never_visible == ("b",)
    assert exploration.min_turns == {"a": 0}


def wide(n: int) -> st.PlaybookTool:
    playbook = st.PlaybookTool("wide", "Many independent unlocks")
    for i in range(n):
        playbook = playbook.with_tool(tool(f"t{i}")).with_tool(tool(f"u{i}")).unlocked_by(f"t{i}")
    return playbook


def test_bounded_with_a_clear_message() -> None:
    graph = st.disclosure_graph(wide(10))
    with pytest.raises(ExplorationTooLarge) as caught:
        explore(graph, max_states=100)
    assert str(caught.value) == (
        "the design has more than 100 disclosure states (explored 22, reaching turn 3) "
        "Hint: pass max_depth=2 to explore the first turns only, or a larger max_states"
    )
    assert (caught.value.depth, caught.value.states) == (3, 100)
    assert isinstance(caught.value, st.StatetoolsError)


def test_max_depth_explores_the_first_turns() -> None:
    exploration = explore(st.disclosure_graph(wide(10)), max_depth=1)
    assert (exploration.states, exploration.depth, exploration.complete) == (11, 1, False)
    assert len(exploration.visible_sets) == 11
    assert exploration.min_turns["u9"] == 1


def test_progress_is_reported() -> None:
    seen: list[Progress] = []
    explore(st.disclosure_graph(wide(10)), progress=seen.append)
    assert len(seen) == 3
    assert seen[-1] == Progress(states=1024, queued=0, depth=10)


def test_text_and_json() -> None:
    exploration = explore(st.disclosure_graph(research()))
    assert exploration.to_text() == (
        "3 disclosure states, 3 distinct visible sets (complete)\n"
        "tokens (o200k_base, openai): flat 108, start 37, largest 108 (100% of flat)\n"
        "\n"
        "turns  tools  tokens  after\n"
        "    0      1      37  (start)\n"
        "    1      2      73  search\n"
        "    2      3     108  search, analyze\n"
        "\n"
        "tool     turns  tokens  after\n"
        "search       0      36  (start)\n"
        "analyze      1      37  search\n"
        "report       2      36  search, analyze"
    )
    data = json.loads(exploration.to_json())
    assert data["tools"]["report"] == {"tokens": 36, "min_turns": 2, "path": ["search", "analyze"]}
    assert data["visible_sets"][1] == {
        "tools": ["search", "analyze"],
        "tokens": 73,
        "turns": 1,
        "path": ["search"],
    }
    assert (data["flat_tokens"], data["max_tokens"], data["complete"]) == (108, 108, True)
