"""``loop.stream`` takes the same keyword parameters as ``run``/``arun`` and uses them all."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import attrs

import statetools as st
from statetools.models import ScriptedModel


@attrs.frozen
class Answer:
    text: str


class MemoryStore:
    def __init__(self) -> None:
        self.runs: dict[str, st.SavedRun] = {}

    def saved(self, session: str) -> st.SavedRun | None:
        return self.runs.get(session)

    def save(self, session: str, run: st.SavedRun) -> None:
        self.runs[session] = run


def test_stream_has_the_keyword_parameters_of_arun() -> None:
    stream = inspect.signature(st.ToolLoop.stream).parameters
    arun = inspect.signature(st.ToolLoop.arun).parameters
    assert list(stream.values()) == list(arun.values())


def test_every_parameter_reaches_the_run() -> None:
    seen: list[Any] = []

    def note(context: st.ToolCallContext) -> str:
        """Note the context."""
        seen.append(context["user"])
        return "noted"

    first = st.ToolLoop(ScriptedModel([("note", {}), '{"text": "one"}'])).run(
        "go", tools=[note], context={"user": "ann"}
    )
    store = MemoryStore()
    model = ScriptedModel([("note", {}), '```json\n{"text": "two"}\n```'])

    async def main() -> st.LoopResult:
        stream = st.ToolLoop(model).stream(
            "again",
            tools=[note],
            output_type=Answer,
            context={"user": "bob"},
            state=first.state,
            session="s",
            store=store,
        )
        async for _ in stream:
            pass
        return stream.result

    result = asyncio.run(main())
    assert result.output == Answer("two")
    assert seen == ["ann", "bob"]
    assert result.state.call_counts == {"note": 2}
    assert result.state.iteration == 4  # resumed from the first run's state
    assert store.runs["s"].result == result
