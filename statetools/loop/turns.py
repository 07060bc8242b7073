"""The turns of a run: ask the model with the tools visible now, take its response, and
go on until the run ends (or a session cut short goes on from its latest response)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from statetools.errors import (
    MaxIterationsExceeded,
    ProviderError,
    RestartLimitExceeded,
    StatetoolsError,
)
from statetools.loop.boundary import clean_message
from statetools.loop.events import (
    ConversationRestarted,
    IterationStarted,
    ModelResponded,
    RunStarted,
)
from statetools.loop.prompt import refresh_prompt
from statetools.loop.response import latest_response, take_response
from statetools.loop.result import LoopResult
from statetools.loop.run import Run, tools_digest
from statetools.loop.sessions import SavedRun
from statetools.loop.streaming import IterationSink, ask_model
from statetools.messages import AssistantMessage, Message
from statetools.models.base import ModelRequest, ModelResponse, ToolDefinition
from statetools.tools.context import RUN_ID_KEY
from statetools.wording import counted

__all__ = ["MAX_RESTARTS", "drive", "go_on", "start"]

MAX_RESTARTS = 10
"""Conversation restarts allowed for a model without dynamic tools."""


def start(run: Run) -> None:
    """Report that the run starts, with the tools visible now."""
    run.emit(
        RunStarted(str(run.context[RUN_ID_KEY]), run.loop.clock(), run.scheduler.shown().names)
    )


async def go_on(
    run: Run, saved: SavedRun, output_type: Any, prompt: str | Sequence[Message] | None
) -> bool:
    """Continue a saved run that was cut short: take its latest response again (calls
    with no saved answer run again; saved ones never do). True when that ended the run
    and there is nothing more to do; with a new prompt, the ended run is followed by a
    new one, as it would have been without the crash.

    >>> await go_on(run, store.saved("s1"), None, None)  # doctest: +SKIP
    True
    """
    if saved.result.state.ending is not None:
        run.ending = (saved.result.state.ending, saved.result.output)
    latest = latest_response(run.messages)
    if latest is None or await take_response(run, latest, output_type, resumed=True) is None:
        return False
    if not isinstance(prompt, str):
        return True
    run.finished, run.ending = None, None
    start(run)
    return False


async def drive(run: Run, output_type: Any) -> LoopResult:
    """Ask the model and take its responses until one ends the run, at most
    ``max_iterations`` times.

    >>> result = await drive(run, None)  # doctest: +SKIP
    """
    model = run.loop.model
    first = run.iterations
    while run.iterations - first < run.loop.max_iterations:
        run.emit_changes(run.scheduler.begin_turn())
        shown = run.scheduler.shown()
        definitions = shown.definitions
        run.emit(IterationStarted(run.iterations + 1, shown.names))
        static = not model.capabilities.supports_dynamic_tools
        conversation = conversation_for(run, definitions) if static else run.conversation
        if conversation != run.conversation:  # a new conversation: sections read so far
            refresh_prompt(run, run.prompt_index)  # show in full in its system prompt
        catalogue = run.catalogue.request(definitions) if run.catalogue else None
        request = ModelRequest(tuple(run.messages), definitions, conversation, catalogue)
        try:
            response = await _ask(run, request)
        except StatetoolsError:
            raise
        except Exception as exc:
            raise ProviderError(
                f"the model failed: {type(exc).__name__}: {exc}",
                path=type(model).__name__,
                hint="the exception is the __cause__",
            ) from exc
        run.iterations += 1
        if static:  # the (new) conversation began with this request
            run.conversation, run.conversation_tools = conversation, definitions
            run.saved_tools_digest = None
        run.usage += response.usage
        run.stop_reason = response.stop_reason
        message = clean_message(response.message)
        assert isinstance(message, AssistantMessage)
        run.messages.append(message)
        run.ending = None
        run.emit(
            ModelResponded(
                run.iterations,
                message.content,
                tuple(c.name for c in message.tool_calls),
                response.stop_reason,
            )
        )
        run.checkpoint()
        ended = await take_response(run, message, output_type)
        if ended is not None:
            return ended
    raise MaxIterationsExceeded(
        f"no final answer after {counted(run.loop.max_iterations, 'model call')}",
        path="ToolLoop",
        hint="raise max_iterations, or check that the tools let the model finish",
    )


async def _ask(run: Run, request: ModelRequest) -> ModelResponse:
    if run.stream is None:
        return await run.loop.model.complete(request)
    sink = IterationSink(run.stream, run.iterations + 1)
    return await ask_model(run.loop.model, request, sink)


def conversation_for(run: Run, definitions: tuple[ToolDefinition, ...]) -> int:
    """For a model whose tools cannot change mid-conversation: the conversation
    this request belongs to; a new one (same history, the new tools from its first
    request on) when the tools changed. The run takes it once the model answered,
    so a request that fails is restarted again by a resumed run."""
    current, saved = run.conversation_tools, run.saved_tools_digest
    if current is None and (saved is None or tools_digest(definitions) == saved):
        return run.conversation  # the first request, or a resume with the same tools
    if current == definitions:
        return run.conversation
    if run.conversation >= MAX_RESTARTS:
        raise RestartLimitExceeded(
            f"the tools changed more than {MAX_RESTARTS} times and the model cannot "
            "take new tools within a conversation",
            path=f"iteration {run.iterations + 1}",
            hint="use a model with dynamic tools, or a design that discloses in fewer steps",
        )
    names = tuple(d.name for d in definitions)
    run.emit(ConversationRestarted(run.iterations + 1, run.conversation + 1, names))
    return run.conversation + 1
