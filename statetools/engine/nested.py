"""Calls made by a script (code mode), answered like the model's own calls.

A script tool (:class:`~statetools.engine.code_view.ScriptTool`) handed out by the
conversation runs with a :class:`ScriptCalls` of the run: each call from the script is
checked by the scheduler (a locked tool does not run; the script gets its guidance),
run with the run's context, and recorded (``ToolStarted``, ``ToolCalled``, what it
opened or closed) exactly as a direct call of the same tool. Nothing enters the
history: the model reads only what the script tool answers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from statetools.engine.answers import Refusal, admit, settle
from statetools.engine.code_view import ScriptTool, ToolRunner
from statetools.engine.events import CallBlocked, Event, ToolCalled, ToolNotFound, ToolStarted
from statetools.engine.record import RunRecord
from statetools.engine.scheduler import Scheduler
from statetools.errors import StatetoolsError
from statetools.messages import ToolCall
from statetools.tools.calling import Context, ToolResult, failure
from statetools.tools.fields import ToolDefinition
from statetools.tools.tool import BaseTool

__all__ = ["ScriptCalls", "admit_call", "nested_call_message", "run_plainly"]


def nested_call_message(name: str, script: str) -> str:
    """What a script is told when it calls a tool that runs scripts itself.

    >>> nested_call_message("run_code", "run_code")
    "Tool 'run_code' runs scripts: it cannot be called from a script of run_code."
    """
    return f"Tool '{name}' runs scripts: it cannot be called from a script of {script}."


class ScriptCalls:
    """The calls of one script, made through the run's ``record`` on behalf of the
    model's ``call`` of the script tool ``script``. Call ids are the script call's id
    with a counter (``c1.1``, ``c1.2``, ...); ``after`` sees each result as the
    conversation's strategies do. ``run`` runs each call admitted (by default the
    tool's ``acall``, a failure as an error result); a host passes its own with
    :meth:`running` (``ToolLoop`` applies its ``tool_timeout`` and the tools' own).

    >>> import asyncio
    >>> from statetools.engine import Conversation
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> conv = Conversation([ping], "Hi", run_id="r1", clock=lambda: 0.0)
    >>> calls = ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code")
    >>> asyncio.run(calls.call("ping", {})).text, conv.events[-1].call_id
    ('pong', 'c1.1')
    """

    def __init__(
        self,
        record: RunRecord | None,
        call: ToolCall,
        script: str,
        after: Callable[[ToolCall, ToolResult], None] | None = None,
        *,
        scheduler: Scheduler | None = None,
        context: Mapping[str, Any] | None = None,
        run: ToolRunner | None = None,
    ) -> None:
        if record is not None:
            scheduler = record.scheduler
        if scheduler is None:
            raise StatetoolsError("ScriptCalls needs a run's record or scheduler")
        self._record = record
        self._scheduler = scheduler
        self._context = context if context is not None else scheduler.context
        self._call = call
        self._script = script
        self._after = after
        self._count = 0
        self._run: ToolRunner = run if run is not None else run_plainly

    def running(self, run: ToolRunner) -> ScriptCalls:
        """These calls, each admitted call run by ``run`` (the host's way).

        >>> from statetools.engine import Conversation
        >>> conv = Conversation([], "Hi", run_id="r1")
        >>> calls = ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code")
        >>> calls.running(run_plainly) is calls
        False
        """
        other = copy.copy(self)
        other._run = run
        return other

    def _emit(self, event: Event) -> None:
        if self._record is not None:
            self._record.emit(event)

    def tools(self) -> Mapping[str, ToolDefinition]:
        """Every tool the script may name (visible now or not), by name.

        >>> from statetools.engine import Conversation
        >>> conv = Conversation([], "Hi", run_id="r1")
        >>> dict(ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code").tools())
        {}
        """
        graph = self._scheduler.graph
        entries, position = graph.entries, graph.position
        members = sorted(graph.code_modes.get(self._script, ()), key=position.__getitem__)
        tools = {name: entries[name].tool.definition for name in members}
        shown = self._scheduler.shown()  # and the tools its scripts' calls added
        if self._script in shown.names:
            script = shown.tools[shown.names.index(self._script)]
            if isinstance(script, ScriptTool):
                for tool in script.reached:
                    tools.setdefault(tool.name, tool.definition)
        return tools

    def callable_now(self) -> list[str]:
        """The script's tools that may be called now, in registration order.

        >>> from statetools.engine import Conversation
        >>> conv = Conversation([], "Hi", run_id="r1")
        >>> ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code").callable_now()
        []
        """
        scheduler = self._scheduler
        return [name for name in self.tools() if scheduler.explain(name) is None]

    async def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult | str:
        """Check, run and record a call of ``name``: the tool's result, or the guidance
        text when it may not run now (nothing ran)."""
        record, scheduler = self._record, self._scheduler
        iteration = record.iterations if record is not None else scheduler.iteration
        self._count += 1
        call = ToolCall(f"{self._call.id}.{self._count}", name, dict(arguments))
        admitted = admit(scheduler, name)
        if isinstance(admitted, Refusal):
            if admitted.blocked:
                self._emit(CallBlocked(iteration, call.id, name, admitted.text))
            else:
                self._emit(ToolNotFound(iteration, call.id, name))
            return admitted.text
        if isinstance(admitted, ScriptTool):
            text = nested_call_message(name, self._script)
            self._emit(CallBlocked(iteration, call.id, name, text))
            return text
        self._emit(ToolStarted(iteration, call.id, name))
        started = record.clock() if record is not None else 0.0
        result = await self._run(admitted, call, self._context)
        elapsed = record.clock() - started if record is not None else 0.0
        self._emit(ToolCalled(iteration, call.id, name, dict(arguments), result.kind, elapsed))
        settled = settle(scheduler, call, result)
        if record is not None:
            record.emit_changes(settled.changes)
        if self._after is not None:
            self._after(call, result)
        return result


async def run_plainly(tool: BaseTool, call: ToolCall, context: Context) -> ToolResult:
    """Run ``call`` with ``tool`` (no timeout but what the tool does itself); a tool that
    raised is an error result.

    >>> import asyncio
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> asyncio.run(run_plainly(ping, ToolCall("c1", "ping"), None)).text
    'pong'
    """
    try:
        return await tool.acall(dict(call.arguments), context)
    except Exception as exc:  # a BaseTool subclass that raised
        return failure(call.name, exc)


def admit_call(
    scheduler: Scheduler, call: ToolCall, context: Mapping[str, Any] | None = None
) -> BaseTool | Refusal:
    """:func:`~statetools.engine.answers.admit` for hosts that answer one call at a time
    (the bridges, the MCP gateway): a script tool (code mode) comes bound to
    ``scheduler``, so its script's calls are checked and recorded there.

    >>> from statetools.code import CodeMode
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> scheduler = Scheduler.for_items([CodeMode(ping)])
    >>> admit_call(scheduler, ToolCall("c1", "run_code")).call({"code": "ping()"}).text
    'pong'
    >>> dict(scheduler.snapshot().call_counts)
    {'ping': 1}
    """
    admitted = admit(scheduler, call.name)
    if isinstance(admitted, ScriptTool):
        calls = ScriptCalls(None, call, call.name, scheduler=scheduler, context=context)
        return admitted.hosted(calls)
    return admitted
