"""format_trace: one readable line per event, nothing that varies between runs."""

from __future__ import annotations

import enum
from typing import Any, Literal

import attrs
import pytest

import statetools as st
from statetools.engine.events import (
    CallBlocked,
    ConversationRestarted,
    InjectionLimitReached,
    InjectionSkipped,
    IterationStarted,
    ModelResponded,
    OutputRejected,
    RunFinished,
    RunStarted,
    StateEntered,
    ToolAnswered,
    ToolCalled,
    ToolNotFound,
    ToolsHidden,
    ToolsInjected,
    ToolsRemoved,
    ToolsUnlocked,
)
from statetools.testing import format_trace

EVERY_KIND = st.Trace(
    (
        RunStarted("a1b2", 12.5, ("search",)),
        IterationStarted(1, ("search", "report", "analyze")),
        ModelResponded(1, "Let me look.", ("search", "nope", "report"), "tool_use"),
        ToolCalled(1, "call_1", "search", {"query": "tides", "limit": 3}, "artifact", 0.25),
        ToolAnswered(1, "call_1", "search", "3 notes (at 12:03)", False),
        ToolNotFound(1, "call_2", "nope"),
        CallBlocked(1, "call_3", "report", "Tool 'report' is locked.\nCall first: analyze."),
        ToolsUnlocked(1, ("summarize", "analyze")),
        ToolsHidden(1, ("search",)),
        StateEntered(1, "order", "CONFIRMED", "DRAFT", False),
        StateEntered(1, "order", "DONE", "CONFIRMED", True),
        ToolsInjected(1, ("help", "faq"), "Helper"),
        ToolsRemoved(1, ("old",), "Helper"),
        InjectionSkipped(1, "help", "a tool with this name is already visible"),
        InjectionLimitReached(1, 20, ("repo_b_read", "repo_a_read"), "discovery"),
        IterationStarted(2, ()),
        ConversationRestarted(2, 1, ("b", "a")),
        ModelResponded(2, "no", (), "end_turn"),
        OutputRejected(2, "Not JSON."),
        RunFinished(99.0, 2, "answer"),
    )
)


def test_every_known_event_has_its_own_line() -> None:
    assert format_trace(EVERY_KIND) == (
        "turn 1 | visible: analyze, report, search\n"
        '  says: "Let me look."\n'
        '  call search {"limit": 3, "query": "tides"} -> artifact\n'
        "  call nope -> not found\n"
        "  call report -> blocked: Tool 'report' is locked.\\nCall first: analyze.\n"
        "  unlocked: analyze, summarize\n"
        "  hidden: search\n"
        "  state order: DRAFT -> CONFIRMED\n"
        "  state order: CONFIRMED -> DONE (final)\n"
        "  injected by Helper: faq, help\n"
        "  removed by Helper: old\n"
        "  injection skipped: help (a tool with this name is already visible)\n"
        "  not injected by discovery (limit of 20 reached): repo_a_read, repo_b_read\n"
        "turn 2 | visible: (none)\n"
        "  restarted as conversation 1 | visible: a, b\n"
        '  answer: "no"\n'
        "  output rejected: Not JSON.\n"
        "finished: answer after 2 iterations\n"
    )


def _varied(event: Any) -> Any:
    other = {"run_id": "other", "at": 1.0, "duration": 9.0, "call_id": "call_x"}
    fields = attrs.fields_dict(type(event))
    return attrs.evolve(event, **{k: v for k, v in other.items() if k in fields})


def test_no_timestamps_durations_or_ids() -> None:
    varied = st.Trace(tuple(_varied(e) for e in EVERY_KIND))
    assert varied != EVERY_KIND
    assert format_trace(varied) == format_trace(EVERY_KIND)


def test_with_a_result_blocked_and_unknown_calls_show_their_arguments() -> None:
    @st.llm_tool("Search.")
    def search(query: str) -> str:
        return "found"

    @st.llm_tool("Report.")
    def report() -> str:
        return "done"

    playbook = st.PlaybookTool("p", "d").with_tool(search).with_tool(report).unlocked_by(search)
    steps: list[Any] = [[("report", {"title": "T"}), ("find", {"q": "x"})], "ok"]
    result = st.testing.run_scripted(playbook, steps)
    assert format_trace(result) == (
        "turn 1 | visible: search\n"
        '  call report {"title": "T"} -> blocked: Tool \'report\' is locked. Call first: search.\n'
        '  call find {"q": "x"} -> not found\n'
        "turn 2 | visible: search\n"
        '  answer: "ok"\n'
        "finished: answer after 2 iterations\n"
    )
    assert format_trace(result.trace).splitlines()[1:3] == [
        "  call report -> blocked: Tool 'report' is locked. Call first: search.",
        "  call find -> not found",
    ]


class Color(enum.Enum):
    RED = "red"


@attrs.frozen
class Point:
    x: int
    y: int


class Opaque:
    pass


def test_arguments_read_the_same_whatever_the_dict_or_set_order() -> None:
    one = {"b": {"z": 1, "a": [1, 2]}, "a": frozenset({"q", "p", "r"}), "c": Color.RED}
    other = {"c": Color.RED, "a": frozenset({"r", "p", "q"}), "b": {"a": [1, 2], "z": 1}}
    lines = [
        format_trace([ToolCalled(1, "c1", "t", arguments, "text", 0.0)])
        for arguments in (one, other)
    ]
    assert (
        lines[0]
        == lines[1]
        == ('  call t {"a": ["p", "q", "r"], "b": {"a": [1, 2], "z": 1}, "c": "RED"} -> text\n')
    )


def test_values_that_are_not_json_are_written_without_addresses() -> None:
    text = format_trace(
        [ToolCalled(1, "c1", "t", {"p": Point(1, 2), "o": Opaque(), "s": "é"}, "text", 0.0)]
    )
    assert text == (
        '  call t {"o": "<tests.testing.test_traces.Opaque object>", '
        '"p": {"x": 1, "y": 2}, "s": "é"} -> text\n'
    )


@attrs.frozen
class FacadeUnfolded:
    """An event type format_trace has no line of its own for."""

    iteration: int
    facade: str
    revealed: frozenset[str]
    at: float
    type: Literal["facade_unfolded"] = "facade_unfolded"


class Note:
    """A plain object with a ``type``."""

    def __init__(self) -> None:
        self.type = "note"
        self.text = "hi"
        self.call_id = "call_9"


class Bare:
    type = "bare"


def test_unknown_events_are_written_generically() -> None:
    events = [FacadeUnfolded(1, "files", frozenset({"write", "read"}), 3.5), Note(), Bare()]
    assert format_trace(events) == (
        '  facade_unfolded: facade="files", revealed=["read", "write"]\n  note: text="hi"\n  bare\n'
    )


def test_something_that_is_not_an_event_is_refused() -> None:
    with pytest.raises(TypeError, match=r"not an event: 42 \(format_trace takes a LoopResult"):
        format_trace([42])
