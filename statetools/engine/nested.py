"""Calls made by a script (code mode), answered like the model's own calls.

A script tool (:class:`~statetools.disclosure.code_view.ScriptTool`) handed out by the
conversation runs with a :class:`ScriptCalls` of the run: each call from the script is
checked by the scheduler (a locked tool does not run; the script gets its guidance),
run with the run's context, and recorded (``ToolStarted``, ``ToolCalled``, what it
opened or closed) exactly as a direct call of the same tool. Nothing enters the
history: the model reads only what the script tool answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from statetools.disclosure.code_view import ScriptTool
from statetools.engine.answers import Refusal, admit, settle
from statetools.engine.events import CallBlocked, ToolCalled, ToolNotFound, ToolStarted
from statetools.engine.record import RunRecord
from statetools.messages import ToolCall
from statetools.tools.definition import ToolDefinition
from statetools.tools.result import ToolResult

__all__ = ["ScriptCalls", "nested_call_message"]


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
    conversation's strategies do.

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
        record: RunRecord,
        call: ToolCall,
        script: str,
        after: Callable[[ToolCall, ToolResult], None] | None = None,
    ) -> None:
        self._record = record
        self._call = call
        self._script = script
        self._after = after
        self._count = 0

    def tools(self) -> Mapping[str, ToolDefinition]:
        """Every tool the script may name (visible now or not), by name.

        >>> from statetools.engine import Conversation
        >>> conv = Conversation([], "Hi", run_id="r1")
        >>> dict(ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code").tools())
        {}
        """
        graph = self._record.scheduler.graph
        entries, position = graph.entries, graph.position
        members = sorted(graph.code_modes.get(self._script, ()), key=position.__getitem__)
        return {name: entries[name].tool.definition for name in members}

    def callable_now(self) -> list[str]:
        """The script's tools that may be called now, in registration order.

        >>> from statetools.engine import Conversation
        >>> conv = Conversation([], "Hi", run_id="r1")
        >>> ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code").callable_now()
        []
        """
        scheduler = self._record.scheduler
        return [name for name in self.tools() if scheduler.explain(name) is None]

    async def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult | str:
        """Check, run and record a call of ``name``: the tool's result, or the guidance
        text when it may not run now (nothing ran)."""
        record = self._record
        self._count += 1
        call = ToolCall(f"{self._call.id}.{self._count}", name, dict(arguments))
        admitted = admit(record.scheduler, name)
        if isinstance(admitted, Refusal):
            if admitted.blocked:
                record.emit(CallBlocked(record.iterations, call.id, name, admitted.text))
            else:
                record.emit(ToolNotFound(record.iterations, call.id, name))
            return admitted.text
        if isinstance(admitted, ScriptTool):
            text = nested_call_message(name, self._script)
            record.emit(CallBlocked(record.iterations, call.id, name, text))
            return text
        record.emit(ToolStarted(record.iterations, call.id, name))
        started = record.clock()
        result = await admitted.acall(dict(arguments), record.scheduler.context)
        elapsed = record.clock() - started
        record.emit(
            ToolCalled(record.iterations, call.id, name, dict(arguments), result.kind, elapsed)
        )
        settled = settle(record.scheduler, call, result)
        record.emit_changes(settled.changes)
        if self._after is not None:
            self._after(call, result)
        return result
