"""The bookkeeping of one run: its messages, events, scheduler and counters."""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from statetools.blackboard import Blackboard
from statetools.disclosure.bindings import Resolver
from statetools.disclosure.chaining import Chaining
from statetools.disclosure.scheduler import Changes, Injected, Scheduler, Visibility
from statetools.disclosure.state import DisclosureState
from statetools.errors import RunError
from statetools.loop.catalogue import CatalogueKeeper
from statetools.loop.events import (
    Event,
    InjectionLimitReached,
    InjectionSkipped,
    Listener,
    RunFinished,
    StateEntered,
    ToolAnswered,
    ToolsHidden,
    ToolsInjected,
    ToolsRemoved,
    ToolsUnlocked,
    Trace,
)
from statetools.loop.result import LoopResult
from statetools.loop.strategies import ToolInjectionStrategy, restored_tool
from statetools.loop.streaming import take_run_sink
from statetools.messages import AssistantMessage, Message, ToolMessage
from statetools.models.base import Model, ToolDefinition, Usage
from statetools.tools.context import ToolCallContext
from statetools.tools.tool import BaseTool


class LoopSettings(Protocol):
    """What a run reads from its :class:`~statetools.ToolLoop` (and the one thing it
    writes back, ``last_result``); the loop module builds runs, so this module does not
    import it."""

    model: Model
    max_iterations: int
    listeners: tuple[Listener, ...]
    visibility: Visibility
    end_on_final_state: bool
    strategy: ToolInjectionStrategy | None
    clock: Callable[[], float]
    chaining: tuple[Chaining, ...]
    max_discovered_tools: int
    tool_timeout: float | None
    instances: Resolver | None
    last_result: LoopResult | None


RUNNING = "running"
"""The outcome saved with a session whose run has not ended yet."""

NOT_RUN = "No result: the run stopped before this call was answered."
"""The answer given to tool calls left over when a run ends with an error."""

logger = logging.getLogger("statetools.loop")


def unknown_tool_message(name: str, available: Sequence[str]) -> str:
    """What the model is told when it calls a tool that does not exist."""
    text = f"Tool '{name}' does not exist."
    close = difflib.get_close_matches(name, available, n=3, cutoff=0.6)
    if close:
        quoted = [f"'{c}'" for c in close]
        options = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
        text += f" Did you mean {options}?"
    listing = ", ".join(available) if available else "none"
    return f"{text} Available tools: {listing}."


def injection_events(iteration: int, injected: Injected) -> list[Event]:
    """The events for tools a result added or removed (discovery, chaining, facades)."""
    events: list[Event] = []
    if injected.removed:
        events.append(ToolsRemoved(iteration, injected.removed, injected.source))
    if injected.added:
        events.append(ToolsInjected(iteration, injected.added, injected.source))
    for name in injected.skipped:
        events.append(InjectionSkipped(iteration, name, "a tool with this name is already visible"))
    for name, reason in injected.not_added:
        events.append(InjectionSkipped(iteration, name, reason))
    if injected.over_limit:
        events.append(
            InjectionLimitReached(iteration, injected.limit, injected.over_limit, injected.source)
        )
    return events


def change_events(iteration: int, changes: Changes) -> list[Event]:
    """The events for what a call (or a new turn) changed: unlocked and hidden tools,
    states entered, tools added or removed."""
    events: list[Event] = []
    if changes.unlocked:
        events.append(ToolsUnlocked(iteration, changes.unlocked))
    if changes.hidden:
        events.append(ToolsHidden(iteration, changes.hidden))
    for change in changes.entered:
        events.append(
            StateEntered(iteration, change.machine, change.state, change.previous, change.final)
        )
    for injected in changes.injected:
        events.extend(injection_events(iteration, injected))
    return events


def tools_digest(definitions: Sequence[ToolDefinition]) -> str:
    """A short digest of tool definitions (names, descriptions, schemas), to tell on
    resume whether a conversation's tools are still the same."""
    data = [[d.name, d.description, d.input_schema] for d in definitions]
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Run:
    """The mutable bookkeeping of one run (never shared between runs)."""

    def __init__(
        self,
        loop: LoopSettings,
        messages: list[Message],
        tools: Sequence[Any],
        state: DisclosureState | None,
        context: ToolCallContext,
    ) -> None:
        self.loop = loop
        self.messages = messages
        self.blackboard = Blackboard()
        self.context = context.with_blackboard(self.blackboard)
        self.events: list[Event] = []
        self.usage = Usage()
        self.iterations = state.iteration if state is not None else 0
        self.misses = state.unknown_calls_in_a_row if state is not None else 0
        """Calls in a row of names that are no tool."""
        self.output_corrected = state.output_corrected if state is not None else False
        self.stop_reason: str | None = None
        """The stop reason of the latest model response."""
        self.ended: LoopResult | None = None
        """The result this run ended with."""
        self.finished: RunFinished | None = None
        """The ``RunFinished`` event of this run, once it was reported."""
        self.ending: tuple[str, Any] | None = None
        """How the run ends once the latest response's calls are all answered
        (``return_direct`` or ``final_state``) and its output; saved with each step."""
        self.conversation = state.conversation if state is not None else 0
        self.conversation_tools: tuple[ToolDefinition, ...] | None = None
        self.saved_tools_digest = state.conversation_tools if state is not None else None
        """The digest of the current conversation's tools, from a resumed state."""
        self.prompt_index: int | None = None
        """Where the system message of the run's sections is (see loop/prompt.py)."""
        saved_catalogue = state.catalogue if state is not None else None
        if state is not None:  # the loop's own counters are kept here, not in the scheduler
            state = attrs.evolve(
                state,
                unknown_calls_in_a_row=0,
                output_corrected=False,
                conversation=0,
                conversation_tools=None,
                catalogue=None,
                ending=None,
            )
        self.scheduler = Scheduler.for_items(
            (*tools, *loop.chaining) if loop.chaining else tools,
            state,
            visibility=loop.visibility,
            blackboard=self.blackboard,
            context=self.context,
            discovery_limit=loop.max_discovered_tools,
            instances=loop.instances,
            restore=self._restored_tool if loop.strategy is not None else None,
        )
        self.save: Callable[[LoopResult], None] | None = None
        """Saves the run so far to its session's store (set by the loop for sessions)."""
        self.stream = take_run_sink()
        """Where a streamed run (``loop.stream``) sends its events, or None."""
        self.catalogue = (
            CatalogueKeeper(self.scheduler) if loop.model.capabilities.declares_all_tools else None
        )
        if self.catalogue is not None and saved_catalogue is not None:
            self.catalogue.restore(saved_catalogue)

    def _restored_tool(self, name: str) -> BaseTool | None:
        strategy = self.loop.strategy
        return restored_tool([strategy], name) if strategy is not None else None

    def emit(self, event: Event) -> None:
        """Keep ``event`` in the trace and tell the stream and every listener; a listener
        that fails does not keep the event from the others (the first failure is raised
        once all were told, and ends the run with ``RunAborted``)."""
        self.events.append(event)
        if self.stream is not None:
            self.stream(event)
        failure: Exception | None = None
        for listener in self.loop.listeners:
            try:
                listener(event)
            except Exception as exc:
                if failure is None:
                    failure = exc
        if failure is not None:
            raise failure

    def emit_changes(self, changes: Changes) -> None:
        for event in change_events(self.iterations, changes):
            self.emit(event)

    def checkpoint(self) -> None:
        """Save the run so far to its session's store (a run without one saves nothing):
        a run that has reached its end (see :meth:`reach`) is saved with its output."""
        if self.save is not None:
            self.save(self.so_far(self.ending[1] if self.ending else None, RUNNING))

    def reach(self, outcome: str, output: Any) -> None:
        """A call of the latest response ends the run once every call is answered: the
        first ``return_direct`` result wins, over a final state reached before it too."""
        if self.ending is None or (outcome == "return_direct" and self.ending[0] != outcome):
            self.ending = (outcome, output)

    def result(self, output: Any, outcome: str) -> LoopResult:
        """The run so far as a LoopResult (also kept as the loop's ``last_result``)."""
        result = self.so_far(output, outcome)
        self.ended = self.loop.last_result = result
        return result

    def so_far(self, output: Any, outcome: str) -> LoopResult:
        """The run so far as a LoopResult."""
        self.scheduler.iteration = self.iterations
        state = attrs.evolve(
            self.scheduler.snapshot(),
            unknown_calls_in_a_row=self.misses,
            output_corrected=self.output_corrected,
            conversation=self.conversation,
            conversation_tools=tools_digest(self.conversation_tools)
            if self.conversation_tools is not None
            else self.saved_tools_digest,
            catalogue=self.catalogue.snapshot() if self.catalogue is not None else None,
            ending=self.ending[0] if self.ending is not None and outcome == RUNNING else None,
        )
        result = LoopResult(
            output=output,
            messages=tuple(self.messages),
            iterations=self.iterations,
            usage=self.usage,
            trace=Trace(tuple(self.events)),
            state=state,
            outcome=outcome,
            stop_reason=self.stop_reason,
        )
        return result

    def finish(self, output: Any, outcome: str) -> LoopResult:
        event = RunFinished(self.loop.clock(), self.iterations, outcome)
        self.finished = event  # reported once, even if a listener fails on it
        self.emit(event)
        result = self.result(output, outcome)
        if self.save is not None:
            self.save(result)
        return result

    def _answer_open_calls(self) -> None:
        """Answer the calls of the latest response that have no answer yet."""
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                answered = {m.tool_call_id for m in self.messages if isinstance(m, ToolMessage)}
                for call in message.tool_calls:
                    if call.id not in answered:
                        self.messages.append(ToolMessage(call.id, call.name, NOT_RUN, True))
                        event = ToolAnswered(self.iterations, call.id, call.name, NOT_RUN, True)
                        self._record(event)
                break

    def _record(self, event: Event) -> None:
        """Keep ``event`` in the trace and tell the listeners, but let no listener's
        failure hide the exception that is ending the run (it is logged)."""
        self.events.append(event)
        for listener in (self.stream, *self.loop.listeners):
            if listener is None:
                continue
            try:
                listener(event)
            except Exception:
                logger.exception("a listener failed while the run was being stopped")

    def _end(self, outcome: str, error: str) -> None:
        """Answer the open calls and report how the run ended, once: a run whose
        ``RunFinished`` was already reported (a listener or the store failed after it)
        gets its trace's last event replaced, and the listeners are not told again."""
        self._answer_open_calls()
        event = RunFinished(self.loop.clock(), self.iterations, outcome, error)
        reported = self.finished
        self.finished = event
        if reported is None:
            self._record(event)
            return
        if reported in self.events:
            self.events.remove(reported)
        self.events.append(event)

    def fail(self, error: RunError) -> RunError:
        """Attach the run so far to ``error``; answer calls the run did not get to, and
        tell the listeners (``RunFinished`` with the error's name as outcome)."""
        outcome = type(error).__name__
        self._end(outcome, str(error))
        error.result = self.result(None, outcome)
        return error

    def stop(self, exc: BaseException, outcome: str) -> None:
        """The run is being cancelled or interrupted by ``exc``: answer the open calls,
        tell the listeners, and attach the run so far to ``exc`` as ``exc.result``."""
        self._end(outcome, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        exc.result = self.result(None, outcome)  # type: ignore[attr-defined]
