"""The steps of a run, written into its :class:`~statetools.engine.RunRecord`: a turn
begins, the model responds, a call is checked (and refused with its guidance, or handed
out), a call's result is recorded and answered, a final answer is sent back.

:class:`~statetools.engine.Conversation` is made of these, and every host drives a
conversation (the asyncio loop, the Temporal workflow), so every host words and records
a call alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from statetools.blackboard import Blackboard
from statetools.engine.answers import (
    MAX_MISSES_IN_A_ROW,
    Refusal,
    Settled,
    admit,
    cut_off_message,
    injection_events,
    refused_message,
    settle,
)
from statetools.engine.boundary import clean_message
from statetools.engine.calls import Call
from statetools.engine.code_view import ScriptTool
from statetools.engine.events import (
    CallBlocked,
    IterationStarted,
    ModelResponded,
    OutputRejected,
    ToolCalled,
    ToolNotFound,
    ToolStarted,
)
from statetools.engine.nested import ScriptCalls
from statetools.engine.record import RunRecord
from statetools.engine.run_result import (
    OutputProblem,
    correction_message,
    parse_output,
    unreadable_error,
)
from statetools.engine.scheduler import Injected
from statetools.engine.strategies import InjectionContext, ToolInjectionStrategy
from statetools.engine.tool_search import open_found
from statetools.engine.visible_tools import Shown
from statetools.errors import OutputValidationError, ToolNotFoundError
from statetools.messages import AssistantMessage, ToolCall, UserMessage
from statetools.models.base import ModelResponse
from statetools.tools.calling import OutcomeKind, ToolResult

__all__ = [
    "answer_unrun",
    "apply_strategy",
    "begin_turn",
    "close_call",
    "end_of_response",
    "final_answer",
    "open_call",
    "reject_output",
    "responded",
    "unreadable_answer",
]


def begin_turn(record: RunRecord) -> Shown:
    """A model request is about to be made: the turn's conditions are checked again
    (``When`` conditions, say) and ``IterationStarted`` names the tools visible now.

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> begin_turn(record).names, record.events[-1].type
    ((), 'iteration_started')
    """
    record.emit_changes(record.scheduler.begin_turn())
    shown = record.scheduler.shown()
    record.emit(IterationStarted(record.iterations + 1, shown.names))
    return shown


def responded(record: RunRecord, response: ModelResponse) -> AssistantMessage:
    """The model's ``response`` enters the history (``ModelResponded``); saved.

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> responded(record, ModelResponse(AssistantMessage("Hello!"))).content, record.iterations
    ('Hello!', 1)
    """
    record.iterations += 1
    record.usage += response.usage
    record.stop_reason = response.stop_reason
    message = clean_message(response.message)
    assert isinstance(message, AssistantMessage)
    record.messages.append(message)
    record.ending = None
    names = tuple(call.name for call in message.tool_calls)
    record.emit(ModelResponded(record.iterations, message.content, names, response.stop_reason))
    if response.found:  # the provider's search opened these: its calls of them may run
        search_id = f"search:{record.iterations}"
        record.emit_changes(open_found(record.scheduler, response.found, search_id))
        if record.catalogue is not None:
            record.catalogue.after_search(search_id, record.scheduler.shown().names)
    record.checkpoint()
    return message


def open_call(
    record: RunRecord,
    call: ToolCall,
    after: Callable[[ToolCall, ToolResult], None] | None = None,
    reword: Callable[[str, str], str] | None = None,
) -> Call | None:
    """The call to hand out (``ToolStarted``; its clock starts); None when it may not
    run: a name that is no tool (``ToolNotFound``, one more miss in a row) or a tool
    that is locked now (``CallBlocked``) is answered with its guidance right here
    (``reword(name, text)`` may say it the way the model's mode needs).
    A script tool (code mode) is handed out bound to the run: the calls its script
    makes are checked and recorded as direct calls (``after`` sees their results).

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> open_call(record, ToolCall("c1", "ping")) is None, record.messages[-1].content
    (True, "Tool 'ping' does not exist. Available tools: none.")
    """
    admitted = admit(record.scheduler, call.name)
    if isinstance(admitted, Refusal) and admitted.blocked and reword is not None:
        admitted = Refusal(reword(call.name, admitted.text), blocked=True)
    if isinstance(admitted, Refusal):
        if admitted.blocked:
            record.misses = 0
            record.emit(CallBlocked(record.iterations, call.id, call.name, admitted.text))
        else:
            record.misses += 1
            record.emit(ToolNotFound(record.iterations, call.id, call.name))
        record.reply(call, admitted.text, True)
        return None
    record.misses = 0
    record.emit(ToolStarted(record.iterations, call.id, call.name))
    if isinstance(admitted, ScriptTool):
        return Call(
            call, admitted.hosted(ScriptCalls(record, call, call.name, after)), record.clock()
        )
    return Call(call, admitted, record.clock())


def close_call(
    record: RunRecord,
    call: Call,
    result: ToolResult,
    *,
    duration: float | None = None,
    kind: OutcomeKind | None = None,
    end_on_final_state: bool = False,
    after: Callable[[ToolCall, ToolResult], None] | None = None,
) -> Settled:
    """Record ``call``'s ``result`` (``ToolCalled``, what it changed) and answer it
    (``ToolAnswered``, with the announcement of what opened). A ``return_direct`` tool's
    result, or a final state reached with ``end_on_final_state``, ends the run once the
    response's calls are all answered. ``after`` sees the result before it is answered
    (the injection strategies); ``duration`` defaults to the clock's time since the call
    was handed out, ``kind`` to the result's own.

    >>> from statetools.engine import Conversation
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> record = Conversation([ping], "Hi", run_id="r1", clock=lambda: 0.0).record
    >>> call = open_call(record, ToolCall("c1", "ping"))
    >>> close_call(record, call, ToolResult.text("pong")).text, record.messages[-1].content
    ('pong', 'pong')
    """
    elapsed = record.clock() - call.started if duration is None else duration
    record.emit(
        ToolCalled(
            record.iterations,
            call.id,
            call.name,
            dict(call.arguments),
            result.kind if kind is None else kind,
            elapsed,
        )
    )
    settled = settle(record.scheduler, call.call, result)
    record.emit_changes(settled.changes)
    if after is not None:
        after(call.call, result)
    if call.tool.metadata.return_direct and not result.is_error:
        record.reach("return_direct", result.value if result.has_value else result.text)
    if end_on_final_state and settled.changes.final_reached:
        record.reach("final_state", result.text)
    record.reply(call.call, settled.text, result.is_error)
    return settled


def reject_output(record: RunRecord, text: str) -> None:
    """The final answer did not fit the output type: the model is told ``text`` (once;
    a second answer that does not fit ends the run).

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> reject_output(record, "Answer with a number.")
    >>> record.output_corrected, record.messages[-1].content
    (True, 'Answer with a number.')
    """
    record.output_corrected = True
    record.emit(OutputRejected(record.iterations, text))
    record.messages.append(UserMessage(text))
    record.checkpoint()


def answer_unrun(record: RunRecord, calls: Sequence[ToolCall], stop_reason: str) -> None:
    """Answer the calls of a response that are not run: it was a refusal (the run ends
    with it), or it was cut off by the token limit (their arguments may be cut off too).

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> answer_unrun(record, [ToolCall("c1", "wipe")], "refusal")
    >>> record.messages[-1].content
    "Tool 'wipe' was not run: the response was a refusal."
    """
    words = refused_message if stop_reason == "refusal" else cut_off_message
    for call in calls:
        record.reply(call, words(call.name), True)


def end_of_response(record: RunRecord, resumed: bool) -> None:
    """Every call of the latest response is answered: the run ends when one reached an
    ending; too many unknown tools in a row end it with :class:`ToolNotFoundError`
    (a continued session that stopped there asks the model again: ``resumed``).

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
    >>> record.reach("return_direct", 42)
    >>> end_of_response(record, resumed=False)
    >>> record.ended.output, record.ended.outcome
    (42, 'return_direct')
    """
    if record.misses >= MAX_MISSES_IN_A_ROW:
        if resumed:
            return
        raise ToolNotFoundError(
            f"the model called tools that do not exist {record.misses} times in a row",
            path=f"iteration {record.iterations}",
            hint="check the tool names in the prompt and the model's instructions",
        )
    if record.ending is not None:
        outcome, output = record.ending
        record.finish(output, outcome)


def final_answer(record: RunRecord, text: str, output_type: Any, resumed: bool) -> None:
    """The model's final answer ``text``, read as ``output_type``, ends the run; one that
    does not fit is sent back once with what is wrong, a second raises
    :class:`OutputValidationError` (a continued session asks the model again).

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
    >>> final_answer(record, "42", int, resumed=False)
    >>> record.ended.output
    42
    """
    try:
        output = parse_output(text, output_type)
    except OutputProblem as problem:
        correction = correction_message(problem, output_type)
        unreadable_answer(record, correction, unreadable_error(problem, output_type), resumed)
        return
    record.finish(output, "answer")


def unreadable_answer(
    record: RunRecord, correction: str, error: OutputValidationError, resumed: bool
) -> None:
    """The final answer could not be read as the output type: the model is told
    ``correction`` the first time; the second time ``error`` ends the run (a continued
    session asks the model again: ``resumed``).

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> unreadable_answer(record, "Answer with a number.", OutputValidationError("no"), False)
    >>> record.messages[-1].content
    'Answer with a number.'
    """
    if not record.output_corrected:
        reject_output(record, correction)
    elif not resumed:
        raise error


def apply_strategy(
    record: RunRecord,
    strategy: ToolInjectionStrategy,
    blackboard: Blackboard,
    call: ToolCall,
    result: ToolResult,
) -> None:
    """Ask ``strategy`` about ``call``'s ``result`` and apply the tools it adds or removes
    (``ToolsInjected``, ``ToolsRemoved``, ``InjectionSkipped``).

    >>> from statetools.engine import Conversation
    >>> class Nothing:
    ...     def evaluate(self, context):
    ...         return None
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> apply_strategy(record, Nothing(), Blackboard(), ToolCall("c1", "x"), ToolResult.text(""))
    >>> record.events[-1].type
    'run_started'
    """
    scheduler = record.scheduler
    injection = strategy.evaluate(
        InjectionContext(
            messages=tuple(record.messages),
            tools=scheduler.shown().tools,
            call=call,
            result=result,
            iteration=record.iterations,
            blackboard=blackboard,
        )
    )
    if not injection:
        return
    removed = scheduler.remove(injection.remove)
    added, skipped = scheduler.add(injection.add)
    injected = Injected(
        type(strategy).__name__,
        added=tuple(added),
        removed=tuple(removed),
        skipped=tuple(skipped),
    )
    for event in injection_events(record.iterations, injected):
        record.emit(event)
