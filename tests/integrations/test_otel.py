"""OtelListener with the OpenTelemetry SDK's in-memory span exporter."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import statetools as st
from statetools.integrations.otel import OtelListener
from statetools.models import ModelCapabilities, ModelRequest, ModelResponse, ScriptedModel
from tests.integrations.scenario import SCRIPT, design
from tests.providers.provider_wire import (
    WireServer,
    chat_completion,
    openai_call,
    openai_error,
)


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


class OpenSpans(SpanProcessor):
    """The names of the spans started and not ended yet."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.names.append(span.name)

    def on_end(self, span: ReadableSpan) -> None:
        self.names.remove(span.name)


def listener(exporter: InMemorySpanExporter, opened: OpenSpans | None = None) -> OtelListener:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    if opened is not None:
        provider.add_span_processor(opened)
    ticks = iter(range(1_000_000_000, 10**12, 1_000_000_000))
    return OtelListener(provider, agent_name="desk", model="scripted", clock=lambda: next(ticks))


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in (span.attributes or {}).items()}


def test_a_run_is_an_agent_span_with_model_and_tool_spans(exporter: InMemorySpanExporter) -> None:
    ran: list[str] = []
    loop = st.ToolLoop(ScriptedModel(SCRIPT), listeners=[listener(exporter)])
    loop.run("order", tools=design(ran))
    spans = exporter.get_finished_spans()
    names = [s.name for s in spans]
    assert names == [
        "chat scripted",
        "execute_tool analyze",
        "chat scripted",
        "execute_tool search",
        "chat scripted",
        "execute_tool confirm",
        "chat scripted",
        "execute_tool github",
        "chat scripted",
        "execute_tool whoami",
        "chat scripted",
        "invoke_agent desk",
    ]
    run = spans[-1]
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id for s in spans[:-1])
    assert len({s.context.trace_id for s in spans}) == 1
    assert attributes(run)["gen_ai.operation.name"] == "invoke_agent"
    assert attributes(run)["gen_ai.agent.name"] == "desk"
    assert attributes(run)["statetools.outcome"] == "answer"
    assert attributes(run)["statetools.iterations"] == 6

    first_chat = attributes(spans[0])
    assert first_chat == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "scripted",
        "statetools.iteration": 1,
        "statetools.tools.visible_count": 4,
        "statetools.tools.visible": ["search", "add_item", "confirm", "github"],
        "gen_ai.response.finish_reasons": ["tool_call"],
        "statetools.tool_calls": ["analyze"],
    }
    blocked = spans[1]
    assert attributes(blocked) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "analyze",
        "gen_ai.tool.call.id": attributes(blocked)["gen_ai.tool.call.id"],
        "gen_ai.tool.type": "function",
        "statetools.call.blocked": True,
        "statetools.call.blocked_reason": "Tool 'analyze' is locked. Call first: search.",
        "error.type": "tool_error",
    }
    assert blocked.status.status_code is StatusCode.ERROR
    assert attributes(spans[3])["statetools.tools.unlocked"] == ["analyze"]
    confirm = attributes(spans[5])
    assert (confirm["statetools.state.machine"], confirm["statetools.state.entered"]) == (
        "order",
        "CONFIRMED",
    )
    assert confirm["statetools.state.previous"] == "DRAFT"
    assert confirm["statetools.tools.unlocked"] == ["ship"]
    assert attributes(spans[4])["statetools.tools.visible_count"] == 5
    assert spans[5].status.status_code is StatusCode.UNSET
    assert ran == ["search", "confirm", "whoami"]


def test_a_cancelled_run_is_an_error_span(exporter: InMemorySpanExporter) -> None:
    started = asyncio.Event()

    async def wait() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    loop = st.ToolLoop(ScriptedModel([("wait", {}), "done"]), listeners=[listener(exporter)])

    async def cancel() -> st.LoopResult:
        task = asyncio.create_task(loop.arun("go", tools=[st.Tool.create("wait", "Wait.", wait)]))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        result: st.LoopResult = caught.value.result  # type: ignore[attr-defined]
        return result

    result = asyncio.run(cancel())
    assert result is loop.last_result
    assert (result.outcome, result.iterations) == ("cancelled", 1)
    assert (
        result.messages[-1].content == "No result: the run stopped before this call was answered."
    )
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat scripted", "execute_tool wait", "invoke_agent desk"]
    run = spans[-1]
    assert run.status.status_code is StatusCode.ERROR
    assert run.status.description == "CancelledError"
    assert attributes(run)["statetools.outcome"] == "cancelled"
    assert attributes(run)["error.type"] == "cancelled"
    assert spans[0].status.status_code is StatusCode.UNSET  # the model call had ended
    # the tool that was running is cancelled with the run
    assert status(spans[1]) == (StatusCode.ERROR, "CancelledError", "cancelled")
    assert attributes(spans[1])["gen_ai.tool.name"] == "wait"
    seconds = [(s.start_time, s.end_time) for s in spans]
    assert seconds == [(2 * 10**9, 3 * 10**9), (4 * 10**9, 5 * 10**9), (10**9, 5 * 10**9)]


def test_concurrent_runs_of_one_loop_get_their_own_traces(exporter: InMemorySpanExporter) -> None:
    ping = st.Tool.create("ping", "Ping.", lambda: "pong")

    def step(request: Any) -> Any:
        return "done" if request.messages[-1].role == "tool" else ("ping", {})

    loop = st.ToolLoop(ScriptedModel([step] * 4), listeners=[listener(exporter)])

    async def both() -> None:
        await asyncio.gather(loop.arun("a", tools=[ping]), loop.arun("b", tools=[ping]))

    asyncio.run(both())
    spans = exporter.get_finished_spans()
    runs = [s for s in spans if s.name == "invoke_agent desk"]
    assert len(runs) == 2
    for run in runs:
        children = [
            s for s in spans if s.parent is not None and s.parent.span_id == run.context.span_id
        ]
        assert sorted(s.name for s in children) == [
            "chat scripted",
            "chat scripted",
            "execute_tool ping",
        ]
        assert {s.context.trace_id for s in children} == {run.context.trace_id}


PING = st.Tool.create("ping", "Ping.", lambda: "pong")


def status(span: ReadableSpan) -> tuple[StatusCode, str | None, Any]:
    return (
        span.status.status_code,
        span.status.description,
        (span.attributes or {}).get("error.type"),
    )


def test_a_run_that_runs_out_of_iterations_ends_its_span_with_the_error(
    exporter: InMemorySpanExporter,
) -> None:
    opened = OpenSpans()
    model = ScriptedModel([("ping", {}), ("ping", {}), "never"])
    loop = st.ToolLoop(model, max_iterations=2, listeners=[listener(exporter, opened)])
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        loop.run("go", tools=[PING])

    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == [
        "chat scripted",
        "execute_tool ping",
        "chat scripted",
        "execute_tool ping",
        "invoke_agent desk",
    ]
    assert opened.names == []
    run = spans[-1]
    assert status(run) == (
        StatusCode.ERROR,
        "ToolLoop: no final answer after 2 model calls Hint: raise max_iterations, or check "
        "that the tools let the model finish",
        "MaxIterationsExceeded",
    )
    assert str(caught.value) == run.status.description
    result = caught.value.result
    assert (result.outcome, result.iterations, result.output) == ("MaxIterationsExceeded", 2, None)
    assert [m.content for m in result.messages if isinstance(m, st.ToolMessage)] == ["pong"] * 2
    assert attributes(run)["statetools.outcome"] == "MaxIterationsExceeded"
    assert attributes(run)["statetools.iterations"] == 2
    assert {status(s) for s in spans[:-1]} == {(StatusCode.UNSET, None, None)}


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer()
    server.start()
    yield server
    server.stop()


def test_a_provider_error_ends_the_model_span_and_the_run_span_with_it(
    exporter: InMemorySpanExporter, wire: WireServer
) -> None:
    from statetools.models import OpenAIChatModel

    wire.reply(chat_completion(tool_calls=[openai_call("call_1", "ping", "{}")]))
    wire.reply(openai_error("The server had an error"), status=500)
    model = OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", max_retries=0)
    opened = OpenSpans()
    loop = st.ToolLoop(model, listeners=[listener(exporter, opened)])
    with pytest.raises(st.ProviderError) as caught:
        loop.run("go", tools=[PING])

    assert [body["messages"][-1]["role"] for body in wire.bodies] == ["user", "tool"]
    assert wire.bodies[1]["messages"][-1]["content"] == "pong"
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == [
        "chat scripted",
        "execute_tool ping",
        "chat scripted",
        "invoke_agent desk",
    ]
    assert opened.names == []
    error = (
        StatusCode.ERROR,
        "openai:gpt-test: OpenAI returned HTTP 500: The server had an error Hint: the provider "
        "failed even after retries; run again later or raise max_retries",
        "ProviderError",
    )
    assert str(caught.value) == error[1]
    result = caught.value.result
    assert (result.outcome, result.iterations) == ("ProviderError", 1)
    assert result.messages[-1] == st.ToolMessage("call_1", "ping", "pong")
    assert status(spans[2]) == status(spans[3]) == error
    assert attributes(spans[0])["gen_ai.response.finish_reasons"] == ["tool_call"]
    assert status(spans[0]) == status(spans[1]) == (StatusCode.UNSET, None, None)
    assert "gen_ai.response.finish_reasons" not in attributes(spans[2])


@attrs.frozen
class Answer:
    text: str


def test_an_output_that_never_fits_ends_the_run_span_with_the_error(
    exporter: InMemorySpanExporter,
) -> None:
    loop = st.ToolLoop(ScriptedModel(["not json", "still not"]), listeners=[listener(exporter)])
    with pytest.raises(st.OutputValidationError) as caught:
        loop.run("go", output_type=Answer)

    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat scripted", "chat scripted", "invoke_agent desk"]
    assert status(spans[2]) == (StatusCode.ERROR, str(caught.value), "OutputValidationError")
    assert str(caught.value).startswith("output: the final answer is not a valid Answer: ")
    result = caught.value.result
    assert (result.outcome, result.iterations, result.output) == ("OutputValidationError", 2, None)
    assert [m.content for m in result.messages if isinstance(m, st.AssistantMessage)] == [
        "not json",
        "still not",
    ]
    assert attributes(spans[2])["statetools.iterations"] == 2
    assert [status(s) for s in spans[:2]] == [(StatusCode.UNSET, None, None)] * 2


def test_a_run_cancelled_while_the_model_thinks_ends_the_model_span_too(
    exporter: InMemorySpanExporter,
) -> None:
    asked = asyncio.Event()

    async def think(request: ModelRequest) -> ModelResponse:
        asked.set()
        await asyncio.Event().wait()
        raise AssertionError("never")

    class Slow:
        capabilities = ModelCapabilities()

        async def complete(self, request: ModelRequest) -> ModelResponse:
            return await think(request)

    opened = OpenSpans()
    loop = st.ToolLoop(Slow(), listeners=[listener(exporter, opened)])

    async def cancel() -> None:
        task = asyncio.create_task(loop.arun("go"))
        await asked.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        assert caught.value.result is loop.last_result  # type: ignore[attr-defined]

    asyncio.run(cancel())
    assert loop.last_result is not None
    assert loop.last_result.outcome == "cancelled"
    assert loop.last_result.messages == (st.UserMessage("go"),)
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat scripted", "invoke_agent desk"]
    assert opened.names == []
    assert status(spans[0]) == status(spans[1]) == (StatusCode.ERROR, "CancelledError", "cancelled")


class Broken:
    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        raise RuntimeError("strategy bug")


def test_a_tool_span_left_open_by_an_aborted_run_is_ended_with_an_error(
    exporter: InMemorySpanExporter,
) -> None:
    opened = OpenSpans()
    loop = st.ToolLoop(
        ScriptedModel([("ping", {}), "never"]),
        strategies=[Broken()],
        listeners=[listener(exporter, opened)],
    )
    with pytest.raises(st.RunAborted) as caught:
        loop.run("go", tools=[PING])

    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat scripted", "execute_tool ping", "invoke_agent desk"]
    assert opened.names == []
    assert status(spans[1]) == (
        StatusCode.ERROR,
        "No result: the run stopped before this call was answered.",
        "tool_error",
    )
    assert status(spans[2]) == (StatusCode.ERROR, str(caught.value), "RunAborted")


def test_a_refusal_is_how_the_run_ended_not_an_error(exporter: InMemorySpanExporter) -> None:
    def refuse(request: ModelRequest) -> ModelResponse:
        return ModelResponse(st.AssistantMessage("I can't help with that."), stop_reason="refusal")

    result = st.ToolLoop(ScriptedModel([refuse]), listeners=[listener(exporter)]).run("go")
    assert result.outcome == "refusal"
    chat, run = exporter.get_finished_spans()
    assert attributes(chat)["gen_ai.response.finish_reasons"] == ["content_filter"]
    assert status(run) == (StatusCode.UNSET, None, None)
    assert attributes(run)["statetools.outcome"] == "refusal"


def test_a_run_inside_a_tool_leaves_the_outer_run_to_end_its_own_spans(
    exporter: InMemorySpanExporter,
) -> None:
    opened = OpenSpans()
    otel = listener(exporter, opened)

    async def ask_helper(question: str) -> str:
        """Ask a helper agent."""
        helper = st.ToolLoop(ScriptedModel(["It is the moon."]), listeners=[otel])
        answer: str = (await helper.arun(question)).output
        return answer

    loop = st.ToolLoop(
        ScriptedModel([("ask_helper", {"question": "Why tides?"}), "The moon."]), listeners=[otel]
    )
    assert loop.run("go", tools=[ask_helper]).output == "The moon."

    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == [
        "chat scripted",
        "chat scripted",
        "invoke_agent desk",
        "execute_tool ask_helper",
        "chat scripted",
        "invoke_agent desk",
    ]
    assert opened.names == []
    outer, inner = spans[5], spans[2]
    assert [s.parent.span_id for s in (spans[0], spans[3], spans[4]) if s.parent] == [
        outer.context.span_id
    ] * 3
    assert spans[1].parent is not None
    assert spans[1].parent.span_id == inner.context.span_id
    # the helper's run is a child of the tool call that ran it, in the outer run's trace
    assert inner.parent is not None
    assert inner.parent.span_id == spans[3].context.span_id
    assert {s.context.trace_id for s in spans} == {outer.context.trace_id}
    assert attributes(outer)["statetools.iterations"] == 2
    assert attributes(inner)["statetools.iterations"] == 1


def test_an_agentic_tool_run_is_a_child_of_its_call_from_the_outer_listener_alone(
    exporter: InMemorySpanExporter,
) -> None:
    """The nested run's events reach the outer listener (issue 30): no listener is
    given to the agentic tool, yet its run has its spans, under the call that ran it."""
    opened = OpenSpans()

    def lookup() -> str:
        """Look a fact up."""
        return "the moon"

    helper = (
        st.SimpleAgenticTool("researcher", "Research.")
        .with_tools(lookup)
        .with_model(ScriptedModel([("lookup", {}), "It is the moon."]))
    )
    loop = st.ToolLoop(
        ScriptedModel([("researcher", {"task": "Why tides?"}), "The moon."]),
        listeners=[listener(exporter, opened)],
    )
    assert loop.run("go", tools=[helper]).output == "The moon."

    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == [
        "chat scripted",
        "chat scripted",
        "execute_tool lookup",
        "chat scripted",
        "invoke_agent researcher",
        "execute_tool researcher",
        "chat scripted",
        "invoke_agent desk",
    ]
    assert opened.names == []
    outer, inner, call = spans[7], spans[4], spans[5]
    assert inner.parent is not None
    assert inner.parent.span_id == call.context.span_id
    assert [s.parent.span_id for s in spans[1:4] if s.parent] == [inner.context.span_id] * 3
    assert call.parent is not None
    assert call.parent.span_id == outer.context.span_id
    assert attributes(inner)["gen_ai.agent.name"] == "researcher"
    assert attributes(inner)["statetools.iterations"] == 2
    assert {s.context.trace_id for s in spans} == {outer.context.trace_id}


def failing_on(kind: str) -> st.Listener:
    def fail(event: st.Event) -> None:
        if event.type == kind:
            raise ValueError(f"cannot take {kind}")

    return fail


def aborted(kind: str, iteration: int = 1) -> str:
    return (
        f"iteration {iteration}: the run stopped: ValueError: cannot take {kind} Hint: the "
        "exception is the __cause__; its traceback shows the failing code"
    )


def test_a_listener_failing_while_the_model_is_asked_ends_the_open_model_span(
    exporter: InMemorySpanExporter,
) -> None:
    opened = OpenSpans()
    loop = st.ToolLoop(
        ScriptedModel(["never"]),
        listeners=[listener(exporter, opened), failing_on("iteration_started")],
    )
    with pytest.raises(st.RunAborted) as caught:
        loop.run("go")

    assert str(caught.value) == aborted("iteration_started", 0)  # no model call yet
    assert caught.value.result.messages == (st.UserMessage("go"),)
    assert caught.value.result.outcome == "RunAborted"
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat scripted", "invoke_agent desk"]
    assert opened.names == []
    assert (
        status(spans[0])
        == status(spans[1])
        == (
            StatusCode.ERROR,
            aborted("iteration_started", 0),
            "RunAborted",
        )
    )


def test_a_listener_failing_after_a_tool_ran_ends_the_open_tool_span(
    exporter: InMemorySpanExporter,
) -> None:
    opened = OpenSpans()
    loop = st.ToolLoop(
        ScriptedModel([("ping", {}), "never"]),
        listeners=[listener(exporter, opened), failing_on("tool_called")],
    )
    with pytest.raises(st.RunAborted) as caught:
        loop.run("go", tools=[PING])

    result = caught.value.result
    assert result.messages[-1] == st.ToolMessage(
        result.messages[-2].tool_calls[0].id,
        "ping",
        "No result: the run stopped before this call was answered.",
        True,
    )
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat scripted", "execute_tool ping", "invoke_agent desk"]
    assert opened.names == []
    assert status(spans[1]) == (
        StatusCode.ERROR,
        "No result: the run stopped before this call was answered.",
        "tool_error",
    )
    assert status(spans[2]) == (StatusCode.ERROR, aborted("tool_called"), "RunAborted")


def test_a_listener_failing_on_the_end_before_this_one_still_lets_it_end_the_run_span(
    exporter: InMemorySpanExporter,
) -> None:
    opened = OpenSpans()
    loop = st.ToolLoop(
        ScriptedModel([("ping", {}), "done"]),
        listeners=[failing_on("run_finished"), listener(exporter, opened)],
    )
    with pytest.raises(st.RunAborted) as caught:
        loop.run("go", tools=[PING])

    assert caught.value.result.output is None
    assert caught.value.result.messages[-1] == st.AssistantMessage("done")
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == [
        "chat scripted",
        "execute_tool ping",
        "chat scripted",
        "invoke_agent desk",
    ]
    assert opened.names == []
    # the listeners were told the run answered; the failure came after (loop.md)
    assert attributes(spans[-1])["statetools.outcome"] == "answer"


class Halt(BaseException):
    """Not an ``Exception``: a framework's own control flow."""


@pytest.mark.parametrize(
    "raised",
    [KeyboardInterrupt(), SystemExit(2), Halt("stop here")],
    ids=["keyboard_interrupt", "system_exit", "base_exception"],
)
def test_a_tool_raising_past_the_loop_ends_every_span(
    exporter: InMemorySpanExporter, raised: BaseException
) -> None:
    def stop() -> str:
        """Stop."""
        raise raised

    opened = OpenSpans()
    model = ScriptedModel([[("ping", {}), ("stop", {}), ("ping", {})], "never"])
    loop = st.ToolLoop(model, listeners=[listener(exporter, opened)])
    with pytest.raises(type(raised)) as caught:
        loop.run("go", tools=[PING, stop])

    assert caught.value is raised
    result = caught.value.result  # type: ignore[attr-defined]
    assert (result.outcome, result.iterations) == ("interrupted", 1)
    assert [m.content for m in result.messages[2:]] == [
        "pong",
        "No result: the run stopped before this call was answered.",
        "No result: the run stopped before this call was answered.",
    ]
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == [
        "chat scripted",
        "execute_tool ping",
        "execute_tool stop",
        "invoke_agent desk",
    ]
    assert opened.names == []
    description = f"{type(raised).__name__}: {raised}" if str(raised) else type(raised).__name__
    assert status(spans[3]) == status(spans[2]) == (StatusCode.ERROR, description, "interrupted")
    assert status(spans[1]) == (StatusCode.UNSET, None, None)
