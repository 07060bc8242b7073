"""Streaming runs: ``loop.stream(...)`` yields the run's events and the model's text as
it arrives; ``.result`` holds the result afterwards."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

from statetools.engine.run_result import LoopResult, StreamEvent
from statetools.errors import StatetoolsError
from statetools.loop.host import IterationSink as IterationSink
from statetools.loop.host import ask_model as ask_model

__all__ = ["IterationSink", "RunStream", "ask_model"]


class RunStream:
    """A run in progress, as an async iterable of its events.

    It yields every event of the run (the same as ``result.trace``, in order) and,
    between them, :class:`TextDelta` and :class:`ToolCallStarted` as the model streams.
    The run goes on as the events are read (it starts at the first ``async for``
    step); after the last event, ``result`` holds the :class:`LoopResult`. A run that
    fails raises its error (with ``.result``) from the iteration, and from ``result``.

    >>> stream = loop.stream("What is 2 + 3?", tools=[add])  # doctest: +SKIP
    >>> async for event in stream:  # doctest: +SKIP
    ...     if isinstance(event, st.TextDelta):
    ...         print(event.text, end="")
    >>> stream.result.output  # doctest: +SKIP
    '2 + 3 = 5'
    """

    def __init__(self, events: AsyncGenerator[StreamEvent, None], ended: list[LoopResult]) -> None:
        self._events = events
        self._ended = ended
        """Where the run puts the result it ended with."""
        self._error: BaseException | None = None
        self._finished = False

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self

    async def __anext__(self) -> StreamEvent:
        if self._finished:
            raise StopAsyncIteration
        try:
            return await self._events.__anext__()
        except StopAsyncIteration:
            self._finished = True
            raise
        except BaseException as error:
            self._finished = True
            self._error = error
            raise

    async def drain(self) -> LoopResult:
        """Read every event and return the result (what ``arun`` does).

        >>> import asyncio
        >>> stream = ToolLoop(st.models.ScriptedModel(["Hello!"])).stream("Hi", tools=[])
        >>> asyncio.run(stream.drain()).output
        'Hello!'
        """
        async for _ in self:
            pass
        return self.result

    async def aclose(self) -> None:
        """Stop the run if it is still going (it ends as ``cancelled``).

        >>> import asyncio
        >>> async def first_event() -> str:
        ...     stream = ToolLoop(st.models.ScriptedModel(["Hello!"])).stream("Hi", tools=[])
        ...     event = await anext(stream)
        ...     await stream.aclose()
        ...     return type(event).__name__
        >>> asyncio.run(first_event())
        'RunStarted'
        """
        self._finished = True
        await self._events.aclose()

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
        if not self._finished or not self._ended:
            raise StatetoolsError(
                "the stream's run has not finished",
                path="RunStream.result",
                hint="read every event first: 'async for event in stream: ...'",
            )
        return self._ended[-1]
