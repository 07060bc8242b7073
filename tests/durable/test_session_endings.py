"""A session cut short while its latest response was being taken ends, when continued,
as the unbroken run did: no model request more, no cut-off or refused call run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

import statetools as st
from statetools.models import ModelRequest, ModelResponse, ScriptedModel

ran: list[str] = []


def step(n: int) -> str:
    """Do one step."""
    ran.append(f"step {n}")
    return f"step {n} done"


@st.llm_tool("Deliver the work.", return_direct=True)
def deliver() -> dict[str, int]:
    ran.append("deliver")
    return {"delivered": 1}


@pytest.fixture(autouse=True)
def _fresh() -> None:
    ran.clear()


def dies_on(kind: str, number: int = 1) -> Callable[[st.Event], None]:
    """A listener that stops the process (as a crash would: nothing more is saved) at
    the ``number``-th event of ``kind``."""
    seen: list[st.Event] = []

    def listener(event: st.Event) -> None:
        if event.type == kind:
            seen.append(event)
            if len(seen) == number:
                raise KeyboardInterrupt

    return listener


def loop_of(model: ScriptedModel, *listeners: Callable[[st.Event], None]) -> st.ToolLoop:
    return st.ToolLoop(model, clock=lambda: 0.0, id_factory=lambda: "r1", listeners=list(listeners))


def same(a: st.LoopResult, b: st.LoopResult) -> None:
    assert st.messages_to_json(a.messages) == st.messages_to_json(b.messages)
    assert (a.state, a.trace, a.output, a.outcome) == (b.state, b.trace, b.output, b.outcome)


def test_a_new_message_after_a_cut_short_ending_starts_a_new_run(tmp_path: Path) -> None:
    steps: list[Any] = [[("deliver", {}), ("step", {"n": 1})], "And now?"]
    tools = [deliver, step]
    store = st.SqliteStore(tmp_path / "unbroken.db")
    loop = loop_of(ScriptedModel(steps))
    assert loop.run("go", tools=tools, session="s", store=store).output == {"delivered": 1}
    unbroken = loop.run("more", tools=tools, session="s", store=store)

    ran.clear()
    store = st.SqliteStore(tmp_path / "cut.db")
    model = ScriptedModel(steps)
    with pytest.raises(KeyboardInterrupt):
        loop_of(model, dies_on("run_finished")).run("go", tools=tools, session="s", store=store)
    saved = store.load("s")
    assert (saved.outcome, saved.output, saved.state.loop.ending) == (
        "running",
        {"delivered": 1},
        "return_direct",
    )
    continued = loop_of(model).run("more", tools=tools, session="s", store=store)
    same(continued, unbroken)
    assert [e.type for e in continued.trace].count("run_started") == 2
    assert len(model.requests) == 2
    assert ran == ["deliver", "step 1"]


def test_calls_cut_off_by_the_token_limit_are_not_run_by_a_continued_session(
    tmp_path: Path,
) -> None:
    def cut(request: ModelRequest) -> ModelResponse:
        calls = (st.ToolCall("c1", "step", {"n": 1}), st.ToolCall("c2", "step", {"n": 2}))
        return ModelResponse(st.AssistantMessage("", calls), stop_reason="max_tokens")

    steps: list[Any] = [cut, "Done."]
    unbroken = loop_of(ScriptedModel(steps)).run("go", tools=[step])
    store = st.SqliteStore(tmp_path / "s.db")
    model = ScriptedModel(steps)
    with pytest.raises(KeyboardInterrupt):
        loop_of(model, dies_on("tool_answered", 2)).run(
            "go", tools=[step], session="s", store=store
        )
    assert [m.role for m in store.load("s").messages] == ["user", "assistant", "tool"]
    continued = loop_of(model).run(None, tools=[step], session="s", store=store)
    same(continued, unbroken)
    assert ran == []
    assert [m.content for m in continued.messages if m.role == "tool"] == [
        "Tool 'step' was not run: your response was cut off by the token limit before the "
        "call was complete. Call it again, with a shorter response."
    ] * 2


def test_calls_of_a_refusal_are_not_run_by_a_continued_session(tmp_path: Path) -> None:
    def refuse(request: ModelRequest) -> ModelResponse:
        calls = (st.ToolCall("c1", "step", {"n": 1}), st.ToolCall("c2", "step", {"n": 2}))
        return ModelResponse(st.AssistantMessage("I won't.", calls), stop_reason="refusal")

    unbroken = loop_of(ScriptedModel([refuse])).run("go", tools=[step])
    store = st.SqliteStore(tmp_path / "s.db")
    model = ScriptedModel([refuse])
    with pytest.raises(KeyboardInterrupt):
        loop_of(model, dies_on("tool_answered", 2)).run(
            "go", tools=[step], session="s", store=store
        )
    assert [m.role for m in store.load("s").messages] == ["user", "assistant", "tool"]
    continued = loop_of(model).run(None, tools=[step], session="s", store=store)
    same(continued, unbroken)
    assert (continued.outcome, continued.output, ran) == ("refusal", "I won't.", [])
    assert len(model.requests) == 1


@attrs.frozen
class Answer:
    text: str


def test_a_session_that_ended_with_an_error_asks_the_model_again(tmp_path: Path) -> None:
    store = st.SqliteStore(tmp_path / "s.db")
    model = ScriptedModel(["not json", "still not", '{"text": "ok"}'])
    with pytest.raises(st.OutputValidationError):
        loop_of(model).run("go", output_type=Answer, session="s", store=store)
    continued = loop_of(model).run(None, output_type=Answer, session="s", store=store)
    assert continued.output == Answer("ok")
    assert len(model.requests) == 3


def test_three_unknown_tools_then_a_continue_asks_again(tmp_path: Path) -> None:
    store = st.SqliteStore(tmp_path / "s.db")
    model = ScriptedModel([[("a", {}), ("b", {}), ("c", {})], "fine"])
    with pytest.raises(st.ToolNotFoundError):
        loop_of(model).run("go", tools=[step], session="s", store=store)
    continued = loop_of(model).run(None, tools=[step], session="s", store=store)
    assert (continued.output, len(model.requests)) == ("fine", 2)
