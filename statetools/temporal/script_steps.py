"""Code mode in a Temporal session: a script runs as a chain of activities.

The workflow cannot run the sandbox (a worker process: I/O, and time that differs on
replay), and a tool call must not run inside another activity (it would not be
retried, timed or recorded on its own). So each stretch of the script between two
tool calls is one activity (:func:`run_script_step`, ``statetools.script``): it starts
the script, or loads it from the bytes the previous step dumped, resumes it with the
answer to its last call, and runs it to its next call, which it returns with the
paused sandbox as bytes. The workflow answers that call exactly as a direct call
(checked by its scheduler, run in the tool activity, recorded in its trace; see
:class:`~statetools.engine.nested.ScriptCalls`) and starts the next step. Replay
reads every step's and every call's result from the history, so the workflow
takes the same decisions again; a worker lost in a step runs that step again from the
same bytes, and no tool call runs twice.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
from temporalio import activity

from statetools.code.mode import HostedCode
from statetools.code.sandbox import Answer, Limits, Output, Pause, Sandbox
from statetools.code.scripts import ScriptCallsMade, answer, script_code, with_opened
from statetools.engine.code_view import ToolRunner
from statetools.errors import StatetoolsError
from statetools.messages import ToolCall
from statetools.temporal.payloads import ScriptPaused, ScriptStep
from statetools.tools.calling import ToolResult

__all__ = ["SCRIPT_ACTIVITY", "answer_payload", "drive_script", "pause_of", "run_script_step"]

SCRIPT_ACTIVITY = "statetools.script"


def _json(value: Any) -> Any:
    """``value`` as JSON data (a script's tuples and sets become lists; what JSON
    cannot hold, its text)."""

    def fallback(item: Any) -> Any:
        if isinstance(item, set | frozenset | tuple):
            return list(item)
        return str(item)

    return json.loads(json.dumps(value, default=fallback))


def answer_payload(answer: Answer) -> dict[str, Any]:
    """An :class:`~statetools.code.sandbox.Answer` as JSON for the next step.

    >>> answer_payload(Answer(error=("PermissionError", "locked")))
    {'error': ['PermissionError', 'locked']}
    """
    if answer.stop is not None:
        return {"stop": answer.stop}
    if answer.error is not None:
        return {"error": list(answer.error)}
    return {"value": _json(answer.value)}


def _answer_of(payload: dict[str, Any]) -> Answer:
    if "stop" in payload:
        return Answer(stop=str(payload["stop"]))
    if "error" in payload:
        kind, text = payload["error"]
        return Answer(error=(str(kind), str(text)))
    return Answer(payload.get("value"))


def pause_of(paused: ScriptPaused) -> Pause:
    """The call a step stopped at.

    >>> pause_of(ScriptPaused("ping", [1], {"n": 2})).kwargs
    {'n': 2}
    """
    return Pause(str(paused.function), tuple(paused.args), dict(paused.kwargs))


@activity.defn(name=SCRIPT_ACTIVITY)
async def run_script_step(step: ScriptStep) -> ScriptPaused:
    """Run one step of a script (see the module): to its next tool call, or its end.

    >>> import asyncio
    >>> from temporalio.testing import ActivityEnvironment
    >>> first = ScriptStep("run_code", {}, ["ping"], code="print('hi')\\nping() + 1")
    >>> paused = asyncio.run(ActivityEnvironment().run(run_script_step, first))
    >>> paused.function, paused.printed
    ('ping', 'hi\\n')
    >>> after = ScriptStep("run_code", {}, ["ping"], snapshot=paused.snapshot,
    ...     answer={"value": 41}, printed=paused.printed, used=paused.used)
    >>> asyncio.run(ActivityEnvironment().run(run_script_step, after)).result
    {'content': 'hi\\n42', 'is_error': False}
    """
    limits = Limits(**step.limits)
    output = Output(limits.output, step.printed, step.dropped)
    try:
        async with Sandbox(step.tool, limits, output, step.used) as sandbox:
            if step.code is not None:
                reached = await sandbox.start(step.code, step.names)
            else:
                assert step.snapshot is not None
                assert step.answer is not None
                reached = await sandbox.load(base64.b64decode(step.snapshot), step.names)
                if isinstance(reached, Pause):
                    reached = await sandbox.resume(_answer_of(step.answer), step.names)
            printed, dropped = output.saved()
            if isinstance(reached, ToolResult):
                result = {"content": reached.text, "is_error": reached.is_error}
                return ScriptPaused(
                    result=result, printed=printed, dropped=dropped, used=sandbox.used
                )
            return ScriptPaused(
                reached.function,
                _json(list(reached.args)),
                _json(dict(reached.kwargs)),
                base64.b64encode(sandbox.dump()).decode("ascii"),
                printed=printed,
                dropped=dropped,
                used=sandbox.used,
            )
    except RuntimeError as exc:  # the sandbox could not start here
        if isinstance(exc, StatetoolsError):
            raise
        text = f"{step.tool}: the sandbox could not run the script: {exc}"
        return ScriptPaused(result={"content": text, "is_error": True})


async def drive_script(
    hosted: HostedCode,
    call: ToolCall,
    run_step: Callable[[ScriptStep], Awaitable[ScriptPaused]],
    run_tool: ToolRunner,
) -> ToolResult:
    """Run the script of ``call`` (a call of code-mode tool ``hosted``) in the workflow:
    each step by ``run_step`` (the script activity), each of its tool calls checked and
    recorded by ``hosted``'s calls and run by ``run_tool`` (the tool activity). The
    result is the one a local run gives.

    >>> result = await drive_script(hosted, call, step_activity, tool_activity)  # doctest: +SKIP
    """
    code = script_code(call.arguments, hosted.name)
    if isinstance(code, ToolResult):
        return code
    calls = hosted.calls.running(run_tool)
    before = dict.fromkeys(calls.callable_now())
    made = ScriptCallsMade(calls)
    limits = hosted.script.limits
    as_data = attrs.asdict(limits)
    step = ScriptStep(hosted.name, as_data, list(made.names), code=code)
    while True:
        paused = await run_step(step)
        if paused.result is not None:
            text, failed = str(paused.result["content"]), bool(paused.result["is_error"])
            result = ToolResult.error(text) if failed else ToolResult.text(text)
            return with_opened(result, before, calls)
        reply = await answer(pause_of(paused), made, tool=hosted.name, limits=limits)
        step = ScriptStep(
            hosted.name,
            as_data,
            list(made.names),
            snapshot=paused.snapshot,
            answer=answer_payload(reply),
            printed=paused.printed,
            dropped=paused.dropped,
            used=paused.used,
        )
