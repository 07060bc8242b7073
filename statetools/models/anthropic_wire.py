"""The Messages API's wire form: a history and tool definitions as Anthropic takes
them, and our :class:`~statetools.models.ModelResponse` for what it answers.

:class:`~statetools.models.AnthropicModel` builds its requests and reads its answers
with these; ``statetools tokens`` counts tools in this form.

>>> system, history = to_anthropic_messages([SystemMessage("Be brief."), UserMessage("hi")])
>>> history, to_anthropic_tools([ToolDefinition("ping", "Ping.", {"type": "object"})])[0]["name"]
([{'role': 'user', 'content': 'hi'}], 'ping')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from statetools.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from statetools.models._provider import plain_json
from statetools.models.anthropic_search import SERVER_BLOCKS, native_content, referenced, verbatim
from statetools.models.base import ModelResponse, StopReason, ToolDefinition, Usage
from statetools.tools.tool import parse_arguments

if TYPE_CHECKING:
    from anthropic.types import Message as AnthropicMessage

EPHEMERAL: Mapping[str, str] = {"type": "ephemeral"}

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
}


def to_anthropic_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The system prompt and the Messages API history for ``messages``.

    System messages are joined into the system prompt. Tool results become
    ``tool_result`` blocks of a user message, so all results of a turn share one
    message; consecutive messages of the same role are merged, as the API requires.
    A message that is a single text block is sent as a plain string.

    >>> to_anthropic_messages([SystemMessage("Be brief."), UserMessage("hi")])
    ('Be brief.', [{'role': 'user', 'content': 'hi'}])
    """
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            system.append(message.content)
            continue
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    for turn in turns:
        content = turn["content"]
        if len(content) == 1 and content[0]["type"] == "text":
            turn["content"] = content[0]["text"]
    return "\n\n".join(system), turns


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(message, UserMessage):
        return "user", [{"type": "text", "text": message.content}]
    if isinstance(message, ToolMessage):
        block = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": message.content,
            "is_error": message.is_error,
        }
        return "user", [block]
    assert isinstance(message, AssistantMessage)
    kept = verbatim(message.native, [call.id for call in message.tool_calls])
    if kept is not None:  # an answer with server tool blocks goes back as it came
        return "assistant", kept
    blocks: list[dict[str, Any]] = []
    if message.content:  # the API rejects empty text blocks
        blocks.append({"type": "text", "text": message.content})
    blocks.extend(
        {
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": plain_json(call.arguments),
        }
        for call in message.tool_calls
    )
    return "assistant", blocks


def to_anthropic_tools(
    tools: Sequence[ToolDefinition], *, cache_control: bool = False
) -> list[dict[str, Any]]:
    """Tool definitions with ``input_schema``, in the given order.

    With ``cache_control`` the last tool carries the ephemeral cache breakpoint.

    >>> to_anthropic_tools([ToolDefinition("ping", "Ping.", {"type": "object"})])
    [{'name': 'ping', 'description': 'Ping.', 'input_schema': {'type': 'object'}}]
    """
    wire = [anthropic_tool(tool) for tool in tools]
    return with_cache_breakpoint(wire) if cache_control else wire


def anthropic_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One tool definition in the Messages API's form.

    >>> anthropic_tool(ToolDefinition("ping", "Ping.", {"type": "object"}))
    {'name': 'ping', 'description': 'Ping.', 'input_schema': {'type': 'object'}}
    """
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": plain_json(tool.input_schema),
    }


def deferred_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One tool definition in the Messages API's form, loaded only when searched for
    (``defer_loading``).

    >>> deferred_tool(ToolDefinition("ping", "Ping.", {"type": "object"}))["defer_loading"]
    True
    """
    return {**anthropic_tool(tool), "defer_loading": True}


def with_cache_breakpoint(wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``wire`` with the ephemeral cache breakpoint on (a copy of) its last tool.

    >>> with_cache_breakpoint([{"name": "ping"}, {"name": "pong"}])
    [{'name': 'ping'}, {'name': 'pong', 'cache_control': {'type': 'ephemeral'}}]
    """
    if wire:
        wire[-1] = {**wire[-1], "cache_control": dict(EPHEMERAL)}
    return wire


def from_anthropic_message(message: AnthropicMessage) -> ModelResponse:
    """Our ModelResponse for a Messages API response.

    Text blocks are joined with newlines; other blocks than text and ``tool_use``
    (thinking) are dropped, except that an answer with server tool blocks
    (``server_tool_use``, ``tool_search_tool_result``) is kept whole in
    ``message.native`` to be sent back verbatim, and the tools its searches loaded
    are ``response.found``. ``usage.input_tokens`` counts all input tokens:
    uncached, read from the cache and written to it.

    >>> from anthropic.types import Message
    >>> message = Message.model_validate({
    ...     "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
    ...     "content": [{"type": "text", "text": "Pinging."},
    ...                 {"type": "tool_use", "id": "toolu_1", "name": "ping", "input": {}}],
    ...     "stop_reason": "tool_use", "usage": {"input_tokens": 12, "output_tokens": 5}})
    >>> response = from_anthropic_message(message)
    >>> response.message.content, response.message.tool_calls[0].name, response.stop_reason
    ('Pinging.', 'ping', 'tool_use')
    """
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            parsed = parse_arguments(block.name, block.input)
            if isinstance(parsed, str):
                calls.append(ToolCall(id=block.id, name=block.name, invalid_arguments=parsed))
            else:
                calls.append(ToolCall(id=block.id, name=block.name, arguments=parsed))
    stop = _STOP_REASONS.get(str(message.stop_reason), "other")
    blocks = _server_answer(message)
    native = native_content(blocks) if blocks is not None else None
    if native is not None and message.container is not None:  # code runs on in it
        native["anthropic"]["container"] = message.container.id
    usage = message.usage
    cache_read = usage.cache_read_input_tokens or 0
    cache_write = usage.cache_creation_input_tokens or 0
    return ModelResponse(
        AssistantMessage("\n".join(texts), tuple(calls), native=native),
        Usage(
            input_tokens=usage.input_tokens + cache_read + cache_write,
            output_tokens=usage.output_tokens,
            cached_input_tokens=cache_read,
        ),
        stop,
        found=tuple(referenced(blocks)) if blocks is not None else (),
    )


def _server_answer(message: AnthropicMessage) -> list[dict[str, Any]] | None:
    """The content blocks of an answer with server tool blocks or calls made by code,
    as JSON (None for other answers, and for one whose blocks cannot be JSON)."""
    if not any(
        block.type in SERVER_BLOCKS
        or (block.type == "tool_use" and block.caller is not None and block.caller.type != "direct")
        for block in message.content
    ):
        return None
    try:
        return [block.to_dict(mode="json", warnings=False) for block in message.content]
    except ValueError:  # a value the lenient reader could not make JSON of
        return None
