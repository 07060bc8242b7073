"""The asyncio host of a :class:`~statetools.engine.Conversation`: it asks the model,
runs the calls (with their timeouts) and yields the run's events as they happen.

Everything a run decides (which calls may run, what the model is told, how the run
ends) is the conversation's; this module only does the waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncGenerator, Sequence

from statetools.engine import Call, Conversation
from statetools.engine.answers import timed_out_message, timeout_of
from statetools.engine.code_view import HostedScript
from statetools.engine.events import Event
from statetools.engine.run_result import StreamEvent, TextDelta, ToolCallStarted
from statetools.errors import ProviderError, RunAborted, RunError, StatetoolsError
from statetools.messages import Message, ToolCall
from statetools.models.base import (
    Model,
    ModelRequest,
    ModelResponse,
    StreamingModel,
    StreamSink,
)
from statetools.tools.calling import Context, ToolResult, failure
from statetools.tools.tool import BaseTool

__all__ = ["IterationSink", "ask_model", "drive", "run_call"]


class IterationSink:
    """The :class:`~statetools.models.StreamSink` of one model call: turns what the
    model streams into :class:`TextDelta` and :class:`ToolCallStarted` events.

    >>> heard = []
    >>> IterationSink(heard.append, 1).text("Hel")
    >>> heard
    [TextDelta(iteration=1, text='Hel', type='text_delta')]
    """

    def __init__(self, listener: object, iteration: int) -> None:
        self.listener = listener
        self.iteration = iteration

    def text(self, delta: str) -> None:
        """Report a piece of the answer's text.

        >>> IterationSink(print, 1).text("Hi")
        TextDelta(iteration=1, text='Hi', type='text_delta')
        """
        if delta:
            self.listener(TextDelta(self.iteration, delta))  # type: ignore[operator]

    def call_started(self, call_id: str, name: str) -> None:
        """Report a call whose name is known.

        >>> IterationSink(print, 1).call_started("c1", "ping")
        ToolCallStarted(iteration=1, call_id='c1', name='ping', type='tool_call_started')
        """
        self.listener(ToolCallStarted(self.iteration, call_id, name))  # type: ignore[operator]


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


class _Asked:
    """Says that the model has the request: the events before it may be read now."""


ASKED = _Asked()


async def _streamed(
    model: Model, request: ModelRequest, iteration: int
) -> AsyncGenerator[StreamEvent | ModelResponse | _Asked, None]:
    """What the model streams as it arrives, then its response."""
    queue: asyncio.Queue[StreamEvent] = asyncio.Queue()
    task = asyncio.ensure_future(
        ask_model(model, request, IterationSink(queue.put_nowait, iteration))
    )
    try:
        await asyncio.sleep(0)  # the model has the request (a wrapper may note it)
        yield ASKED
        while not task.done():
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield getter.result()
            else:
                getter.cancel()
        while not queue.empty():
            yield queue.get_nowait()
        yield task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _provider_error(model: Model, exc: Exception) -> ProviderError:
    return ProviderError(
        f"the model failed: {type(exc).__name__}: {exc}",
        path=type(model).__name__,
        hint="the exception is the __cause__",
    )


async def _complete(model: Model, request: ModelRequest) -> ModelResponse:
    """Ask the model; a failure that is not ours is a :class:`ProviderError`."""
    try:
        return await model.complete(request)
    except StatetoolsError:
        raise
    except Exception as exc:
        raise _provider_error(model, exc) from exc


async def _stream(
    model: Model, request: ModelRequest, iteration: int
) -> AsyncGenerator[StreamEvent | ModelResponse | _Asked, None]:
    """:func:`_complete`, streaming what the model sends as it arrives."""
    try:
        async with contextlib.aclosing(_streamed(model, request, iteration)) as items:
            async for item in items:
                yield item
    except StatetoolsError:
        raise
    except Exception as exc:
        raise _provider_error(model, exc) from exc


async def run_call(call: Call, context: Context, default_timeout: float | None) -> ToolResult:
    """Run ``call``'s tool, within its timeout; a failure is an error result. A script
    (code mode) runs each of its calls the same way.

    >>> import asyncio
    >>> from statetools.messages import ToolCall
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> asyncio.run(run_call(Call(ToolCall("c1", "ping"), ping), None, None)).text
    'pong'
    """
    if call.invalid_arguments is not None:
        return ToolResult.error(call.invalid_arguments)
    tool = call.tool
    if isinstance(tool, HostedScript):
        tool = tool.running(functools.partial(run_tool, default_timeout=default_timeout))
    return await run_tool(tool, call.call, context, default_timeout=default_timeout)


async def run_tool(
    tool: BaseTool, call: ToolCall, context: Context, *, default_timeout: float | None
) -> ToolResult:
    """Run ``call`` with ``tool`` within the tool's timeout (else ``default_timeout``):
    a call past it is the error result ``Tool 'name' timed out after N s.``, a tool that
    raised the error result ``Tool 'name' failed: ...``.

    >>> import asyncio
    >>> from statetools.messages import ToolCall
    >>> slow = Tool.create("slow", "Sleep.", lambda: asyncio.sleep(1))
    >>> asyncio.run(run_tool(slow, ToolCall("c1", "slow"), None, default_timeout=0.01)).text
    "Tool 'slow' timed out after 0.01 s."
    """
    seconds = timeout_of(tool, default_timeout)
    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            return await tool.acall(call.arguments, context)
    except TimeoutError as exc:
        if seconds is not None and scope.expired():
            return ToolResult.error(timed_out_message(call.name, seconds))
        return failure(call.name, exc)
    except Exception as exc:  # a BaseTool subclass that raised
        return failure(call.name, exc)


def _taken(heard: list[Event]) -> list[Event]:
    if not heard:
        return heard
    taken = heard[:]
    heard.clear()
    return taken


async def drive(
    conversation: Conversation,
    model: Model,
    heard: list[Event],
    *,
    tool_timeout: float | None = None,
    streaming: bool = False,
    saved: bool = False,
    running: bool = False,
    prompt: str | Sequence[Message] | None = None,
) -> AsyncGenerator[StreamEvent, None]:
    """Drive ``conversation`` to its end with ``model``, yielding every event as it
    happens (``heard`` is where the conversation's first listener puts them) and, when
    ``streaming``, what the model streams.

    A saved session (``saved``) goes on from where it stopped: a run cut short
    (``running``) takes its latest response again; a text ``prompt`` is the user's next
    message. However the run ends, its end is in the trace and the error raised carries
    the run so far as ``.result`` (a run closed while it waits is ``cancelled``).

    >>> events = drive(conversation, model, heard)  # doctest: +SKIP
    """
    record = conversation.record
    waiting = False
    try:
        if not saved:
            conversation.start()
        if running:
            for call in conversation.resume():
                conversation.answer(call, await run_call(call, conversation.context, tool_timeout))
            if conversation.finished:
                if not isinstance(prompt, str):
                    for event in _taken(heard):
                        waiting = True
                        yield event
                    waiting = False
                    return
                conversation.restart()
        elif saved:
            conversation.start()
        if saved and isinstance(prompt, str):
            conversation.add_user_message(prompt)
        for event in _taken(heard):
            waiting = True
            yield event
        waiting = False
        while not conversation.finished:
            request = conversation.next_request()
            response: ModelResponse | None = None
            if not streaming:
                response = await _complete(model, request)
            else:
                iteration = record.iterations + 1
                async with contextlib.aclosing(_stream(model, request, iteration)) as items:
                    async for item in items:
                        for event in _taken(heard):  # the turn's events, once it is asked
                            waiting = True
                            yield event
                        waiting = False
                        if isinstance(item, ModelResponse):
                            response = item
                        elif not isinstance(item, _Asked):
                            waiting = True
                            yield item
                            waiting = False
            assert response is not None
            for call in conversation.take(response):
                for event in _taken(heard):
                    waiting = True
                    yield event
                waiting = False
                result = await run_call(call, conversation.context, tool_timeout)
                conversation.answer(call, result)
            for event in _taken(heard):
                waiting = True
                yield event
            waiting = False
    except RunError as error:
        if error is not record.failure:  # the model failed: the conversation did not see it
            record.fail(error)
            for event in _taken(heard):
                yield event
            raise error from None
        for event in _taken(heard):
            yield event
        raise error
    except Exception as exc:  # a listener, strategy, condition or guard failed
        aborted = RunAborted(
            f"the run stopped: {type(exc).__name__}: {exc}",
            path=f"iteration {record.iterations}",
            hint="the exception is the __cause__; its traceback shows the failing code",
        )
        record.fail(aborted)
        for event in _taken(heard):
            yield event
        raise aborted from exc
    except asyncio.CancelledError as cancelled:
        record.stop(cancelled, "cancelled")
        raise
    except GeneratorExit:
        if waiting:  # closed while it waited for its reader: cancelled
            record.stop(asyncio.CancelledError(), "cancelled")
        else:
            record.stop(GeneratorExit(), "interrupted")
        raise
    except BaseException as interrupt:  # Ctrl-C, SystemExit, a framework's own exception
        record.stop(interrupt, "interrupted")
        raise
