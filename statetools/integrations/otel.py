"""OpenTelemetry spans for statetools runs (``pip install 'statetools[otel]'``).

::

    from statetools.integrations.otel import OtelListener

    loop = st.ToolLoop(model, listeners=[OtelListener()])

Spans follow the OpenTelemetry GenAI semantic conventions: one ``invoke_agent`` span
per run, a ``chat`` span per model call and an ``execute_tool`` span per tool call,
nested in that order; a run started by a tool (an agent used as a tool) is a child of
that tool's span; so is the nested run of an agentic tool, whose events reach the
outer run's listeners (its ``invoke_agent`` span is named after the agentic tool).
Every span ends, however the run ends: a run that raises (an error, cancellation, an
interrupt) ends its open spans (the model call it waited for, the tool that was
running) with status ERROR and ``error.type`` (the error's class name, ``cancelled`` or
``interrupted``). Disclosure attributes (``statetools.*``) say how many tools the model
was shown, which tools a call unlocked or hid, which state it entered, and why a call
was blocked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, TracerProvider

from statetools.engine.events import (
    CallBlocked,
    Event,
    IterationStarted,
    ModelResponded,
    NestedEvent,
    RunFinished,
    RunStarted,
    StateEntered,
    ToolAnswered,
    ToolCalled,
    ToolNotFound,
    ToolsHidden,
    ToolsInjected,
    ToolStarted,
    ToolsUnlocked,
)

__all__ = ["OtelListener"]

FINISH_REASONS = {
    "end_turn": "stop",
    "tool_use": "tool_call",
    "max_tokens": "length",
    "refusal": "content_filter",
}
"""Our stop reasons as the GenAI conventions name them (others pass as they are)."""

FINISHED = frozenset({"answer", "return_direct", "final_state", "refusal"})
"""Run outcomes that are not errors (the run returned its result)."""


class _RunSpans:
    """The open spans of one run."""

    def __init__(self, run: Span, outer: _RunSpans | None) -> None:
        self.run = run
        self.outer = outer
        """The spans of the run this one runs in (a tool that runs an agent), if any."""
        self.model: Span | None = None
        self.tools: dict[str, Span] = {}
        self.running: str | None = None
        """The call id of the tool running now (one at a time), if any."""
        self.last: Span | None = None
        """The tool span that the change events after a call belong to."""


_CURRENT: ContextVar[_RunSpans | None] = ContextVar("statetools_otel_run", default=None)


class OtelListener:
    """A loop listener that emits OpenTelemetry GenAI spans.

    >>> from opentelemetry.sdk.trace import TracerProvider
    >>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> exporter = InMemorySpanExporter()
    >>> provider = TracerProvider()
    >>> provider.add_span_processor(SimpleSpanProcessor(exporter))
    >>> from statetools.models import ScriptedModel
    >>> loop = ToolLoop(ScriptedModel([("ping", {}), "done"]),
    ...                 listeners=[OtelListener(provider)])
    >>> _ = loop.run("go", tools=[Tool.create("ping", "Ping.", lambda: "pong")])
    >>> [span.name for span in exporter.get_finished_spans()]
    ['chat', 'execute_tool ping', 'chat', 'invoke_agent statetools']
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        *,
        agent_name: str = "statetools",
        model: str | None = None,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        self.tracer: Tracer = trace.get_tracer("statetools", tracer_provider=tracer_provider)
        self.agent_name = agent_name
        self.model = model
        self.clock = clock

    def __call__(self, event: Event) -> None:
        if isinstance(event, NestedEvent):  # an agentic tool's run, inside the running tool
            if isinstance(event.event, RunStarted):
                self._run_started(event.event, event.path[-1])
            else:
                self(event.event)
            return
        if isinstance(event, RunStarted):
            self._run_started(event)
            return
        spans = _CURRENT.get()
        if spans is None:
            return
        if isinstance(event, IterationStarted):
            self._model_started(spans, event)
        elif isinstance(event, ModelResponded):
            self._model_responded(spans, event)
        elif isinstance(event, ToolStarted):
            self._tool_started(spans, event)
        elif isinstance(event, ToolCalled | CallBlocked | ToolNotFound):
            self._tool(spans, event)
        elif isinstance(event, ToolsUnlocked | ToolsHidden | ToolsInjected | StateEntered):
            self._change(spans, event)
        elif isinstance(event, ToolAnswered):
            self._answered(spans, event)
        elif isinstance(event, RunFinished):
            self._finished(spans, event)

    def _child(self, spans: _RunSpans, name: str, start: int, **attributes: Any) -> Span:
        return self.tracer.start_span(
            name,
            context=trace.set_span_in_context(spans.run),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=start,
        )

    def _run_started(self, event: RunStarted, agent_name: str | None = None) -> None:
        outer = _CURRENT.get()
        tool = outer.tools.get(outer.running) if outer and outer.running else None
        name = agent_name or self.agent_name
        span = self.tracer.start_span(
            f"invoke_agent {name}",
            context=trace.set_span_in_context(tool) if tool is not None else None,
            kind=SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": name,
                "gen_ai.conversation.id": event.run_id,
                "statetools.tools.visible_count": len(event.tools),
            },
            start_time=self.clock(),
        )
        _CURRENT.set(_RunSpans(span, outer))

    def _model_started(self, spans: _RunSpans, event: IterationStarted) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "statetools.iteration": event.iteration,
            "statetools.tools.visible_count": len(event.tools),
            "statetools.tools.visible": list(event.tools),
        }
        name = "chat"
        if self.model is not None:
            attributes["gen_ai.request.model"] = self.model
            name = f"chat {self.model}"
        spans.model = self._child(spans, name, self.clock(), **attributes)

    def _model_responded(self, spans: _RunSpans, event: ModelResponded) -> None:
        span = spans.model
        if span is None:
            return
        reason = FINISH_REASONS.get(event.stop_reason, event.stop_reason)
        span.set_attribute("gen_ai.response.finish_reasons", [reason])
        if event.tool_calls:
            span.set_attribute("statetools.tool_calls", list(event.tool_calls))
        span.end(self.clock())
        spans.model = None

    def _tool_span(self, spans: _RunSpans, event: ToolStarted | CallBlocked | ToolNotFound) -> Span:
        return self._child(
            spans,
            f"execute_tool {event.name}",
            self.clock(),
            **{
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": event.name,
                "gen_ai.tool.call.id": event.call_id,
                "gen_ai.tool.type": "function",
            },
        )

    def _tool_started(self, spans: _RunSpans, event: ToolStarted) -> None:
        spans.tools[event.call_id] = self._tool_span(spans, event)
        spans.running = event.call_id

    def _tool(self, spans: _RunSpans, event: ToolCalled | CallBlocked | ToolNotFound) -> None:
        if isinstance(event, ToolCalled):  # the span began with ToolStarted
            spans.running = None
            span = spans.tools.get(event.call_id)
            if span is None:
                return
        else:
            span = self._tool_span(spans, event)
        if isinstance(event, CallBlocked):
            span.set_attribute("statetools.call.blocked", True)
            span.set_attribute("statetools.call.blocked_reason", event.reason)
        elif isinstance(event, ToolNotFound):
            span.set_attribute("statetools.call.unknown_tool", True)
        spans.tools[event.call_id] = spans.last = span

    def _change(
        self, spans: _RunSpans, event: ToolsUnlocked | ToolsHidden | ToolsInjected | StateEntered
    ) -> None:
        span = spans.last
        if span is None:
            return
        if isinstance(event, StateEntered):
            span.set_attribute("statetools.state.machine", event.machine)
            span.set_attribute("statetools.state.entered", event.state)
            span.set_attribute("statetools.state.previous", event.previous)
        elif isinstance(event, ToolsUnlocked):
            span.set_attribute("statetools.tools.unlocked", list(event.names))
        elif isinstance(event, ToolsHidden):
            span.set_attribute("statetools.tools.hidden", list(event.names))
        else:
            span.set_attribute("statetools.tools.injected", list(event.names))

    def _answered(self, spans: _RunSpans, event: ToolAnswered) -> None:
        if event.call_id == spans.running:  # stopped while it ran: ended with the run
            return
        span = spans.tools.pop(event.call_id, None)
        if span is None:  # answered without running (cut off, refused, run stopped)
            return
        if event.is_error:
            span.set_status(Status(StatusCode.ERROR, event.text[:200]))
            span.set_attribute("error.type", "tool_error")
        span.end(self.clock())
        if spans.last is span:
            spans.last = None

    def _finished(self, spans: _RunSpans, event: RunFinished) -> None:
        now = self.clock()
        failed = event.outcome not in FINISHED
        if spans.model is not None:  # the model call the run was waiting for
            if failed:
                _failed(spans.model, event)
            spans.model.end(now)
        for span in spans.tools.values():  # not answered: the run stopped first
            if failed:
                _failed(span, event)
            span.end(now)
        spans.run.set_attribute("statetools.iterations", event.iterations)
        spans.run.set_attribute("statetools.outcome", event.outcome)
        if failed:
            _failed(spans.run, event)
        spans.run.end(now)
        _CURRENT.set(spans.outer)  # a nested run's end: the outer run goes on


def _failed(span: Span, event: RunFinished) -> None:
    """Mark ``span`` as ended by the error that ended the run (GenAI conventions:
    status ERROR with a description, ``error.type`` the error's class or the outcome)."""
    span.set_status(Status(StatusCode.ERROR, event.error or event.outcome))
    span.set_attribute("error.type", event.outcome)
