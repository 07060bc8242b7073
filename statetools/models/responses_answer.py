"""A Responses API answer read into a :class:`~statetools.models.base.ModelResponse`:
its text, its function calls (a namespace's tool by its own name), its tool searches
in the ``tool_search`` mode, why it stopped, and its tokens."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from statetools.messages import AssistantMessage, ToolCall
from statetools.models._provider import plain_json
from statetools.models.base import ModelResponse, StopReason, Usage
from statetools.models.programmatic import native_output
from statetools.tools.tool import parse_arguments

if TYPE_CHECKING:
    from openai.types.responses import Response

__all__ = ["from_response", "tool_search_call"]

_INCOMPLETE: dict[str, StopReason] = {
    "max_output_tokens": "max_tokens",
    "content_filter": "refusal",
}


def _function_call(item: Any) -> ToolCall:
    name = str(item.name)
    namespace = getattr(item, "namespace", None)
    if namespace and name.startswith(f"{namespace}."):
        name = name[len(namespace) + 1 :]
    parsed = parse_arguments(name, item.arguments)
    if isinstance(parsed, str):
        return ToolCall(id=item.call_id, name=name, invalid_arguments=parsed)
    return ToolCall(id=item.call_id, name=name, arguments=parsed)


def from_response(response: Response, search_tool: str | None = None) -> ModelResponse:
    """Our ModelResponse for a Responses API response.

    Output text parts are joined with newlines; a refusal becomes the text with stop
    reason ``refusal``; other items (reasoning, built-in tools) are dropped, except in
    an answer with a program (programmatic tool calling), kept whole in ``native``. With
    ``search_tool`` (the ``tool_search`` mode), a tool search is a call of that tool
    (see :func:`tool_search_call`).
    ``usage.input_tokens`` counts all input tokens, cached ones included.

    >>> from openai.types.responses import Response
    >>> reply = Response.model_validate({
    ...     "id": "r1", "object": "response", "created_at": 0, "model": "gpt",
    ...     "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    ...     "output": [{"type": "message", "id": "m1", "role": "assistant",
    ...                 "status": "completed",
    ...                 "content": [{"type": "output_text", "text": "Pong.", "annotations": []}]}]})
    >>> response = from_response(reply)
    >>> response.message.content, response.stop_reason
    ('Pong.', 'end_turn')
    """
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[ToolCall] = []
    pending: dict[str, Any] = {}
    for item in response.output:
        if item.type == "message":
            for part in item.content:
                if part.type == "output_text":
                    texts.append(part.text)
                elif part.type == "refusal":
                    refusals.append(part.refusal)
        elif item.type == "function_call":
            calls.append(_function_call(item))
        elif search_tool is not None and item.type in ("tool_search_call", "tool_search_output"):
            search = tool_search_call(item, pending, search_tool)
            if search is not None:
                calls.append(search)
    stop: StopReason = "tool_use" if calls else "end_turn"
    if response.status == "incomplete":
        details = response.incomplete_details
        stop = _INCOMPLETE.get(str(details.reason if details else None), "other")
    elif response.status not in (None, "completed"):
        stop = "other"
    content = "\n".join(texts)
    if not content and refusals:
        content, stop = "\n".join(refusals), "refusal"
    usage = Usage()
    if response.usage is not None:
        details_in = response.usage.input_tokens_details
        usage = Usage(
            input_tokens=response.usage.input_tokens,
            output_tokens=response.usage.output_tokens,
            cached_input_tokens=(details_in.cached_tokens or 0) if details_in else 0,
        )
    native = native_output(response.output)
    return ModelResponse(AssistantMessage(content, tuple(calls), native=native), usage, stop)


def tool_search_call(item: Any, pending: dict[str, Any], search_tool: str) -> ToolCall | None:
    """Our call for a ``tool_search_call`` or ``tool_search_output`` output item: a
    client search is the model's call of the run's search tool; a hosted search (its
    call, kept in ``pending``, then its output) is a call that loads what it loaded.

    >>> from types import SimpleNamespace as Item
    >>> pending = {}
    >>> tool_search_call(Item(type="tool_search_call", execution="server", id="ts_1",
    ...                       call_id=None, arguments={"query": "ping"}), pending, "tool_search")
    >>> loaded = Item(type="tool_search_output", execution="server", id="tso_1", call_id=None,
    ...               tools=[Item(type="namespace", name="net", tools=[Item(name="ping")])])
    >>> tool_search_call(loaded, pending, "tool_search").arguments
    {'names': ['ping'], 'searched': {'query': 'ping'}}
    """
    arguments = getattr(item, "arguments", None)
    if item.type == "tool_search_call":
        if item.execution == "client":
            given = dict(arguments) if isinstance(arguments, Mapping) else {}
            return ToolCall(id=str(item.call_id or item.id), name=search_tool, arguments=given)
        pending["arguments"] = plain_json(arguments) if arguments is not None else {}
        pending["id"] = item.id
        return None
    if item.execution != "server":
        return None
    names: list[str] = []
    for tool in item.tools:
        inner = getattr(tool, "tools", None) if getattr(tool, "type", "") == "namespace" else None
        names.extend(str(t.name) for t in inner or [tool])
    searched = pending.pop("arguments", {})
    call_id = str(pending.pop("id", None) or item.id)
    return ToolCall(id=call_id, name=search_tool, arguments={"names": names, "searched": searched})
