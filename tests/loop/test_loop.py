"""The tool loop: execution order, answers to every call, errors that keep history."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from typing import Any

import attrs
import pytest

import statetools as st
from statetools.engine.events import (
    InjectionSkipped,
    IterationStarted,
    ModelResponded,
    OutputRejected,
    RunFinished,
    RunStarted,
    ToolAnswered,
    ToolCalled,
    ToolNotFound,
    ToolsInjected,
    ToolsRemoved,
    ToolStarted,
)
from statetools.models import ModelResponse, ScriptedModel, Usage


@st.llm_tool("Search the catalogue.")
def search(query: str) -> str:
    return f"3 hits for {query}"


@st.llm_tool("Fetch one record by id.")
def fetch(record_id: int) -> dict[str, Any]:
    if record_id == 0:
        raise LookupError("record 0 was deleted")
    return {"id": record_id, "title": f"Record {record_id}"}


@st.llm_tool("Analyze the hits.")
def analyze() -> str:
    return "looks good"


def counting_clock() -> Any:
    ticks = itertools.count()
    return lambda: float(next(ticks))


def make_loop(model: Any, **options: Any) -> st.ToolLoop:
    return st.ToolLoop(model, clock=counting_clock(), id_factory=lambda: "run-1", **options)


def test_a_call_then_an_answer_gives_the_exact_history() -> None:
    model = ScriptedModel([("search", {"query": "lamps"}), "Found 3 lamps."])
    result = make_loop(model).run("Find lamps", tools=[search])

    assert result.output == "Found 3 lamps."
    assert result.iterations == 2
    assert list(result.messages) == [
        st.UserMessage("Find lamps"),
        st.AssistantMessage(tool_calls=[st.ToolCall("call_1", "search", {"query": "lamps"})]),
        st.ToolMessage("call_1", "search", "3 hits for lamps"),
        st.AssistantMessage("Found 3 lamps."),
    ]
    assert [r.tool_names for r in model.requests] == [["search"], ["search"]]
    assert model.requests[1].messages == result.messages[:3]


def test_parallel_calls_failing_unknown_and_good_are_all_answered_in_order() -> None:
    model = ScriptedModel(
        [
            [("fetch", {"record_id": 0}), ("fetc", {"record_id": 1}), ("fetch", {"record_id": 2})],
            "Record 2 exists.",
        ]
    )
    result = make_loop(model).run("Get records", tools=[search, fetch])

    tool_messages = [m for m in result.messages if isinstance(m, st.ToolMessage)]
    assert tool_messages == [
        st.ToolMessage("call_1", "fetch", "Tool 'fetch' failed: record 0 was deleted", True),
        st.ToolMessage(
            "call_2",
            "fetc",
            "Tool 'fetc' does not exist. Did you mean 'fetch'? Available tools: search, fetch.",
            True,
        ),
        st.ToolMessage("call_3", "fetch", '{"id": 2, "title": "Record 2"}', False),
    ]
    called = result.trace.of_type(ToolCalled)
    assert [(e.call_id, e.outcome) for e in called] == [("call_1", "error"), ("call_3", "artifact")]
    assert [e.name for e in result.trace.of_type(ToolNotFound)] == ["fetc"]


def test_unknown_tool_messages() -> None:
    from statetools.engine.answers import unknown_tool_message

    assert unknown_tool_message("zzz", ["search", "fetch"]) == (
        "Tool 'zzz' does not exist. Available tools: search, fetch."
    )
    assert unknown_tool_message("get_user", ["get_users", "get_user_id", "get_use", "x"]) == (
        "Tool 'get_user' does not exist. Did you mean 'get_users', 'get_use' or "
        "'get_user_id'? Available tools: get_users, get_user_id, get_use, x."
    )
    assert unknown_tool_message("a", []) == "Tool 'a' does not exist. Available tools: none."


def test_three_misses_in_a_row_raise_with_the_whole_history() -> None:
    model = ScriptedModel([("nope", {}), [("nada", {}), ("never", {})], "unreachable"])
    with pytest.raises(st.ToolNotFoundError) as caught:
        make_loop(model).run("go", tools=[search])

    error = caught.value
    assert str(error) == (
        "iteration 2: the model called tools that do not exist 3 times in a row "
        "Hint: check the tool names in the prompt and the model's instructions"
    )
    assert error.result is not None
    answered = [m.tool_call_id for m in error.result.messages if isinstance(m, st.ToolMessage)]
    assert answered == ["call_1", "call_2", "call_3"]
    assert error.result.trace[-1] == RunFinished(
        at=error.result.trace[-1].at, iterations=2, outcome="ToolNotFoundError", error=str(error)
    )


def test_a_known_call_resets_the_miss_count() -> None:
    model = ScriptedModel(
        [[("nope", {}), ("nada", {})], ("search", {"query": "x"}), ("never", {}), "done"]
    )
    assert make_loop(model).run("go", tools=[search]).output == "done"


def test_max_iterations_raises_with_partial_result() -> None:
    model = ScriptedModel([("search", {"query": str(i)}) for i in range(5)])
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        make_loop(model, max_iterations=3).run("loop forever", tools=[search])

    error = caught.value
    assert error.message == "no final answer after 3 model calls"
    assert error.result is not None
    assert error.result.iterations == 3
    assert len(error.result.messages) == 7
    assert error.result.messages[-1] == st.ToolMessage("call_3", "search", "3 hits for 2")


class AfterSearchAddAnalyze:
    """Adds `analyze` after a successful search, removes `search` after analyze."""

    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        if context.call.name == "search" and not context.result.is_error:
            return st.Injection(add=[st.as_tool(analyze), st.as_tool(search)])
        if context.call.name == "analyze":
            return st.Injection(remove=["search"])
        return None


def test_a_strategy_injects_a_tool_that_the_next_request_shows() -> None:
    model = ScriptedModel([("search", {"query": "q"}), ("analyze", {}), "All done."])
    result = make_loop(model, strategies=[AfterSearchAddAnalyze()]).run(
        "research", tools=[search, fetch]
    )

    assert [r.tool_names for r in model.requests] == [
        ["search", "fetch"],
        ["search", "fetch", "analyze"],
        ["fetch", "analyze"],
    ]
    assert result.trace.of_type(ToolsInjected) == [
        ToolsInjected(iteration=1, names=("analyze",), source="AfterSearchAddAnalyze")
    ]
    assert result.trace.of_type(InjectionSkipped) == [
        InjectionSkipped(1, "search", "a tool with this name is already visible")
    ]
    assert result.trace.of_type(ToolsRemoved) == [
        ToolsRemoved(iteration=2, names=("search",), source="AfterSearchAddAnalyze")
    ]


def test_chained_strategies_combine_in_order() -> None:
    class Add:
        def __init__(self, tool: st.BaseTool) -> None:
            self.tool = tool

        def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
            return st.Injection(add=[self.tool]) if context.iteration == 1 else None

    model = ScriptedModel([("search", {"query": "q"}), "ok"])
    loop = make_loop(model, strategies=[Add(st.as_tool(analyze)), Add(st.as_tool(fetch))])
    loop.run("go", tools=[search])
    assert model.requests[1].tool_names == ["search", "analyze", "fetch"]
    assert isinstance(loop.strategy, st.ChainedStrategy)


def test_an_injected_tool_called_in_the_same_response_runs() -> None:
    model = ScriptedModel([[("search", {"query": "q"}), ("analyze", {})], "ok"])
    result = make_loop(model, strategies=[AfterSearchAddAnalyze()]).run("go", tools=[search])
    assert result.messages[3] == st.ToolMessage("call_2", "analyze", "looks good")


@attrs.frozen
class Verdict:
    label: str
    score: int


def test_output_type_is_parsed_from_json_in_a_fenced_block() -> None:
    model = ScriptedModel(['Here:\n```json\n{"label": "ok", "score": 3}\n```'])
    assert make_loop(model).run("rate", output_type=Verdict).output == Verdict("ok", 3)


def test_output_type_failure_is_explained_once_then_accepted() -> None:
    model = ScriptedModel(['{"label": "ok"}', '{"label": "ok", "score": 2}'])
    result = make_loop(model).run("rate", output_type=Verdict)

    assert result.output == Verdict("ok", 2)
    correction = (
        "Your answer could not be read as Verdict: missing required field 'score'. Answer "
        "again with only a JSON value matching this schema: "
        '{"type":"object","properties":{"label":{"type":"string"},"score":{"type":"integer"}},'
        '"required":["label","score"],"additionalProperties":false}'
    )
    assert result.messages[2] == st.UserMessage(correction)
    assert result.trace.of_type(OutputRejected) == [OutputRejected(1, correction)]


def test_output_type_failing_twice_raises_with_history() -> None:
    model = ScriptedModel(["not json", '{"label": "ok", "score": "high"}'])
    with pytest.raises(st.OutputValidationError) as caught:
        make_loop(model).run("rate", output_type=Verdict)
    assert caught.value.message == (
        "the final answer is not a valid Verdict: field 'score' must be an integer, got \"high\""
    )
    assert caught.value.result is not None
    assert len(caught.value.result.messages) == 4


@st.llm_tool("Submit the final report.", return_direct=True)
def submit(report: str) -> str:
    return f"submitted: {report}"


def test_return_direct_ends_the_run_after_answering_every_call() -> None:
    model = ScriptedModel([[("submit", {"report": "r1"}), ("search", {"query": "x"})]])
    result = make_loop(model).run("go", tools=[submit, search])
    assert result.output == "submitted: r1"
    assert result.iterations == 1
    assert [m.tool_call_id for m in result.messages if isinstance(m, st.ToolMessage)] == [
        "call_1",
        "call_2",
    ]
    assert result.trace[-1].outcome == "return_direct"


def test_usage_is_summed_over_model_calls() -> None:
    model = ScriptedModel(
        [("search", {"query": "x"}), "done"], usage=Usage(10, 2, cached_input_tokens=4)
    )
    assert make_loop(model).run("go", tools=[search]).usage == Usage(20, 4, 8)


def test_context_reaches_handlers_with_a_run_id() -> None:
    seen: list[dict[str, Any]] = []

    def whoami(ctx: st.ToolCallContext) -> str:
        """Who is asking."""
        seen.append(dict(ctx))
        return ctx["user"]

    tool = st.Tool.from_function(whoami)
    assert tool.input_schema["properties"] == {}
    model = ScriptedModel([("whoami", {}), "ok"])
    make_loop(model).run("who?", tools=[tool], context={"user": "ada"})
    assert seen == [{"statetools.run_id": "run-1", "user": "ada"}]


def test_events_and_trace_round_trip_through_json() -> None:
    received: list[st.Event] = []
    model = ScriptedModel([("search", {"query": "x"}), "done"])
    result = make_loop(model, listeners=[received.append]).run("go", tools=[search])

    assert list(result.trace) == received
    assert [type(e) for e in received] == [
        RunStarted,
        IterationStarted,
        ModelResponded,
        ToolStarted,
        ToolCalled,
        ToolAnswered,
        IterationStarted,
        ModelResponded,
        RunFinished,
    ]
    assert received[3] == ToolStarted(1, "call_1", "search")
    assert received[4] == ToolCalled(1, "call_1", "search", {"query": "x"}, "text", 1.0)
    assert received[5] == ToolAnswered(1, "call_1", "search", "3 hits for x", False)
    assert st.Trace.from_json(result.trace.to_json()) == result.trace


def test_invalid_arguments_from_a_provider_become_an_error_result() -> None:
    bad = st.AssistantMessage(
        tool_calls=[
            st.ToolCall("c1", "search", {}, invalid_arguments="Invalid arguments: not JSON.")
        ]
    )
    model = ScriptedModel([ModelResponse(bad, stop_reason="tool_use"), "sorry"])
    result = make_loop(model).run("go", tools=[search])
    assert result.messages[2] == st.ToolMessage(
        "c1", "search", "Invalid arguments: not JSON.", True
    )
    assert result.output == "sorry"


def test_history_and_system_prompt() -> None:
    history = [st.UserMessage("hello"), st.AssistantMessage("hi"), st.UserMessage("search x")]
    model = ScriptedModel(["done"])
    result = make_loop(model, system_prompt="Be brief.").run(history)
    assert list(result.messages[:4]) == [st.SystemMessage("Be brief."), *history]


def test_run_inside_an_event_loop_points_to_arun() -> None:
    async def main() -> None:
        with pytest.raises(st.StatetoolsError, match=re.escape("use 'await loop.arun(...)'")):
            make_loop(ScriptedModel(["x"])).run("go")
        result = await make_loop(ScriptedModel(["x"])).arun("go")
        assert result.output == "x"

    asyncio.run(main())


def test_bad_loop_options_are_clear_errors() -> None:
    with pytest.raises(st.StatetoolsError, match="max_iterations must be at least 1"):
        st.ToolLoop(ScriptedModel([]), max_iterations=0)
    with pytest.raises(st.StatetoolsError, match="use 'hidden' or 'declared'"):
        st.ToolLoop(ScriptedModel([]), visibility="open")  # type: ignore[arg-type]
    with pytest.raises(st.DefinitionError, match="is not a tool"):
        make_loop(ScriptedModel(["x"])).run("go", tools=[print])


def test_a_trace_from_bad_data_is_a_spec_error() -> None:
    with pytest.raises(st.SpecError, match=r"trace\[1\]: not a trace event"):
        st.Trace.from_json(
            [{"type": "run_finished", "at": 1.0, "iterations": 1, "outcome": "x"}, {"type": "nope"}]
        )
    with pytest.raises(st.SpecError, match=r"trace\[0\]: invalid run_finished event"):
        st.Trace.from_json([{"type": "run_finished", "at": "soon"}])


def test_messages_round_trip_through_json() -> None:
    model = ScriptedModel([[("search", {"query": "x"}), ("nope", {})], "done"])
    result = make_loop(model).run("go", tools=[search])
    data = st.messages_to_json(result.messages)
    assert json.loads(json.dumps(data)) == data
    assert tuple(st.messages_from_json(data)) == result.messages
