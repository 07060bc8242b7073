"""Conversation: one run of the tool loop with no I/O, driven by a host (the asyncio
loop, the Temporal workflow, code mode; the bridges and the MCP gateway through the
same functions, one call at a time). See docs/engine.md.

A conversation holds its run's parts, set up in engine/run_setup.py (``conv.parts``);
each turn's request and what the model's answer makes of it are in
engine/turn_request.py; a model that searches tools itself is served by
engine/model_search.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from statetools.definitions.chaining import Chaining
from statetools.engine.answers import latest_response
from statetools.engine.bindings import Resolver
from statetools.engine.boundary import clean_message
from statetools.engine.calls import Call, Calls
from statetools.engine.events import Event, Listener
from statetools.engine.facades import Replay
from statetools.engine.record import RunRecord
from statetools.engine.run_result import LoopResult
from statetools.engine.run_setup import RunParts, set_up
from statetools.engine.scheduler import DISCOVERY_LIMIT, Scheduler, Visibility
from statetools.engine.state import DisclosureState
from statetools.engine.steps import close_call, responded, unreadable_answer
from statetools.engine.strategies import ToolInjectionStrategy
from statetools.engine.turn_request import (
    Asked,
    check_order,
    check_request,
    check_unread,
    check_waiting,
    model_request,
    request_answered,
    respond,
)
from statetools.errors import OutputValidationError, RunError, StatetoolsError
from statetools.messages import AssistantMessage, Message, UserMessage
from statetools.models.base import ModelCapabilities, ModelRequest, ModelResponse
from statetools.tools.calling import OutcomeKind, ToolResult
from statetools.tools.context import ToolCallContext

__all__ = ["Call", "Calls", "Conversation"]


class Conversation:
    """One run, sans I/O: what to ask the model, which calls to run, what to answer.

    ``Conversation(items, prompt)`` starts a run: ``items`` as for ``tools=[...]``,
    ``prompt`` the user's text or a whole history (``state``: an earlier
    ``result.state`` to go on from); ``so_far=`` continues a saved run (a
    :class:`~statetools.LoopResult`, see :meth:`resume`). The other options are
    :class:`~statetools.ToolLoop`'s; ``capabilities`` are the model's; ``clock`` and
    ``run_id`` are injectable, and ``listeners`` hear every event as it happens. A new
    run reports ``RunStarted`` at once (with ``start=False``, when the host calls
    :meth:`start`). A host that reads the final answer as ``output_type`` itself (on
    another machine: Temporal's worker) passes ``reads_output=False`` (see
    :meth:`output_read`); one that carries a run over passes ``asked``, the model calls
    the current message already made, ``events``, the trace so far, and ``wording``,
    how an error that ends the run is worded in its trace (``str(error)`` by default).

    >>> from statetools.models import ScriptedModel
    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> model = ScriptedModel([("ping", {}), "The host is up."])
    >>> conv = Conversation([ping], "Is the host up?", run_id="r1", clock=lambda: 0.0)
    >>> while not conv.finished:
    ...     for call in conv.take(model.respond(conv.next_request())):
    ...         _ = conv.answer(call, call.tool.call(call.arguments, conv.context))
    >>> conv.result.output, [m.role for m in conv.result.messages]
    ('The host is up.', ['user', 'assistant', 'tool', 'assistant'])
    """

    def __init__(
        self,
        items: Sequence[Any],
        prompt: str | Sequence[Message] | None = None,
        *,
        state: DisclosureState | None = None,
        so_far: LoopResult | None = None,
        output_type: Any = None,
        system_prompt: str | None = None,
        max_iterations: int = 20,
        visibility: Visibility = "hidden",
        strategies: Sequence[ToolInjectionStrategy] = (),
        end_on_final_state: bool = False,
        chaining: Sequence[Chaining] = (),
        max_discovered_tools: int = DISCOVERY_LIMIT,
        instances: Resolver | None = None,
        capabilities: ModelCapabilities | None = None,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        listeners: Sequence[Listener] = (),
        clock: Callable[[], float] = time.perf_counter,
        check_design: bool = True,
        save: Callable[[LoopResult], None] | None = None,
        replay: Replay | None = None,
        start: bool = True,
        reads_output: bool = True,
        asked: int = 0,
        wording: Callable[[RunError], str] = str,
        events: Sequence[Event] = (),
    ) -> None:
        if max_iterations < 1:
            raise StatetoolsError("max_iterations must be at least 1", path="Conversation")
        self.output_type = output_type
        self.reads_output = reads_output
        self.max_iterations = max_iterations
        self.end_on_final_state = end_on_final_state
        self.parts: RunParts = set_up(
            items,
            prompt,
            state=state,
            so_far=so_far,
            system_prompt=system_prompt,
            visibility=visibility,
            strategies=strategies,
            chaining=chaining,
            max_discovered_tools=max_discovered_tools,
            instances=instances,
            capabilities=capabilities,
            context=context,
            run_id=run_id,
            listeners=listeners,
            clock=clock,
            check_design=check_design,
            save=save,
            replay=replay,
            wording=wording,
            events=events,
        )
        """The run's parts (scheduler, record, context, ...; see engine/run_setup.py)."""
        self._first = self.record.iterations - asked
        self._unread: str | None = None
        self._asked: Asked | None = None
        self._calls: Calls | None = None
        if start and so_far is None:
            self.start()

    @property
    def record(self) -> RunRecord:
        """The run so far (history, trace, counters, ending); a host that stops the run
        itself ends it there (``record.fail(error)``, ``record.stop(exc, outcome)``).

        >>> Conversation([], "Hi", run_id="r1").record.iterations
        0
        """
        return self.parts.record

    @property
    def scheduler(self) -> Scheduler:
        """What the model may see and call now.

        >>> Conversation([], "Hi", run_id="r1").scheduler.shown().names
        ()
        """
        return self.parts.scheduler

    @property
    def context(self) -> ToolCallContext:
        """What the host passes to the tools it runs (``tool.acall(arguments, context)``).

        >>> Conversation([], "Hi", context={"user": "ada"}).context["user"]
        'ada'
        """
        return self.parts.context

    def start(self) -> None:
        """Report that a run starts (``RunStarted``), with the tools visible now: a new
        conversation does it itself; a host continuing a saved one calls it.

        >>> conv = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0)
        >>> conv.events[0]
        RunStarted(run_id='r1', at=0.0, tools=(), type='run_started')
        """
        self.parts.start()

    @property
    def messages(self) -> list[Message]:
        """The history so far (the record's own list).

        >>> [m.content for m in Conversation([], "Hi", run_id="r1").messages]
        ['Hi']
        """
        return self.record.messages

    @property
    def events(self) -> list[Event]:
        """The trace so far (the record's own list).

        >>> [e.type for e in Conversation([], "Hi", run_id="r1").events]
        ['run_started']
        """
        return self.record.events

    # what the host calls ----------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """Whether the run has ended (with its answer, or with an error).

        >>> Conversation([], "Hi", run_id="r1").finished
        False
        """
        return self.record.ended is not None

    @property
    def result(self) -> LoopResult:
        """The run's :class:`~statetools.LoopResult`, as ``ToolLoop.run`` returns it.

        >>> from statetools.models.base import ModelResponse
        >>> conv = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0)
        >>> _ = conv.next_request()
        >>> _ = conv.take(ModelResponse(AssistantMessage("Hello!")))
        >>> conv.result.output, conv.result.outcome
        ('Hello!', 'answer')
        """
        if self.record.ended is None:
            raise StatetoolsError(
                "the conversation has not finished",
                path="Conversation.result",
                hint="go on until conv.finished: next_request(), take(...), answer(...)",
            )
        return self.record.ended

    def next_request(self) -> ModelRequest:
        """What to send the model now: the history and the tools visible this turn.

        Raises :class:`~statetools.MaxIterationsExceeded` (with ``.result``) once the
        model was asked ``max_iterations`` times without an end.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> request = Conversation([ping], "Is the host up?", run_id="r1").next_request()
        >>> [m.content for m in request.messages], request.tool_names
        (['Is the host up?'], ['ping'])
        """
        check_order("next_request", self.record, self._unread, self._calls)
        with self.record.failing():
            request, self._asked = model_request(self.parts, self.asked, self.max_iterations)
            return request

    def take(self, response: ModelResponse) -> Calls:
        """Take the model's answer to :meth:`next_request`: the calls to run, in order.

        A final answer ends the run (read as ``output_type``; one that does not fit is
        sent back once with what is wrong); a refusal ends it too. Calls of unknown or
        locked tools are answered with guidance and never handed out.

        >>> from statetools.models.base import ModelResponse
        >>> conv = Conversation([], "Hi", run_id="r1")
        >>> _ = conv.next_request()
        >>> list(conv.take(ModelResponse(AssistantMessage("Hello!")))), conv.finished
        ([], True)
        """
        check_order("take", self.record, self._unread, self._calls)
        asked, self._asked = check_request(self._asked), None
        with self.record.failing():
            request_answered(self.record, asked)
            message = responded(self.record, response)
            return self._respond(message, resumed=False)

    def answer(
        self,
        call: Call,
        result: ToolResult,
        *,
        duration: float | None = None,
        kind: OutcomeKind | None = None,
    ) -> list[Event]:
        """Answer ``call`` (handed out by :meth:`take`) with the tool's ``result``; returns
        the events it caused. The scheduler sees the result (tools open or close, the
        model is told ``[now available: ...]``); ``duration`` defaults to the clock's
        time since the call was handed out, ``kind`` (as the trace names the outcome)
        to the result's own.

        >>> from statetools.models.base import ModelResponse
        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> conv = Conversation([ping], "Is the host up?", run_id="r1", clock=lambda: 0.0)
        >>> _ = conv.next_request()
        >>> message = AssistantMessage("", (ToolCall("c1", "ping"),))
        >>> call = next(conv.take(ModelResponse(message, stop_reason="tool_use")))
        >>> [event.type for event in conv.answer(call, ToolResult.text("pong"))]
        ['tool_called', 'tool_answered']
        """
        calls = check_waiting(call, self._calls)
        start = len(self.record.events)
        with self.record.failing():
            close_call(
                self.record,
                call,
                result,
                duration=duration,
                kind=kind,
                end_on_final_state=self.end_on_final_state,
                after=self.parts.after_call,
            )
            calls.advance()
        return self.record.events[start:]

    # sessions and other hosts ---------------------------------------------------------------

    @property
    def asked(self) -> int:
        """The model calls made for the current message (what ``max_iterations`` counts).

        >>> Conversation([], "Hi", run_id="r1").asked
        0
        """
        return self.record.iterations - self._first

    @property
    def unread_answer(self) -> str | None:
        """The final answer the host is to read as ``output_type`` (``reads_output=False``),
        until it says what it read (:meth:`output_read`, :meth:`output_unreadable`).

        >>> from statetools.models.base import ModelResponse
        >>> conv = Conversation([], "Hi", output_type=int, reads_output=False, run_id="r1")
        >>> _ = conv.next_request()
        >>> _ = conv.take(ModelResponse(AssistantMessage("42")))
        >>> conv.unread_answer, conv.finished
        ('42', False)
        """
        return self._unread

    def output_read(self, output: Any) -> None:
        """The host read :attr:`unread_answer` as ``output``: the run ends with it.

        >>> from statetools.models.base import ModelResponse
        >>> conv = Conversation([], "Hi", output_type=int, reads_output=False, run_id="r1")
        >>> _ = conv.next_request()
        >>> _ = conv.take(ModelResponse(AssistantMessage("42")))
        >>> conv.output_read(42)
        >>> conv.result.output, conv.result.outcome
        (42, 'answer')
        """
        self._read()
        with self.record.failing():
            self.record.finish(output, "answer")

    def output_unreadable(self, correction: str, error: OutputValidationError) -> None:
        """The host could not read :attr:`unread_answer`: the model is told
        ``correction`` once and asked again; a second such answer ends the run with
        ``error`` (raised, with ``.result``), as a run that reads its own output does.

        >>> from statetools.models.base import ModelResponse
        >>> conv = Conversation([], "Hi", output_type=int, reads_output=False, run_id="r1")
        >>> _ = conv.next_request()
        >>> _ = conv.take(ModelResponse(AssistantMessage("many")))
        >>> conv.output_unreadable("Answer with a number.", OutputValidationError("not an int"))
        >>> conv.messages[-1].content, conv.finished
        ('Answer with a number.', False)
        """
        self._read()
        with self.record.failing():
            unreadable_answer(self.record, correction, error, resumed=False)

    def resume(self) -> Calls:
        """Take again the latest response of a saved run that stopped while taking it:
        calls with no saved answer are handed out again (saved ones never run twice),
        and an ending already reached still ends the run.

        >>> conv = Conversation([], so_far=saved.result)  # doctest: +SKIP
        >>> calls = conv.resume()  # doctest: +SKIP
        """
        check_order("resume", self.record, self._unread, self._calls)
        with self.record.failing():
            self.record.ending = self.parts.saved_ending
            return self._respond(latest_response(self.record.messages), resumed=True)

    def restart(self) -> None:
        """After a run ended, start the next one in the same conversation (a new user
        message follows): ``RunStarted`` again.

        >>> conv.restart()  # doctest: +SKIP
        """
        record = self.record
        record.ended, record.reported, record.ending, record.failure = None, None, None, None
        self.start()

    def add_user_message(self, text: str) -> None:
        """Add the user's next message; the next request counts anew to ``max_iterations``.

        >>> conv = Conversation([], "Hi", run_id="r1")
        >>> conv.add_user_message("And now?")
        >>> [m.content for m in conv.messages]
        ['Hi', 'And now?']
        """
        self.record.messages.append(clean_message(UserMessage(text)))
        self._first = self.record.iterations
        self.record.checkpoint()

    # inside -----------------------------------------------------------------------------

    def _read(self) -> None:
        check_unread(self._unread)
        self._unread = None

    def _respond(self, message: AssistantMessage | None, resumed: bool) -> Calls:
        """Act on ``message``, the latest response (see engine/turn_request.py's
        ``respond``): the calls to run."""
        self._calls, self._unread = respond(  # (no answer was unread: see check_order)
            self.parts, message, resumed, self.output_type, self.reads_output
        )
        return self._calls
