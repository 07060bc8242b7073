"""OpenAIChatModel: the Model protocol on OpenAI's Chat Completions API (async SDK).

Also serves OpenAI-compatible servers (vLLM, Ollama, LiteLLM, ...) through ``base_url``.
The ``openai`` package is an optional extra: ``pip install statetools[openai]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs

from statetools.errors import ProviderError
from statetools.messages import AssistantMessage, Message, SystemMessage, ToolCall, UserMessage
from statetools.models._openai import OPENAI_DISCLOSURES, OpenAIModel, allowed_tools
from statetools.models._provider import declared_tools, plain_json, sdk_arguments
from statetools.models.base import (
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    StopReason,
    StreamSink,
    ToolDefinition,
    Usage,
)
from statetools.models.stable_prefix import dispatched, stable_request
from statetools.models.text_calls import calls_in_text
from statetools.tools.tool import parse_arguments

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def to_openai_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages in the Chat Completions wire format.

    Assistant tool calls carry their arguments as a JSON string; each tool result is
    one ``role: tool`` message answering its ``tool_call_id``.

    >>> to_openai_messages([UserMessage("hi"), ToolMessage("call_1", "add", "5")])
    [{'role': 'user', 'content': 'hi'}, {'role': 'tool', 'tool_call_id': 'call_1', 'content': '5'}]
    """
    wire: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage | UserMessage):
            wire.append({"role": message.role, "content": message.content})
        elif isinstance(message, AssistantMessage):
            item: dict[str, Any] = {"role": "assistant"}
            item["content"] = message.content or (None if message.tool_calls else "")
            if message.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.name,
                            "arguments": json.dumps(plain_json(call.arguments)),
                        },
                    }
                    for call in message.tool_calls
                ]
            wire.append(item)
        else:
            wire.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
    return wire


def to_openai_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Tool definitions as Chat Completions ``function`` tools, in the given order.

    >>> to_openai_tools([ToolDefinition("ping", "Ping.", {"type": "object"})])
    [{'type': 'function', 'function': {'name': 'ping', 'description': 'Ping.', \
'parameters': {'type': 'object'}}}]
    """
    return [openai_tool(tool) for tool in tools]


def openai_tool(tool: ToolDefinition) -> dict[str, Any]:
    """One tool definition as a Chat Completions ``function`` tool.

    >>> openai_tool(ToolDefinition("ping", "Ping.", {"type": "object"}))["function"]
    {'name': 'ping', 'description': 'Ping.', 'parameters': {'type': 'object'}}
    """
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": plain_json(tool.input_schema),
        },
    }


def _arguments(raw: Any) -> Any:
    """The arguments of a call as sent, unwrapped once when a server encoded the JSON
    text twice (a JSON string holding the object)."""
    if isinstance(raw, str) and raw.strip().startswith('"'):
        try:
            inner = json.loads(raw)
        except ValueError:
            return raw
        if isinstance(inner, str) and inner.strip().startswith("{"):
            return inner
    return raw  # a str, or an object from a server that sends arguments decoded


def _tool_call(call: Any) -> ToolCall:
    call_id = getattr(call, "id", None) or ""
    function = getattr(call, "function", None)
    if function is None:  # a custom (free-text) tool call; we only offer function tools
        name = str(getattr(getattr(call, "custom", None), "name", "unknown"))
        return ToolCall(
            id=call_id,
            name=name,
            invalid_arguments=f"Invalid call of tool '{name}': call it as a function "
            "with one JSON object of arguments.",
        )
    name = str(getattr(function, "name", None) or "")
    parsed = parse_arguments(name, _arguments(getattr(function, "arguments", None)))
    if isinstance(parsed, str):
        return ToolCall(id=call_id, name=name, invalid_arguments=parsed)
    return ToolCall(id=call_id, name=name, arguments=parsed)


def _used_ids(messages: Sequence[Message]) -> set[str]:
    return {
        call.id
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    }


def _fresh_ids(used: set[str]) -> Iterator[str]:
    """Ids ``call_1``, ``call_2``, ... that are not in ``used`` (which grows with them)."""
    number = 0
    while True:
        number += 1
        candidate = f"call_{number}"
        if candidate not in used:
            used.add(candidate)
            yield candidate


def settle_calls(
    calls: Sequence[ToolCall], content: str, request: ModelRequest
) -> tuple[tuple[ToolCall, ...], str]:
    """The calls of a response as the loop needs them, whatever the server sent.

    Every call gets an id no earlier call of the conversation has (servers that omit
    ids, or send the same id every time, get ``call_1``, ``call_2``, ...); when the
    server put no call in ``tool_calls`` but the model wrote calls as JSON in its text
    and the request offered tools, those become the calls (see
    :mod:`~statetools.models.text_calls`), and the text keeps only what surrounds them.

    >>> request = ModelRequest((UserMessage("hi"),), (ToolDefinition("ping", "Ping.", {}),))
    >>> settle_calls([], '```json\\n{"name": "ping", "arguments": {}}\\n```', request)
    ((ToolCall(id='call_1', name='ping', arguments={}, invalid_arguments=None),), '')
    """
    used = _used_ids(request.messages)
    fresh = _fresh_ids(used)
    if not calls and request.tools and content:
        found = calls_in_text(content, ids=fresh)
        if found.calls:
            return tuple(found.calls), found.rest
    settled: list[ToolCall] = []
    for call in calls:
        if not call.id or call.id in used:
            call = attrs.evolve(call, id=next(fresh))
        used.add(call.id)
        settled.append(call)
    return tuple(settled), content


def from_openai_completion(
    completion: ChatCompletion, request: ModelRequest | None = None
) -> ModelResponse:
    """Our ModelResponse for a Chat Completions response (first choice).

    Arguments that are not a JSON object become a call with ``invalid_arguments``.
    ``usage.input_tokens`` counts all prompt tokens, cached ones included (all zero
    when the server reports no usage). With the ``request`` it answers, the calls are
    settled as :func:`settle_calls` says (unique ids, calls written in the text).

    >>> from openai.types.chat import ChatCompletion
    >>> completion = ChatCompletion.model_validate({
    ...     "id": "c1", "object": "chat.completion", "created": 0, "model": "gpt",
    ...     "choices": [{"index": 0, "finish_reason": "stop",
    ...                  "message": {"role": "assistant", "content": "Pong."}}],
    ...     "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}})
    >>> response = from_openai_completion(completion)
    >>> response.message.content, response.usage.input_tokens, response.stop_reason
    ('Pong.', 9, 'end_turn')
    """
    if not completion.choices:
        raise ProviderError(
            "the Chat Completions response has no choices",
            path=f"openai:{completion.model}",
            hint="check that the server implements the Chat Completions API",
        )
    choice = completion.choices[0]
    message = choice.message
    calls = tuple(_tool_call(call) for call in message.tool_calls or ())
    content = message.content if isinstance(message.content, str) else ""
    stop = _STOP_REASONS.get(str(choice.finish_reason), "other")
    if not content and message.refusal:
        content, stop = message.refusal, "refusal"
    elif request is not None:
        calls, content = settle_calls(calls, content, request)
    if calls and stop == "end_turn":  # some compatible servers say "stop" with tool calls
        stop = "tool_use"
    usage = Usage()
    if completion.usage is not None:
        details = getattr(completion.usage, "prompt_tokens_details", None)
        usage = Usage(
            input_tokens=getattr(completion.usage, "prompt_tokens", None) or 0,
            output_tokens=getattr(completion.usage, "completion_tokens", None) or 0,
            cached_input_tokens=getattr(details, "cached_tokens", None) or 0,
        )
    return ModelResponse(AssistantMessage(content, calls), usage, stop)


class OpenAIChatModel(OpenAIModel):
    """A model on OpenAI's Chat Completions API, through the official async SDK.

    ``client`` (an ``openai.AsyncOpenAI``) is used as is; otherwise one is made from
    ``base_url``, ``api_key`` (default: the ``OPENAI_API_KEY`` environment variable),
    ``max_retries`` (the SDK retries 408/409/429/5xx and timeouts with backoff) and
    ``timeout`` (seconds per attempt). ``request_options`` go into every request
    (``temperature=0``, ``parallel_tool_calls=False``, ...).

    ``disclosure="allowed_tools"`` declares every tool the design can show, in a
    stable order, in every request, and lists the visible ones in ``tool_choice``
    (``allowed_tools``, mode ``auto``); see docs/providers.md.
    ``disclosure="stable_prefix"``, for local servers with a prompt cache (llama.cpp),
    never changes the tools array: tools opened later are described in the tool result
    that opened them and called through ``call_tool`` (see
    :mod:`~statetools.models.stable_prefix`).

    >>> model = OpenAIChatModel("gpt-4o-mini", temperature=0)  # doctest: +SKIP
    >>> st.ToolLoop(model).run("What is 2 + 3?", tools=[add]).output  # doctest: +SKIP
    '2 + 3 = 5'

    A local OpenAI-compatible server::

        OpenAIChatModel("llama3.1", base_url="http://localhost:11434/v1", api_key="ollama")

    Failures after the retries raise :class:`~statetools.ProviderError` with ``status``.
    """

    ADAPTER = "OpenAIChatModel"
    WIRE_TOOL = openai_tool
    DISCLOSURES = (*OPENAI_DISCLOSURES, "stable_prefix")

    @property
    def capabilities(self) -> ModelCapabilities:
        """As every OpenAI adapter's; the ``stable_prefix`` mode takes the run's
        catalogue too.

        >>> OpenAIChatModel("m", api_key="k", disclosure="stable_prefix").capabilities.declares_all_tools
        True
        """  # noqa: E501
        native = super().capabilities
        if self.disclosure == "stable_prefix":
            return attrs.evolve(native, declares_all_tools=True)
        return native

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body of the request (``tools`` only if any).

        >>> OpenAIChatModel("m", api_key="k").request_body(
        ...     ModelRequest((UserMessage("hi"),)))
        {'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}]}
        """
        if self.disclosure == "stable_prefix":
            declared, messages = stable_request(request)
            body: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages)}
            if declared:
                body["tools"] = self._wire_tools(declared)
            body.update(self.request_options)
            return body
        body = {
            "model": self.model,
            "messages": to_openai_messages(request.messages),
        }
        if self.disclosure == "allowed_tools":
            declared = declared_tools(request)
            if declared:
                body["tools"] = self._wire_tools(declared)
                allowed = allowed_tools(
                    request, lambda name: {"type": "function", "function": {"name": name}}
                )
                body["tool_choice"] = (
                    {"type": "allowed_tools", "allowed_tools": allowed}
                    if allowed is not None
                    else "none"
                )
        elif request.tools:
            body["tools"] = self._wire_tools(request.tools)
        body.update(self.request_options)
        return body

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send ``request`` and return the first choice; raise ProviderError on failure.

        >>> import asyncio
        >>> model = OpenAIChatModel("gpt-4o-mini")  # doctest: +SKIP
        >>> request = ModelRequest((UserMessage("What is 2 + 3?"),))
        >>> asyncio.run(model.complete(request)).message.content  # doctest: +SKIP
        '5'
        """
        try:
            create = (await self._clients.acquire()).chat.completions.create
            completion: ChatCompletion = await create(
                **sdk_arguments(create, self.request_body(request))
            )
        except self._sdk.OpenAIError as exc:
            raise self._failure(exc) from exc
        return self._read(from_openai_completion(completion, request))

    def _read(self, response: ModelResponse) -> ModelResponse:
        if self.disclosure == "stable_prefix":
            return dispatched(response)
        return response

    async def stream(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """Send ``request`` with ``stream: true`` (usage included): text deltas and
        calls go to ``sink`` as the chunks arrive; the SDK's stream state puts the
        chunks together into the completion read as :meth:`complete` reads it.

        >>> import asyncio
        >>> class Printing:
        ...     def text(self, delta: str) -> None:
        ...         print(delta, end="")
        ...     def call_started(self, call_id: str, name: str) -> None:
        ...         print(f"[{name}]")
        >>> model = OpenAIChatModel("gpt-4o-mini")  # doctest: +SKIP
        >>> request = ModelRequest((UserMessage("Count to three."),))
        >>> response = asyncio.run(model.stream(request, Printing()))  # doctest: +SKIP
        1, 2, 3.
        """
        from openai.lib.streaming.chat import ChatCompletionStreamState

        body = {"stream_options": {"include_usage": True}, **self.request_body(request)}
        state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
        chunks = 0
        try:
            create = (await self._clients.acquire()).chat.completions.create
            stream = await create(**sdk_arguments(create, {**body, "stream": True}))
            async for chunk in stream:
                chunks += 1
                state.handle_chunk(chunk)
                for choice in chunk.choices:
                    if choice.index != 0:
                        continue
                    if choice.delta.content:
                        sink.text(choice.delta.content)
                    for call in choice.delta.tool_calls or ():
                        if call.id and call.function is not None and call.function.name:
                            sink.call_started(call.id, call.function.name)
        except self._sdk.OpenAIError as exc:
            raise self._failure(exc) from exc
        if not chunks:
            raise ProviderError(
                "the Chat Completions stream ended without a chunk",
                path=self.where,
                hint="check that the server implements Chat Completions streaming",
            )
        completion = cast(Any, state.current_completion_snapshot)
        return self._read(from_openai_completion(completion, request))
