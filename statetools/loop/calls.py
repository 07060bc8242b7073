"""Answering the tool calls of one model response: run, refuse, or time out each one."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from statetools.disclosure.scheduler import Blocked, Changes, Injected
from statetools.loop.boundary import clean_text
from statetools.loop.events import CallBlocked, ToolAnswered, ToolCalled, ToolNotFound, ToolStarted
from statetools.loop.run import injection_events, unknown_tool_message
from statetools.loop.strategies import InjectionContext
from statetools.messages import ToolCall, ToolMessage
from statetools.tools.calling import failure
from statetools.tools.result import ToolResult
from statetools.tools.tool import BaseTool

if TYPE_CHECKING:
    from statetools.loop.run import Run


def timed_out_message(name: str, seconds: float) -> str:
    """What the model is told when a call ran past its timeout.

    >>> timed_out_message("slow", 1)
    "Tool 'slow' timed out after 1.0 s."
    """
    return f"Tool '{name}' timed out after {float(seconds)} s."


def cut_off_message(name: str) -> str:
    """What the model is told about a call of a response cut off by the token limit.

    >>> cut_off_message("wipe")
    "Tool 'wipe' was not run: your response was cut off by the token limit before the call was complete. Call it again, with a shorter response."
    """  # noqa: E501
    return (
        f"Tool '{name}' was not run: your response was cut off by the token limit before "
        "the call was complete. Call it again, with a shorter response."
    )


def refused_message(name: str) -> str:
    """What answers a call that came with a refusal (the run ends with the refusal).

    >>> refused_message("wipe")
    "Tool 'wipe' was not run: the response was a refusal."
    """
    return f"Tool '{name}' was not run: the response was a refusal."


def timeout_of(tool: BaseTool, default: float | None) -> float | None:
    """The seconds a call of ``tool`` may take: its own timeout, else the loop's."""
    own = tool.metadata.timeout
    return own if own is not None else default


def answer(run: Run, call: ToolCall, text: str, is_error: bool) -> None:
    """Append the one tool message answering ``call`` and report it."""
    text = clean_text(text)
    run.messages.append(ToolMessage(call.id, call.name, text, is_error))
    run.emit(ToolAnswered(run.iterations, call.id, call.name, text, is_error))
    if run.catalogue is not None:
        run.catalogue.after_call(call.id, run.scheduler.shown().names)
    run.checkpoint()


async def _run_tool(run: Run, tool: BaseTool, call: ToolCall) -> ToolResult:
    if call.invalid_arguments is not None:
        return ToolResult.error(call.invalid_arguments)
    seconds = timeout_of(tool, run.loop.tool_timeout)
    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            return await tool.acall(call.arguments, run.context)
    except TimeoutError as exc:
        if seconds is not None and scope.expired():
            return ToolResult.error(timed_out_message(call.name, seconds))
        return failure(call.name, exc)
    except Exception as exc:  # a BaseTool subclass that raised
        return failure(call.name, exc)


async def execute(run: Run, call: ToolCall) -> tuple[ToolResult, BaseTool | None, Changes]:
    """Run one call and append exactly one tool message answering it; a call that
    ends the run (``return_direct``, a final state) is noted on the run before its
    answer is saved, so a continued session ends as the unbroken run does.

    Returns the tool's own result (without the announcement line, which only the
    tool message carries), the tool that ran (None if none did) and the changes.
    """
    resolved = run.scheduler.resolve(call.name)
    tool: BaseTool | None = None
    changes = Changes()
    if resolved is None:
        run.misses += 1
        names = run.scheduler.shown().names
        result = ToolResult.error(unknown_tool_message(call.name, names))
        run.emit(ToolNotFound(run.iterations, call.id, call.name))
    elif isinstance(resolved, Blocked):
        run.misses = 0
        result = ToolResult.error(resolved.reason)
        run.emit(CallBlocked(run.iterations, call.id, call.name, resolved.reason))
    else:
        run.misses = 0
        tool = resolved
        run.emit(ToolStarted(run.iterations, call.id, call.name))
        started = run.loop.clock()
        result = await _run_tool(run, tool, call)
        run.emit(
            ToolCalled(
                run.iterations,
                call.id,
                call.name,
                dict(call.arguments),
                result.kind,
                run.loop.clock() - started,
            )
        )
        changes = run.scheduler.record(call, result)
        run.emit_changes(changes)
        apply_strategies(run, call, result)
        if tool.metadata.return_direct and not result.is_error:
            run.reach("return_direct", result.value if result.has_value else result.text)
        if run.loop.end_on_final_state and changes.final_reached:
            run.reach("final_state", result.text)
    text = result.text
    if changes.announcement:
        text = f"{text}\n{changes.announcement}"
    answer(run, call, text, result.is_error)
    return result, tool, changes


def apply_strategies(run: Run, call: ToolCall, result: ToolResult) -> None:
    """Ask the loop's injection strategies about ``call`` and apply their injection."""
    strategy = run.loop.strategy
    if strategy is None:
        return
    injection = strategy.evaluate(
        InjectionContext(
            messages=tuple(run.messages),
            tools=run.scheduler.shown().tools,
            call=call,
            result=result,
            iteration=run.iterations,
            blackboard=run.blackboard,
        )
    )
    if not injection:
        return
    removed = run.scheduler.remove(injection.remove)
    added, skipped = run.scheduler.add(injection.add)
    injected = Injected(
        type(strategy).__name__,
        added=tuple(added),
        removed=tuple(removed),
        skipped=tuple(skipped),
    )
    for event in injection_events(run.iterations, injected):
        run.emit(event)
