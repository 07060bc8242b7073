"""The run so far: its history, trace and counters, and how it ends.

A :class:`~statetools.engine.Conversation` keeps one :class:`RunRecord` (``conv.record``)
and writes every step into it; a host reads it and ends the run through it when the
run stops outside the conversation (a provider failed, the task was cancelled). The
run's listeners are told of each event it keeps through engine/listeners.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from statetools.engine.answers import (
    MAX_RESTARTS,
    NOT_RUN,
    RUNNING,
    change_events,
    pending_calls,
    tools_digest,
)
from statetools.engine.boundary import clean_message, clean_text
from statetools.engine.catalogue import CatalogueKeeper
from statetools.engine.events import (
    ConversationRestarted,
    Event,
    Listener,
    RunFinished,
    ToolAnswered,
    Trace,
)
from statetools.engine.listeners import Listeners
from statetools.engine.run_result import LoopResult
from statetools.engine.scheduler import Changes, Scheduler
from statetools.engine.state import DisclosureState, LoopCounters
from statetools.errors import RestartLimitExceeded, RunAborted, RunError
from statetools.messages import Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from statetools.models.base import ToolDefinition, Usage

__all__ = ["RunRecord", "initial_messages"]


def initial_messages(prompt: str | Sequence[Message], system_prompt: str | None) -> list[Message]:
    """The history a run starts from: the user's text (or the history given), after the
    system prompt unless the history has a system message of its own.

    >>> [m.role for m in initial_messages("Hi", "Be brief.")]
    ['system', 'user']
    """
    messages: list[Message] = [UserMessage(prompt)] if isinstance(prompt, str) else list(prompt)
    if system_prompt and not any(isinstance(m, SystemMessage) for m in messages):
        messages.insert(0, SystemMessage(system_prompt))
    return [clean_message(message) for message in messages]


class RunRecord:
    """One run's history, trace, counters and ending (never shared between runs).

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
    >>> [m.content for m in record.messages], [e.type for e in record.events]
    (['Hi'], ['run_started'])
    """

    def __init__(
        self,
        messages: list[Message],
        scheduler: Scheduler,
        *,
        state: DisclosureState | None,
        events: Sequence[Event] = (),
        usage: Usage | None = None,
        stop_reason: str | None = None,
        listeners: Sequence[Listener] = (),
        clock: Callable[[], float],
        save: Callable[[LoopResult], None] | None = None,
        catalogue: bool = False,
        wording: Callable[[RunError], str] = str,
    ) -> None:
        self.messages = messages
        self.scheduler = scheduler
        self.listeners = Listeners(listeners)
        """Who is told of each event (see engine/listeners.py)."""
        self.clock = clock
        self.save = save
        """Saves the run so far after every step (a session's store), or None."""
        self.wording = wording
        """The text of an error that ends the run, as its ``RunFinished`` says it."""
        self.events: list[Event] = list(events)
        self.usage = usage if usage is not None else Usage()
        self.stop_reason = stop_reason
        """The stop reason of the latest model response."""
        self.iterations = state.iteration if state is not None else 0
        self.misses = state.loop.unknown_calls_in_a_row if state is not None else 0
        """Calls in a row of names that are no tool."""
        self.output_corrected = state.loop.output_corrected if state is not None else False
        """The model was told once that its final answer did not fit the output type."""
        self.conversation = state.loop.conversation if state is not None else 0
        self.conversation_tools: tuple[ToolDefinition, ...] | None = None
        self.saved_tools_digest = state.loop.conversation_tools if state is not None else None
        """The digest of the current conversation's tools, from a resumed state."""
        self.ending: tuple[str, Any] | None = None
        """How the run ends once the latest response's calls are all answered
        (``return_direct`` or ``final_state``) and its output; saved with each step."""
        self.ended: LoopResult | None = None
        """The result the run ended with, however it ended."""
        self.failure: BaseException | None = None
        """The error the run ended with (it carries the run so far as ``.result``)."""
        self.reported: RunFinished | None = None
        """The ``RunFinished`` event of this run, once it was reported."""
        self.catalogue = CatalogueKeeper(scheduler) if catalogue else None
        saved = state.loop.catalogue if state is not None else None
        if self.catalogue is not None and saved is not None:
            self.catalogue.restore(saved)

    def reply(self, call: ToolCall, text: str, is_error: bool) -> None:
        """Append the one tool message answering ``call`` with ``text`` and report it
            (for an answer that is no tool result: a cut-off or refused response's calls).

        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1").record
        >>> record.reply(ToolCall("c1", "ping"), "not run", True)
        >>> record.messages[-1].content, record.events[-1].type
        ('not run', 'tool_answered')
        """
        text = clean_text(text)
        self.messages.append(ToolMessage(call.id, call.name, text, is_error))
        self.emit(ToolAnswered(self.iterations, call.id, call.name, text, is_error))
        if self.catalogue is not None:
            self.catalogue.after_call(call.id, self.scheduler.shown().names)
        self.checkpoint()

    def emit(self, event: Event) -> None:
        """Keep ``event`` in the trace and tell every listener; a listener that fails
            does not keep the event from the others (the first failure is raised once all
            were told).

        >>> heard = []
        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1", listeners=[heard.append]).record
        >>> [event.type for event in heard]
        ['run_started']
        """
        self.events.append(event)
        self.listeners.tell(event)

    def relay(self, path: tuple[str, ...], event: Event) -> None:
        """Tell every listener of an event of a nested run (``path``: the agentic tools
            from this run inward) as a :class:`NestedEvent`; the trace does not keep it. A
            listener that fails stops the nested run (the failure is raised) and this run
            at its next event.

        >>> heard = []
        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1", listeners=[heard.append]).record
        >>> record.relay(("helper",), RunFinished(1.0, 1, "answer"))
        >>> heard[-1].path, heard[-1].event.type, len(record.events)
        (('helper',), 'run_finished', 1)
        """
        self.listeners.tell_nested(path, event)

    def emit_changes(self, changes: Changes) -> None:
        """Report what a call or a new turn changed (unlocked tools, states entered...).

        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1").record
        >>> record.emit_changes(Changes(unlocked=("analyze",)))
        >>> record.events[-1].type
        'tools_unlocked'
        """
        for event in change_events(self.iterations, changes):
            self.emit(event)

    def checkpoint(self) -> None:
        """Save the run so far (a run without ``save`` saves nothing): a run that has
        reached its end is saved with its output.

        >>> from statetools.engine import Conversation
        >>> Conversation([], "Hi", run_id="r1").record.checkpoint()
        """
        if self.save is not None:
            self.save(self.so_far(self.ending[1] if self.ending else None, RUNNING))

    def reach(self, outcome: str, output: Any) -> None:
        """A call of the latest response ends the run once every call is answered: the
            first ``return_direct`` result wins, over a final state reached before it too.

        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1").record
        >>> record.reach("final_state", "done")
        >>> record.reach("return_direct", 42)
        >>> record.ending
        ('return_direct', 42)
        """
        if self.ending is None or (outcome == "return_direct" and self.ending[0] != outcome):
            self.ending = (outcome, output)

    # how the run ends ---------------------------------------------------------------------

    def state(self) -> DisclosureState:
        """The disclosure state now, with the run's own counters (what a run resumes from).

        >>> from statetools.engine import Conversation
        >>> Conversation([], "Hi", run_id="r1").record.state().iteration
        0
        """
        return self.so_far(None, "answer").state

    def so_far(self, output: Any = None, outcome: str = RUNNING) -> LoopResult:
        """The run so far as a :class:`~statetools.LoopResult`.

        >>> from statetools.engine import Conversation
        >>> Conversation([], "Hi", run_id="r1").record.so_far().outcome
        'running'
        """
        self.scheduler.iteration = self.iterations
        tools = self.conversation_tools
        counters = LoopCounters(
            unknown_calls_in_a_row=self.misses,
            output_corrected=self.output_corrected,
            conversation=self.conversation,
            conversation_tools=tools_digest(tools)
            if tools is not None
            else self.saved_tools_digest,
            catalogue=self.catalogue.snapshot() if self.catalogue is not None else None,
            ending=self.ending[0] if self.ending is not None and outcome == RUNNING else None,
        )
        state = attrs.evolve(self.scheduler.snapshot(), loop=counters)
        return LoopResult(
            output=output,
            messages=tuple(self.messages),
            iterations=self.iterations,
            usage=self.usage,
            trace=Trace(tuple(self.events)),
            state=state,
            outcome=outcome,
            stop_reason=self.stop_reason,
        )

    def finish(self, output: Any, outcome: str) -> LoopResult:
        """End the run with ``output`` (``RunFinished`` with ``outcome``); saved.

        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
        >>> record.finish("done", "answer").output, record.ended is not None
        ('done', True)
        """
        event = RunFinished(self.clock(), self.iterations, outcome)
        self.reported = event  # reported once, even if a listener fails on it
        self.emit(event)
        result = self.ended = self.so_far(output, outcome)
        if self.save is not None:
            self.save(result)
        return result

    @contextlib.contextmanager
    def failing(self) -> Iterator[None]:
        """Errors raised inside end the run and carry the run so far as ``.result``;
        any other exception (a listener, a strategy, a condition failed) becomes
        :class:`RunAborted`, with it as the ``__cause__``.

        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
        >>> try:
        ...     with record.failing():
        ...         raise KeyError("x")
        ... except RunAborted as error:
        ...     print(error.result.outcome)
        RunAborted
        """
        try:
            yield
        except RunError as error:
            if error is self.failure:
                raise
            raise self.fail(error) from None
        except Exception as exc:
            aborted = RunAborted(
                f"the run stopped: {type(exc).__name__}: {exc}",
                path=f"iteration {self.iterations}",
                hint="the exception is the __cause__; its traceback shows the failing code",
            )
            raise self.fail(aborted) from exc

    def fail(self, error: RunError) -> RunError:
        """End the run with ``error``: answer the calls the run did not get to, tell the
            listeners (``RunFinished`` with the error's name as outcome) and attach the run
            so far to ``error`` as ``.result``.

        >>> from statetools.errors import MaxIterationsExceeded
        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
        >>> record.fail(MaxIterationsExceeded("no end")).result.outcome
        'MaxIterationsExceeded'
        """
        outcome = type(error).__name__
        self._end(outcome, self.wording(error))
        error.result = self.ended = self.so_far(None, outcome)
        self.failure = error
        return error

    def fail_elsewhere(self, outcome: str, text: str) -> None:
        """End the run with an error raised outside this process, known by its name
        (``outcome``) and ``text`` only (a model that failed on a Temporal worker): as
        :meth:`fail` does, without the error object.

        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
        >>> record.fail_elsewhere("ProviderError", "the model failed")
        >>> record.ended.outcome, record.events[-1].error
        ('ProviderError', 'the model failed')
        """
        self._end(outcome, text)
        self.ended = self.so_far(None, outcome)

    def stop(self, exc: BaseException, outcome: str) -> None:
        """The run is being cancelled or interrupted by ``exc``: answer the open calls,
            tell the listeners, and attach the run so far to ``exc`` as ``exc.result``.

        >>> from statetools.engine import Conversation
        >>> record = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).record
        >>> stopped = KeyboardInterrupt()
        >>> record.stop(stopped, "interrupted"); stopped.result.outcome
        'interrupted'
        """
        self._end(outcome, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        exc.result = self.ended = self.so_far(None, outcome)  # type: ignore[attr-defined]
        self.failure = exc

    def _end(self, outcome: str, error: str) -> None:
        """Answer the open calls and report how the run ended, once: a run whose
        ``RunFinished`` was already reported (a listener or the store failed after it)
        gets its trace's last event replaced, and the listeners are not told again."""
        for call in pending_calls(self.messages):
            self.messages.append(ToolMessage(call.id, call.name, NOT_RUN, True))
            self._record(ToolAnswered(self.iterations, call.id, call.name, NOT_RUN, True))
        event = RunFinished(self.clock(), self.iterations, outcome, error)
        reported = self.reported
        self.reported = event
        if reported is None:
            self._record(event)
            return
        if reported in self.events:
            self.events.remove(reported)
        self.events.append(event)

    def _record(self, event: Event) -> None:
        """Keep ``event`` in the trace and tell the listeners, but let no listener's
        failure hide the exception that is ending the run (it is logged)."""
        self.events.append(event)
        self.listeners.tell_stopping(event)

    def conversation_for(self, definitions: tuple[ToolDefinition, ...]) -> int:
        """For a model whose tools cannot change mid-conversation: the conversation this
        request belongs to; a new one (same history, the new tools from its first
        request on) when the tools changed. The run takes it once the model answered,
        so a request that fails is restarted again by a resumed run.

        >>> from statetools.engine import Conversation
        >>> Conversation([], "Hi", run_id="r1").record.conversation_for(())
        0
        """
        current, saved = self.conversation_tools, self.saved_tools_digest
        if current is None and (saved is None or tools_digest(definitions) == saved):
            return self.conversation  # the first request, or a resume with the same tools
        if current == definitions:
            return self.conversation
        if self.conversation >= MAX_RESTARTS:
            raise RestartLimitExceeded(
                f"the tools changed more than {MAX_RESTARTS} times and the model cannot "
                "take new tools within a conversation",
                path=f"iteration {self.iterations + 1}",
                hint="use a model with dynamic tools, or a design that discloses in fewer steps",
            )
        names = tuple(d.name for d in definitions)
        self.emit(ConversationRestarted(self.iterations + 1, self.conversation + 1, names))
        return self.conversation + 1
