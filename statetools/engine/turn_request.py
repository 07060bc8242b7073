"""A turn of a run: what it sends the model (the history, the tools visible now, and for
a model whose tools cannot change mid-conversation, the conversation they belong to) and
what the model's answer makes of it.

:class:`~statetools.engine.Conversation` builds each :class:`ModelRequest` here
(:func:`model_request`), records the conversation the request began once the model
answered it (:func:`request_answered`), and acts on the answer (:func:`respond`); a
step a host takes out of the turn's order is refused here (:func:`check_order`,
:func:`check_request`, :func:`check_waiting`, :func:`check_unread`).
"""

from __future__ import annotations

from typing import Any

from statetools.engine.answers import pending_calls
from statetools.engine.calls import Call, Calls
from statetools.engine.prompt_sections import refresh_prompt
from statetools.engine.record import RunRecord
from statetools.engine.run_setup import RunParts
from statetools.engine.steps import (
    answer_unrun,
    begin_turn,
    end_of_response,
    final_answer,
    open_call,
)
from statetools.errors import MaxIterationsExceeded, StatetoolsError
from statetools.messages import AssistantMessage
from statetools.models.base import ModelRequest, ToolDefinition
from statetools.wording import counted

__all__ = [
    "Asked",
    "check_order",
    "check_request",
    "check_unread",
    "check_waiting",
    "model_request",
    "request_answered",
    "respond",
]

Asked = tuple[bool, int, tuple[ToolDefinition, ...]]
"""What a request asked: whether the model's tools are static, the conversation, the tools.

>>> asked: Asked = (False, 0, ())
"""


def check_order(step: str, record: RunRecord, unread: str | None, calls: Calls | None) -> None:
    """Refuse ``step`` (a :class:`~statetools.engine.Conversation` method) when a host
    may not take it now: the final answer the host reads itself (``unread``) is not read
    yet, the run has finished, or a call it was handed has no answer yet.

    >>> from statetools.engine import Conversation
    >>> check_order("take", Conversation([], "Hi", run_id="r1").record, "42", None)
    Traceback (most recent call last):
    statetools.errors.StatetoolsError: Conversation.take: the final answer has not been read ...
    """
    if unread is not None:
        raise StatetoolsError(
            "the final answer has not been read",
            path=f"Conversation.{step}",
            hint="read conv.unread_answer: conv.output_read(value) or output_unreadable(...)",
        )
    if record.ended is not None:
        raise StatetoolsError(
            "the conversation has finished",
            path=f"Conversation.{step}",
            hint="read conv.result; add_user_message() and restart() go on",
        )
    current = calls.current() if calls is not None else None
    if current is not None:
        raise StatetoolsError(
            f"call {current.id!r} ({current.name}) has no answer yet",
            path=f"Conversation.{step}",
            hint="answer every call first: conv.answer(call, result)",
        )


def check_request(asked: Asked | None) -> Asked:
    """What the request ``take`` answers asked; refused when no request was made.

    >>> check_request(None)
    Traceback (most recent call last):
    statetools.errors.StatetoolsError: Conversation.take: take() answers a request ...
    """
    if asked is None:
        raise StatetoolsError(
            "take() answers a request",
            path="Conversation.take",
            hint="call conv.next_request() and send it to the model first",
        )
    return asked


def check_waiting(call: Call, calls: Calls | None) -> Calls:
    """The calls of the response ``call`` belongs to, when it is the one waiting for its
    answer; refused otherwise.

    >>> from statetools.engine import Conversation
    >>> from statetools.messages import ToolCall
    >>> from statetools.models.base import ModelResponse
    >>> conv = Conversation([Tool.create("ping", "Ping the host", lambda: "pong")], "Up?")
    >>> message = AssistantMessage("", (ToolCall("c1", "ping"),))
    >>> _ = conv.next_request()
    >>> calls = conv.take(ModelResponse(message, stop_reason="tool_use"))
    >>> check_waiting(calls.current(), calls) is calls
    True
    """
    if calls is None or calls.current() is not call:
        raise StatetoolsError(
            f"call {call.id!r} is not waiting for an answer",
            path="Conversation.answer",
            hint="answer the calls take() hands out, each once, in order",
        )
    return calls


def check_unread(unread: str | None) -> str:
    """The final answer waiting for the host to read it; refused when none is.

    >>> check_unread("42")
    '42'
    """
    if unread is None:
        raise StatetoolsError(
            "no final answer is waiting to be read",
            path="Conversation.output_read",
            hint="read conv.unread_answer after take() when reads_output=False",
        )
    return unread


def model_request(parts: RunParts, asked: int, max_iterations: int) -> tuple[ModelRequest, Asked]:
    """Begin a turn: the request to send the model, and what it asks. The model was
    asked ``asked`` times for the current message: at ``max_iterations`` the run ends
    with :class:`~statetools.MaxIterationsExceeded`.

    >>> from statetools.engine import Conversation
    >>> request, asked = model_request(Conversation([], "Hi", run_id="r1").parts, 0, 20)
    >>> [m.content for m in request.messages], asked
    (['Hi'], (False, 0, ()))
    """
    if asked >= max_iterations:
        raise MaxIterationsExceeded(
            f"no final answer after {counted(max_iterations, 'model call')}",
            path="ToolLoop",
            hint="raise max_iterations, or check that the tools let the model finish",
        )
    record = parts.record
    definitions = begin_turn(record).definitions
    static = not parts.capabilities.supports_dynamic_tools
    conversation = record.conversation_for(definitions) if static else record.conversation
    if conversation != record.conversation:  # a new conversation: sections read so far
        refresh_prompt(parts.scheduler, record.messages, parts.prompt_index)
    catalogue = record.catalogue.request(definitions) if record.catalogue else None
    room = parts.search_room
    request = ModelRequest(
        tuple(record.messages),
        definitions,
        conversation,
        catalogue,
        room.space() if room is not None else None,
    )
    return request, (static, conversation, definitions)


def request_answered(record: RunRecord, asked: Asked) -> None:
    """The model answered the request that ``asked``: a (new) conversation of a model
    whose tools are static began with it.

    >>> from statetools.engine import Conversation
    >>> record = Conversation([], "Hi", run_id="r1").record
    >>> request_answered(record, (True, 1, ()))
    >>> record.conversation, record.conversation_tools
    (1, ())
    """
    static, conversation, definitions = asked
    if static:
        record.conversation, record.conversation_tools = conversation, definitions
        record.saved_tools_digest = None


def respond(
    parts: RunParts,
    message: AssistantMessage | None,
    resumed: bool,
    output_type: Any,
    reads_output: bool,
) -> tuple[Calls, str | None]:
    """Act on ``message``, the latest response (already in the history; None: only hand
    out its calls still without an answer): the calls to run, one at a time, and the final
    answer when the host reads it as ``output_type`` itself (``reads_output=False``).
    A refusal ends the run, the calls of a response cut off by the token limit are
    answered unrun, a final answer is read as ``output_type``. ``resumed``: a continued
    session takes again the response its last run stopped in; where that run would have
    ended with an error (the answer still does not fit ``output_type``, too many unknown
    tools), it asks the model again.

    >>> from statetools.engine import Conversation
    >>> parts = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).parts
    >>> calls, unread = respond(parts, AssistantMessage("42"), False, int, True)
    >>> list(calls), unread, parts.record.ended.output
    ([], None, 42)
    """
    record = parts.record
    open_calls = pending_calls(record.messages)
    calls = Calls(
        open_calls,
        lambda call: open_call(record, call, parts.after_call, parts.refusal),
        lambda: end_of_response(record, resumed),
    )
    if message is None:
        pass
    elif record.stop_reason == "refusal":
        answer_unrun(record, open_calls, "refusal")
        plain = output_type is None or output_type is str
        record.finish(message.content if plain else None, "refusal")
    elif record.stop_reason == "max_tokens" and message.tool_calls:
        answer_unrun(record, open_calls, "max_tokens")
    elif not message.tool_calls and not reads_output and output_type is not None:
        return calls, message.content  # the host reads it (see Conversation.output_read)
    elif not message.tool_calls:
        final_answer(record, message.content, output_type, resumed)
    else:
        calls.advance()
    return calls, None
