"""Taking one model response: a refusal, tool calls cut off by the token limit, the
final answer (read as ``output_type``), or tool calls and what ends the run after them.

A continued session takes its latest response again when a crash cut its handling
short: calls already answered are never answered again, and an ending already reached
(``return_direct``, a final state: saved with the run) still ends the run, so the
session finishes as the unbroken run did, without asking the model once more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from statetools.errors import OutputValidationError, ToolNotFoundError
from statetools.loop.calls import answer, cut_off_message, execute, refused_message
from statetools.loop.events import OutputRejected
from statetools.loop.output import OutputProblem, correction_message, parse_output
from statetools.loop.result import LoopResult
from statetools.loop.sessions import pending_calls
from statetools.messages import AssistantMessage, Message, UserMessage

if TYPE_CHECKING:
    from statetools.loop.run import Run

__all__ = ["MAX_MISSES_IN_A_ROW", "latest_response", "take_response"]

MAX_MISSES_IN_A_ROW = 3
"""Calls in a row of names that are no tool before the run ends with ToolNotFoundError."""


def latest_response(messages: list[Message]) -> AssistantMessage | None:
    """The latest model response, if nothing but its calls' answers came after it (a
    run that stopped while taking it); None when a user message came later."""
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            return message
        if isinstance(message, UserMessage):
            return None
    return None


async def take_response(
    run: Run, message: AssistantMessage, output_type: Any, *, resumed: bool = False
) -> LoopResult | None:
    """Act on ``message``, the latest response (already in the history): the run's
    result when it ends the run, None when the model is to be asked again.

    ``resumed``: a continued session takes again the response its last run stopped in.
    Where that run would have ended with an error (the answer still does not fit
    ``output_type``, too many unknown tools), a continued one asks the model again.
    """
    open_calls = pending_calls(run.messages)
    if run.stop_reason == "refusal":
        for call in open_calls:
            answer(run, call, refused_message(call.name), True)
        plain = output_type is None or output_type is str
        return run.finish(message.content if plain else None, "refusal")
    if run.stop_reason == "max_tokens" and message.tool_calls:
        for call in open_calls:  # their arguments may be cut off too
            answer(run, call, cut_off_message(call.name), True)
        return None
    if not message.tool_calls:
        return _final_answer(run, message, output_type, resumed)
    for call in open_calls:
        await execute(run, call)
    if run.misses >= MAX_MISSES_IN_A_ROW:
        if resumed:
            return None
        raise ToolNotFoundError(
            f"the model called tools that do not exist {run.misses} times in a row",
            path=f"iteration {run.iterations}",
            hint="check the tool names in the prompt and the model's instructions",
        )
    if run.ending is not None:
        outcome, output = run.ending
        return run.finish(output, outcome)
    return None


def _final_answer(
    run: Run, message: AssistantMessage, output_type: Any, resumed: bool
) -> LoopResult | None:
    try:
        output = parse_output(message.content, output_type)
    except OutputProblem as problem:
        if run.output_corrected:
            if resumed:
                return None
            raise OutputValidationError(
                f"the final answer is not a valid "
                f"{getattr(output_type, '__name__', output_type)}: {problem}",
                path="output",
                hint="make the type easier to produce, or say more in the prompt",
            ) from None
        run.output_corrected = True
        text = correction_message(problem, output_type)
        run.emit(OutputRejected(run.iterations, text))
        run.messages.append(UserMessage(text))
        run.checkpoint()
        return None
    return run.finish(output, "answer")
