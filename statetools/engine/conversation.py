"""Conversation: one run of the tool loop with no I/O, driven by a host.

The host asks the model what :meth:`Conversation.next_request` says, hands the answer
to :meth:`Conversation.take`, runs each call it gets back and hands the result to
:meth:`Conversation.answer`, until :attr:`Conversation.finished`. Everything else (the
history, the trace, the disclosure state, calls that may not run, the announcement of
what a call opened, how the run ends) happens here, the same for every host: the
asyncio loop, the Temporal workflow, and (through the same functions, one call at a
time) the bridges and the MCP gateway. See docs/engine.md.

A run's parts are set up in engine/run_setup.py, each request is built in
engine/turn_request.py, and a model that searches tools itself is served by
engine/model_search.py.
"""

from __future__ import annotations

from typing import Any

from statetools.engine.answers import latest_response, pending_calls
from statetools.engine.boundary import clean_message
from statetools.engine.calls import Call, Calls
from statetools.engine.events import Event
from statetools.engine.model_search import refusal_wording
from statetools.engine.run_result import LoopResult
from statetools.engine.run_setup import RunSetup
from statetools.engine.steps import (
    answer_unrun,
    apply_strategy,
    close_call,
    end_of_response,
    final_answer,
    open_call,
    responded,
    unreadable_answer,
)
from statetools.engine.turn_request import model_request, request_answered
from statetools.errors import (
    MaxIterationsExceeded,
    OutputValidationError,
    StatetoolsError,
)
from statetools.messages import AssistantMessage, Message, ToolCall, UserMessage
from statetools.models.base import ModelRequest, ModelResponse
from statetools.tools.calling import OutcomeKind, ToolResult
from statetools.wording import counted

__all__ = ["Call", "Calls", "Conversation"]


class Conversation(RunSetup):
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
        self._ready("next_request")
        with self.record.failing():
            if self.record.iterations - self._first >= self.max_iterations:
                raise MaxIterationsExceeded(
                    f"no final answer after {counted(self.max_iterations, 'model call')}",
                    path="ToolLoop",
                    hint="raise max_iterations, or check that the tools let the model finish",
                )
            request, self._asked = model_request(
                self.record, self.scheduler, self.capabilities, self.prompt_index, self.search_room
            )
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
        self._ready("take")
        if self._asked is None:
            raise StatetoolsError(
                "take() answers a request",
                path="Conversation.take",
                hint="call conv.next_request() and send it to the model first",
            )
        asked, self._asked = self._asked, None
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
        calls = self._calls
        if calls is None or calls.current() is not call:
            raise StatetoolsError(
                f"call {call.id!r} is not waiting for an answer",
                path="Conversation.answer",
                hint="answer the calls take() hands out, each once, in order",
            )
        start = len(self.record.events)
        with self.record.failing():
            close_call(
                self.record,
                call,
                result,
                duration=duration,
                kind=kind,
                end_on_final_state=self.end_on_final_state,
                after=self._apply_strategies if self.strategy is not None else None,
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
        self._ready("resume")
        with self.record.failing():
            self.record.ending = self._saved_ending
            latest = latest_response(self.record.messages)
            if latest is None:
                return self._respond(None, resumed=True)
            return self._respond(latest, resumed=True)

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
        if self._unread is None:
            raise StatetoolsError(
                "no final answer is waiting to be read",
                path="Conversation.output_read",
                hint="read conv.unread_answer after take() when reads_output=False",
            )
        self._unread = None

    def _ready(self, step: str) -> None:
        if self._unread is not None:
            raise StatetoolsError(
                "the final answer has not been read",
                path=f"Conversation.{step}",
                hint="read conv.unread_answer: conv.output_read(value) or output_unreadable(...)",
            )
        if self.record.ended is not None:
            raise StatetoolsError(
                "the conversation has finished",
                path=f"Conversation.{step}",
                hint="read conv.result; add_user_message() and restart() go on",
            )
        if self._calls is not None and self._calls.current() is not None:
            current = self._calls.current()
            assert current is not None
            raise StatetoolsError(
                f"call {current.id!r} ({current.name}) has no answer yet",
                path=f"Conversation.{step}",
                hint="answer every call first: conv.answer(call, result)",
            )

    def _respond(self, message: AssistantMessage | None, resumed: bool) -> Calls:
        """Act on ``message``, the latest response (already in the history): the calls
        to run. ``resumed``: a continued session takes again the response its last run
        stopped in; where that run would have ended with an error (the answer still
        does not fit ``output_type``, too many unknown tools), it asks the model again."""
        record = self.record
        open_calls = pending_calls(record.messages)
        calls = self._calls = Calls(
            open_calls,
            lambda call: open_call(
                record,
                call,
                self._apply_strategies if self.strategy is not None else None,
                refusal_wording(self.scheduler, self.capabilities, self.search_room),
            ),
            lambda: end_of_response(record, resumed),
        )
        if message is None:
            return calls
        if record.stop_reason == "refusal":
            answer_unrun(record, open_calls, "refusal")
            plain = self.output_type is None or self.output_type is str
            record.finish(message.content if plain else None, "refusal")
        elif record.stop_reason == "max_tokens" and message.tool_calls:
            answer_unrun(record, open_calls, "max_tokens")
        elif not message.tool_calls and not self.reads_output and self.output_type is not None:
            self._unread = message.content  # the host reads it (see output_read)
        elif not message.tool_calls:
            final_answer(record, message.content, self.output_type, resumed)
        else:
            calls.advance()
        return calls

    def _apply_strategies(self, call: ToolCall, result: ToolResult) -> None:
        if self.strategy is not None:
            apply_strategy(self.record, self.strategy, self.blackboard, call, result)
