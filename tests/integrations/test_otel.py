"""OtelListener with the OpenTelemetry SDK's in-memory span exporter."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import statetools as st
from statetools.integrations.otel import OtelListener
from statetools.models import ScriptedModel
from tests.integrations.scenario import SCRIPT, design


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def listener(exporter: InMemorySpanExporter) -> OtelListener:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
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

    async def cancel() -> None:
        task = asyncio.create_task(loop.arun("go", tools=[st.Tool.create("wait", "Wait.", wait)]))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel())
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat scripted", "invoke_agent desk"]
    run = spans[-1]
    assert run.status.status_code is StatusCode.ERROR
    assert attributes(run)["statetools.outcome"] == "cancelled"
    assert attributes(run)["error.type"] == "cancelled"


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
