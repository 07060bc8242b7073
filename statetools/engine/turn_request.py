"""What a run sends the model each turn: the history, the tools visible now, and for a
model whose tools cannot change mid-conversation, the conversation they belong to.

:class:`~statetools.engine.Conversation` builds each :class:`ModelRequest` here
(:func:`model_request`) and, once the model answered it, records the conversation the
request began (:func:`request_answered`).
"""

from __future__ import annotations

from statetools.engine.prompt_sections import refresh_prompt
from statetools.engine.record import RunRecord
from statetools.engine.scheduler import Scheduler
from statetools.engine.steps import begin_turn
from statetools.engine.tool_search import SearchRoom
from statetools.models.base import ModelCapabilities, ModelRequest, ToolDefinition

__all__ = ["Asked", "model_request", "request_answered"]

Asked = tuple[bool, int, tuple[ToolDefinition, ...]]
"""What a request asked: whether the model's tools are static, the conversation, the tools.

>>> asked: Asked = (False, 0, ())
"""


def model_request(
    record: RunRecord,
    scheduler: Scheduler,
    capabilities: ModelCapabilities,
    prompt_index: int | None,
    room: SearchRoom | None,
) -> tuple[ModelRequest, Asked]:
    """Begin a turn: the request to send the model, and what it asks.

    >>> from statetools.engine import Conversation
    >>> conv = Conversation([], "Hi", run_id="r1")
    >>> request, asked = model_request(conv.record, conv.scheduler, ModelCapabilities(), None, None)
    >>> [m.content for m in request.messages], asked
    (['Hi'], (False, 0, ()))
    """
    definitions = begin_turn(record).definitions
    static = not capabilities.supports_dynamic_tools
    conversation = record.conversation_for(definitions) if static else record.conversation
    if conversation != record.conversation:  # a new conversation: sections read so far
        refresh_prompt(scheduler, record.messages, prompt_index)
    catalogue = record.catalogue.request(definitions) if record.catalogue else None
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
