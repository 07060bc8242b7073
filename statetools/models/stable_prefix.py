"""The ``stable_prefix`` disclosure mode of :class:`~statetools.models.OpenAIChatModel`:
a prompt whose start never changes, for servers that cache the prompt's prefix but have
no deferred tools (llama.cpp's ``llama-server``, vLLM, Ollama).

Chat templates such as Qwen's write the tools into the system turn, at the start of the
prompt: a tools array that changes, even at its end, changes that turn, and the server
reads the whole conversation again. In this mode every request declares the tools of
the run's first request, plus ``call_tool`` when the design can show others later. A
tool result that opens tools ends with their definitions, and the model calls them
through ``call_tool(name, arguments)``, which the adapter turns back into the tool's
own call, so locks, the trace and every host see the real tool. The history is written
the same way in every request (a call of a tool outside the array is written as the
``call_tool`` call it was), so each request only appends to the one before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from statetools.errors import ProviderError
from statetools.messages import AssistantMessage, Message, ToolCall, ToolMessage
from statetools.models._provider import plain_json
from statetools.models.base import ModelRequest, ModelResponse, ToolCatalogue, ToolDefinition
from statetools.tools.tool import parse_arguments

__all__ = ["DISPATCHER", "dispatched", "stable_request"]

DISPATCHER = ToolDefinition(
    "call_tool",
    "Call a tool that a tool result made available in this conversation.",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool's name"},
            "arguments": {"type": "object", "description": "The tool's arguments"},
        },
        "required": ["name", "arguments"],
        "additionalProperties": False,
    },
)
"""The one tool through which tools opened during the run are called."""

INTRODUCTION = (
    'Call these tools with call_tool, giving "name" and "arguments" (their definitions '
    "follow, one per line):"
)


def _declared(catalogue: ToolCatalogue) -> tuple[tuple[ToolDefinition, ...], set[str]]:
    """The tools every request declares, and their names."""
    by_name = {tool.name: tool for tool in catalogue.tools}
    if DISPATCHER.name in by_name:
        raise ProviderError(
            f"a tool is named '{DISPATCHER.name}', the name this mode calls opened tools through",
            path="OpenAIChatModel(disclosure='stable_prefix')",
            hint=f"rename tool '{DISPATCHER.name}', or use another disclosure mode",
        )
    first = tuple(by_name[name] for name in catalogue.initial if name in by_name)
    names = {tool.name for tool in first}
    if any(tool.name not in names for tool in catalogue.tools):
        return (*first, DISPATCHER), names
    return first, names


def _definition_line(tool: ToolDefinition) -> str:
    entry = {
        "name": tool.name,
        "description": tool.description,
        "parameters": plain_json(tool.input_schema),
    }
    return json.dumps(entry, ensure_ascii=False)


def stable_request(request: ModelRequest) -> tuple[tuple[ToolDefinition, ...], list[Message]]:
    """The tools to declare and the history to send for ``request`` in the mode: the
    first request's tools (and ``call_tool``), calls of other tools written as
    ``call_tool`` calls, and each tool result that opened tools followed by their
    definitions. A request made outside a run (no catalogue) is sent as it is.

    >>> from statetools.models.base import ToolChange
    >>> ping = ToolDefinition("ping", "Ping the host.", {"type": "object"})
    >>> trace = ToolDefinition("trace", "Trace the route.", {"type": "object"})
    >>> catalogue = ToolCatalogue((ping, trace), ("ping",), {"c1": ToolChange(("trace",))})
    >>> history = (ToolMessage("c1", "ping", "pong\\n[now available: trace]"),)
    >>> tools, messages = stable_request(ModelRequest(history, (ping, trace), 0, catalogue))
    >>> [tool.name for tool in tools]
    ['ping', 'call_tool']
    >>> print(messages[0].content)
    pong
    [now available: trace]
    Call these tools with call_tool, giving "name" and "arguments" (their definitions follow, one per line):
    {"name": "trace", "description": "Trace the route.", "parameters": {"type": "object"}}
    """  # noqa: E501
    catalogue = request.catalogue
    if catalogue is None:
        return request.tools, list(request.messages)
    tools, names = _declared(catalogue)
    by_name = {tool.name: tool for tool in catalogue.tools}
    described: set[str] = set()
    messages: list[Message] = []
    for message in request.messages:
        if isinstance(message, AssistantMessage) and any(
            call.name not in names for call in message.tool_calls
        ):
            calls = tuple(_as_dispatched(call, names) for call in message.tool_calls)
            message = attrs.evolve(message, tool_calls=calls)
        elif isinstance(message, ToolMessage):
            change = catalogue.changes.get(message.tool_call_id)
            opened = [
                by_name[name]
                for name in (change.added if change is not None else ())
                if name in by_name and name not in names and name not in described
            ]
            if opened:
                described.update(tool.name for tool in opened)
                lines = [INTRODUCTION, *(_definition_line(tool) for tool in opened)]
                message = attrs.evolve(message, content="\n".join([message.content, *lines]))
        messages.append(message)
    return tools, messages


def _as_dispatched(call: ToolCall, declared: set[str]) -> ToolCall:
    if call.name in declared or call.invalid_arguments is not None:
        return call
    arguments = {"name": call.name, "arguments": dict(call.arguments)}
    return ToolCall(call.id, DISPATCHER.name, arguments)


def dispatched(response: ModelResponse) -> ModelResponse:
    """``response`` with each ``call_tool`` call turned into the call of the tool it
    names (arguments given as an object, as JSON text, or beside ``name``); a call that
    names no tool keeps the name ``call_tool`` with what is wrong in
    ``invalid_arguments``.

    >>> call = ToolCall("c1", "call_tool", {"name": "trace", "arguments": {"host": "a"}})
    >>> response = ModelResponse(AssistantMessage("", (call,)), stop_reason="tool_use")
    >>> dispatched(response).message.tool_calls[0]
    ToolCall(id='c1', name='trace', arguments={'host': 'a'}, invalid_arguments=None)
    """
    calls = response.message.tool_calls
    if not any(call.name == DISPATCHER.name for call in calls):
        return response
    unwrapped = tuple(_unwrapped(call) if call.name == DISPATCHER.name else call for call in calls)
    return attrs.evolve(response, message=attrs.evolve(response.message, tool_calls=unwrapped))


def _unwrapped(call: ToolCall) -> ToolCall:
    if call.invalid_arguments is not None:
        return call
    name = call.arguments.get("name")
    if not isinstance(name, str) or not name:
        return attrs.evolve(
            call,
            invalid_arguments=f"Invalid call of tool '{DISPATCHER.name}': 'name' must be the "
            "name of a tool made available in this conversation.",
        )
    inner: Any = call.arguments.get("arguments")
    if inner is None:  # the tool's arguments written beside the name
        inner = {key: value for key, value in call.arguments.items() if key != "name"}
    parsed = parse_arguments(name, inner if isinstance(inner, str | Mapping) else str(inner))
    if isinstance(parsed, str):
        return ToolCall(call.id, name, invalid_arguments=parsed)
    return ToolCall(call.id, name, parsed)
