"""Streaming runs: ``loop.stream(...)`` yields the run's events and the model's text as
it arrives; ``.result`` holds the result afterwards."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from statetools.errors import StatetoolsError
from statetools.loop.events import StreamEvent, TextDelta, ToolCallStarted
from statetools.loop.result import LoopResult
from statetools.models.base import (
    Model,
    ModelRequest,
    ModelResponse,
    StreamingModel,
    StreamSink,
)

StreamListener = Callable[[StreamEvent], None]

RUN_SINK: ContextVar[StreamListener | None] = ContextVar("statetools_run_sink", default=None)
"""Where the next run started in this context sends its events for a stream. The run
takes it (and clears it), so nested loops of agentic tools do not stream into it."""


def take_run_sink() -> StreamListener | None:
    """The stream listener for a run starting now, cleared for runs started later."""
    sink = RUN_SINK.get()
    if sink is not None:
        RUN_SINK.set(None)
    return sink


class IterationSink:
    """The :class:`~statetools.models.StreamSink` of one model call: turns what the
    model streams into :class:`TextDelta` and :class:`ToolCallStarted` events."""

    def __init__(self, listener: StreamListener, iteration: int) -> None:
        self.listener = listener
        self.iteration = iteration

    def text(self, delta: str) -> None:
        """Report a piece of the answer's text."""
        if delta:
            self.listener(TextDelta(self.iteration, delta))

    def call_started(self, call_id: str, name: str) -> None:
        """Report a call whose name is known."""
        self.listener(ToolCallStarted(self.iteration, call_id, name))


async def ask_model(model: Model, request: ModelRequest, sink: StreamSink) -> ModelResponse:
    """Ask ``model``, streaming into ``sink`` if it can stream; otherwise the whole
    answer arrives as one text delta, then one ``ToolCallStarted`` per call.

    >>> response = await ask_model(ScriptedModel(["Hi."]), request, sink)  # doctest: +SKIP
    """
    if isinstance(model, StreamingModel):
        return await model.stream(request, sink)
    response = await model.complete(request)
    sink.text(response.message.content)
    for call in response.message.tool_calls:
        sink.call_started(call.id, call.name)
    return response


_DONE = object()


class RunStream:
    """A run in progress, as an async iterable of its events.

    It yields every event of the run (the same as ``result.trace``, in order) and,
    between them, :class:`TextDelta` and :class:`ToolCallStarted` as the model streams.
    The run starts at the first ``async for`` step; after the last event, ``result``
    holds the :class:`LoopResult`. A run that fails raises its error (with
    ``.result``) from the iteration, and from ``result``.

    >>> stream = loop.stream("What is 2 + 3?", tools=[add])  # doctest: +SKIP
    >>> async for event in stream:  # doctest: +SKIP
    ...     if isinstance(event, st.TextDelta):
    ...         print(event.text, end="")
    >>> stream.result.output  # doctest: +SKIP
    '2 + 3 = 5'
    """

    def __init__(self, start: Callable[[], Awaitable[LoopResult]]) -> None:
        self._start = start
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[LoopResult] | None = None
        self._result: LoopResult | None = None
        self._error: BaseException | None = None
        self._finished = False

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self

    async def _run(self) -> LoopResult:
        RUN_SINK.set(self._queue.put_nowait)
        try:
            return await self._start()
        finally:
            self._queue.put_nowait(_DONE)

    async def __anext__(self) -> StreamEvent:
        if self._finished:
            raise StopAsyncIteration
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
        item = await self._queue.get()
        if item is not _DONE:
            event: StreamEvent = item
            return event
        self._finished = True
        try:
            self._result = await self._task
        except BaseException as error:
            self._error = error
            raise
        raise StopAsyncIteration

    async def aclose(self) -> None:
        """Stop the run if it is still going (cancels it).

        >>> import asyncio
        >>> async def first_event() -> str:
        ...     stream = ToolLoop(st.models.ScriptedModel(["Hello!"])).stream("Hi", tools=[])
        ...     event = await anext(stream)
        ...     await stream.aclose()
        ...     return type(event).__name__
        >>> asyncio.run(first_event())
        'RunStarted'
        """
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, StatetoolsError):
                await self._task
        self._finished = True

    @property
    def result(self) -> LoopResult:
        """The run's result, once every event has been read.

        >>> import asyncio
        >>> async def output() -> str:
        ...     stream = ToolLoop(st.models.ScriptedModel(["Hello!"])).stream("Hi", tools=[])
        ...     async for _ in stream:
        ...         pass
        ...     return stream.result.output
        >>> asyncio.run(output())
        'Hello!'
        """
        if self._error is not None:
            raise self._error
        if self._result is None:
            raise StatetoolsError(
                "the stream's run has not finished",
                path="RunStream.result",
                hint="read every event first: 'async for event in stream: ...'",
            )
        return self._result
