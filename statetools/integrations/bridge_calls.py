"""How a bridge runs one admitted call: within the tool's timeout (its own
``metadata.timeout``, else the bridge's ``tool_timeout``), as the loop does.

Asynchronously, a call runs through the loop's own :func:`~statetools.loop.host.run_call`
(an async handler is cancelled at its timeout; a synchronous one runs in a worker
thread, whose result is dropped when it comes too late; a code-mode script's calls each
get their timeout). Synchronously (a framework calling a tool with no event loop, see
:func:`call_sync`), a synchronous handler with a timeout runs in a worker thread that
the caller waits for, at most that long: a thread cannot be stopped, so a handler past
its timeout runs on to its end in the background.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeGuard, TypeVar

from statetools.engine.answers import timed_out_message, timeout_of
from statetools.engine.calls import Call
from statetools.loop.host import run_call
from statetools.messages import ToolCall
from statetools.tools.calling import ToolResult, failure
from statetools.tools.tool import BaseTool, Tool

__all__ = ["InThread", "SharedLoop", "call_async", "call_sync", "threaded"]

T = TypeVar("T")

InThread = Callable[
    [Callable[[Tool, ToolCall, Mapping[str, Any]], ToolResult], Tool, ToolCall, Mapping[str, Any]],
    Awaitable[ToolResult],
]
"""Runs ``f(tool, call, context)`` in a worker thread and returns its result (such as
``anyio.to_thread.run_sync``)."""


class SharedLoop:
    """One event loop for the tools with asynchronous handlers of synchronous runs,
    shared by their threads (one coroutine at a time; made on first use).

    >>> async def ping() -> str:
    ...     return "pong"
    >>> SharedLoop().run(ping())
    'pong'
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runner: asyncio.Runner | None = None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop, once another thread's is done.

        >>> shared = SharedLoop()
        >>> async def loop_id() -> int:
        ...     return id(asyncio.get_running_loop())
        >>> shared.run(loop_id()) == shared.run(loop_id())
        True
        """
        with self._lock:
            if self._runner is None:
                self._runner = asyncio.Runner()
            return self._runner.run(coroutine)


def threaded(tool: BaseTool) -> TypeGuard[Tool]:
    """Whether ``tool.acall`` would run the handler in a worker thread.

    >>> threaded(Tool.create("ping", "Ping.", lambda: "pong"))
    True
    """
    return (
        isinstance(tool, Tool)
        and not tool.metadata.on_loop_thread
        and not inspect.iscoroutinefunction(tool.handler)
    )


async def call_async(
    tool: BaseTool, call: ToolCall, context: Mapping[str, Any], tool_timeout: float | None
) -> ToolResult:
    """Run ``call`` with ``tool`` as the loop does: within the tool's own timeout, else
    ``tool_timeout`` (past it, the error result ``Tool 'name' timed out after N s.``);
    a failure is an error result.

    >>> slow = Tool.create("slow", "Sleep.", lambda: asyncio.sleep(1))
    >>> asyncio.run(call_async(slow, ToolCall("c1", "slow"), {}, 0.01)).text
    "Tool 'slow' timed out after 0.01 s."
    """
    return await run_call(Call(call, tool), context, tool_timeout)


def _call_here(tool: Tool, call: ToolCall, context: Mapping[str, Any]) -> ToolResult:
    """Run a tool with a synchronous handler in this thread."""
    try:
        return tool.call(dict(call.arguments), context)
    except Exception as exc:  # raised outside the handler (its own errors are results)
        return failure(call.name, exc)


def call_sync(
    tool: Tool, call: ToolCall, context: Mapping[str, Any], tool_timeout: float | None = None
) -> ToolResult:
    """Run a tool with a synchronous handler without an event loop, within its own
    timeout, else ``tool_timeout``.

    With no timeout (or ``metadata.on_loop_thread``, which pins the handler to the
    caller's thread and so cannot be timed out) the handler runs right here, in the
    caller's thread. With one, it runs in a worker thread of its own (with the caller's
    context variables) and the caller waits at most that long: past it the answer is
    ``Tool 'name' timed out after N s.`` and the caller goes on. A Python thread cannot
    be stopped, so the handler keeps running to its end in the background and its result
    is dropped (its side effects still happen; the process waits for it before it
    exits), as with the loop's worker threads.

    >>> import time
    >>> slow = Tool.create("slow", "Sleep.", lambda: time.sleep(0.2) or "late")
    >>> call_sync(slow, ToolCall("c1", "slow"), {}, 0.05).text
    "Tool 'slow' timed out after 0.05 s."
    """
    if call.invalid_arguments is not None:
        return ToolResult.error(call.invalid_arguments)
    seconds = timeout_of(tool, tool_timeout)
    if seconds is None or tool.metadata.on_loop_thread:
        return _call_here(tool, call, context)
    done: concurrent.futures.Future[ToolResult] = concurrent.futures.Future()
    copied = contextvars.copy_context()

    def work() -> None:
        try:
            done.set_result(copied.run(_call_here, tool, call, context))
        except BaseException as exc:  # handed to the waiting caller
            done.set_exception(exc)

    threading.Thread(target=work, name=f"statetools-tool-{call.name}").start()
    finished, _ = concurrent.futures.wait([done], timeout=seconds)
    if not finished:
        return ToolResult.error(timed_out_message(call.name, seconds))
    return done.result()
