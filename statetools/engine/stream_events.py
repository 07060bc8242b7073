"""What ``loop.stream(...)`` yields besides the run's events: the model's text as it
arrives and the tool calls it begins. They are never in the trace.

>>> TextDelta(1, "Hel").text, ToolCallStarted(1, "call_1", "search").name
('Hel', 'search')
"""

from __future__ import annotations

from typing import Literal

import attrs

from statetools.engine.events import Event

__all__ = ["StreamEvent", "TextDelta", "ToolCallStarted"]


@attrs.frozen
class TextDelta:
    """A piece of the answer's text as the model streams it (``loop.stream`` only;
    never in the trace: the whole text is in ``ModelResponded``).

    >>> import asyncio
    >>> def add(a: int, b: int) -> int:
    ...     "Add two numbers."
    ...     return a + b
    >>> model = st.models.ScriptedModel([("add", {"a": 2, "b": 3}), "5"])
    >>> async def main() -> None:
    ...     stream = ToolLoop(model).stream("2 + 3?", tools=[add])
    ...     async for event in stream:
    ...         if isinstance(event, TextDelta | ToolCallStarted):
    ...             print(event)
    ...     trace = stream.result.trace.events
    ...     print(stream.result.output, [e for e in trace if e.type.endswith("_started")])
    >>> asyncio.run(main())
    ToolCallStarted(iteration=1, call_id='call_1', name='add', type='tool_call_started')
    TextDelta(iteration=2, text='5', type='text_delta')
    5 [RunStarted(...), IterationStarted(...), IterationStarted(...)]
    """

    iteration: int
    text: str
    type: Literal["text_delta"] = "text_delta"


@attrs.frozen
class ToolCallStarted:
    """The model began a tool call whose name is known (``loop.stream`` only; never
    in the trace). :class:`TextDelta` shows both in a stream.

    >>> ToolCallStarted(1, "call_1", "search").name
    'search'
    """

    iteration: int
    call_id: str
    name: str
    type: Literal["tool_call_started"] = "tool_call_started"


StreamEvent = Event | TextDelta | ToolCallStarted
"""What ``loop.stream(...)`` yields: the run's events and the streaming ones.

>>> import asyncio
>>> async def types() -> list[str]:
...     stream = ToolLoop(st.models.ScriptedModel(["Hi!"])).stream("Hello", tools=[])
...     return [event.type async for event in stream]
>>> asyncio.run(types())
['run_started', 'iteration_started', 'text_delta', 'model_responded', 'run_finished']
"""
