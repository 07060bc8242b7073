"""OpenAIResponsesModel: the Model protocol on OpenAI's Responses API (async SDK).

The ``openai`` package is an optional extra: ``pip install statetools[openai]``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from statetools.errors import ProviderError, StatetoolsError
from statetools.messages import AssistantMessage, Message, SystemMessage, UserMessage
from statetools.models._openai import (
    OPENAI_DISCLOSURES,
    OpenAIDisclosure,
    OpenAIModel,
    allowed_tools,
)
from statetools.models._provider import plain_json, sdk_arguments
from statetools.models.base import (
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    SearchSpace,
    StreamSink,
    ToolDefinition,
)
from statetools.models.programmatic import (
    ProgrammaticTools,
    replayed,
    with_caller,
)
from statetools.models.responses_answer import from_response
from statetools.models.responses_run_time import RunTimeTools, with_additional_tools
from statetools.models.responses_search import (
    SearchExecution,
    SearchWire,
    definitions_of,
    responses_tool,
    search_input,
    search_tools,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.responses import Response


def to_responses_input(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages as Responses API input items.

    Text messages are role/content items; each assistant tool call is a
    ``function_call`` item after the assistant's text, and each tool result a
    ``function_call_output`` item answering its ``call_id``. An answer kept with the
    output items of a program (``native``, see programmatic.py) goes back as it
    came, and the output of each call its program made names that ``caller``.

    >>> to_responses_input([UserMessage("hi"), ToolMessage("call_1", "add", "5")])
    [{'role': 'user', 'content': 'hi'}, {'type': 'function_call_output', \
'call_id': 'call_1', 'output': '5'}]
    """
    items: list[dict[str, Any]] = []
    callers: dict[str, dict[str, Any]] = {}
    for message in messages:
        if isinstance(message, SystemMessage | UserMessage):
            items.append({"role": message.role, "content": message.content})
        elif isinstance(message, AssistantMessage):
            kept = replayed(message.native, [call.id for call in message.tool_calls], callers)
            if kept:  # a program's answer: its items, fingerprint included, verbatim
                items.extend(kept)
                continue
            if message.content or not message.tool_calls:
                items.append({"role": "assistant", "content": message.content})
            items.extend(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": json.dumps(plain_json(call.arguments)),
                }
                for call in message.tool_calls
            )
        else:
            output = {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": message.content,
            }
            items.append(with_caller(output, callers))
    return items


def to_responses_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Tool definitions as Responses API ``function`` tools, in the given order.

    ``strict`` is sent as false: the Responses API would otherwise hold every schema
    to its strict subset.

    >>> to_responses_tools([ToolDefinition("ping", "Ping.", {"type": "object"})])
    [{'type': 'function', 'name': 'ping', 'description': 'Ping.', \
'parameters': {'type': 'object'}, 'strict': False}]
    """
    return [responses_tool(tool) for tool in tools]


class OpenAIResponsesModel(OpenAIModel):
    """A model on OpenAI's Responses API, through the official async SDK.

    ``client`` (an ``openai.AsyncOpenAI``) is used as is; otherwise one is made from
    ``base_url``, ``api_key`` (default: the ``OPENAI_API_KEY`` environment variable),
    ``max_retries`` (the SDK retries 408/409/429/5xx and timeouts with backoff) and
    ``timeout`` (seconds per attempt). ``request_options`` go into every request
    (``temperature=0``, ``store=False``, ``parallel_tool_calls=False``, ...).

    ``disclosure="allowed_tools"`` declares every tool the design can show, in a
    stable order, in every request, and lists the visible ones in ``tool_choice``
    (``allowed_tools``, mode ``auto``): the tools array, and the cached prefix, stay
    the same for the whole run; a tool that appears at run time (chaining, discovery,
    an injection) is sent as an ``additional_tools`` input item after the tool result
    that revealed it. Locked calls are refused by the loop either way.
    ``code_execution=True`` turns on OpenAI's Programmatic Tool Calling: the model may
    write a program, run by OpenAI, that calls the declared tools; each of its calls
    comes back as a call of the run, under its locks (see programmatic.py).

    >>> model = OpenAIResponsesModel("gpt-4.1-mini", disclosure="allowed_tools")  # doctest: +SKIP
    >>> st.ToolLoop(model).run("What is 2 + 3?", tools=[add]).output  # doctest: +SKIP
    '2 + 3 = 5'

    Failures after the retries raise :class:`~statetools.ProviderError` with ``status``.
    """

    ADAPTER = "OpenAIResponsesModel"
    WIRE_TOOL = responses_tool
    DISCLOSURES = (*OPENAI_DISCLOSURES, "tool_search")

    def __init__(
        self,
        model: str,
        *,
        client: AsyncOpenAI | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        disclosure: OpenAIDisclosure = "tools",
        search_execution: SearchExecution = "server",
        code_execution: bool = False,
        **request_options: Any,
    ) -> None:
        self._programmatic = ProgrammaticTools.of(code_execution, disclosure)
        self.code_execution = code_execution
        """Tools may be called from programs the model writes (programmatic tool calling)."""
        if search_execution not in ("server", "client"):
            raise StatetoolsError(
                f"unknown search_execution {search_execution!r}",
                path="OpenAIResponsesModel(search_execution=...)",
                hint="use 'server' (OpenAI searches) or 'client' (the run searches)",
            )
        self.search_execution: SearchExecution = search_execution
        super().__init__(
            model,
            client=client,
            base_url=base_url,
            api_key=api_key,
            max_retries=max_retries,
            timeout=timeout,
            disclosure=disclosure,
            **request_options,
        )

    @property
    def capabilities(self) -> ModelCapabilities:
        """As every adapter's; in ``tool_search`` mode the model searches tools itself
        and gets the catalogue.

        >>> OpenAIResponsesModel("m", api_key="k", disclosure="tool_search").capabilities
        ModelCapabilities(supports_dynamic_tools=True, parallel_tool_calls=True, \
declares_all_tools=True, searches_tools=True, search_tool=None)
        """
        searches = self.disclosure == "tool_search"
        return ModelCapabilities(
            supports_dynamic_tools=True,
            parallel_tool_calls=True,
            declares_all_tools=searches or self.disclosure == self.NATIVE_DISCLOSURE,
            searches_tools=searches,
        )

    @functools.cached_property
    def _search_tools(self) -> _SearchTools:
        """The ``tool_search`` mode's tools array, kept while nothing changed."""
        return _SearchTools(self.search_execution)

    @functools.cached_property
    def _run_time(self) -> RunTimeTools:
        """The ``allowed_tools`` mode's tools, kept between requests."""
        return RunTimeTools(responses_tool)

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body of the request (``tools`` only if any).

        >>> OpenAIResponsesModel("m", api_key="k").request_body(
        ...     ModelRequest((UserMessage("hi"),)))
        {'model': 'm', 'input': [{'role': 'user', 'content': 'hi'}]}
        """
        body: dict[str, Any] = {"model": self.model, "input": to_responses_input(request.messages)}
        if self.disclosure == "allowed_tools":
            declared, later = self._run_time(request)
            body["input"] = with_additional_tools(body["input"], later)
            if declared:
                body["tools"] = declared
            if declared or later:
                allowed = allowed_tools(request, lambda name: {"type": "function", "name": name})
                body["tool_choice"] = (
                    {"type": "allowed_tools", **allowed} if allowed is not None else "none"
                )
        elif self.disclosure == "tool_search" and request.search is not None:
            definitions = self._search_tools.definitions(request)
            body["input"] = search_input(request.messages, request.search, definitions)
            tools = self._search_tools(request, request.search)
            if tools:
                body["tools"] = tools
        elif request.tools:
            body["tools"] = self._wire_tools(request.tools)
        if self._programmatic is not None and "tools" in body:  # see programmatic.py
            body["tools"] = self._programmatic(body["tools"])
        body.update(self.request_options)
        return body

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send ``request`` and return the answer; raise ProviderError on failure.

        >>> import asyncio
        >>> model = OpenAIResponsesModel("gpt-4.1-mini")  # doctest: +SKIP
        >>> request = ModelRequest((UserMessage("What is 2 + 3?"),))
        >>> asyncio.run(model.complete(request)).message.content  # doctest: +SKIP
        '5'
        """
        try:
            create = (await self._clients.acquire()).responses.create
            response: Response = await create(**sdk_arguments(create, self.request_body(request)))
        except self._sdk.OpenAIError as exc:
            raise self._failure(exc) from exc
        return from_response(response, self._search_name)

    async def stream(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """Send ``request`` with ``stream: true``: text deltas and calls go to ``sink``
        as the events arrive; the answer is read from the final response event.

        >>> import asyncio
        >>> class Printing:
        ...     def text(self, delta: str) -> None:
        ...         print(delta, end="")
        ...     def call_started(self, call_id: str, name: str) -> None:
        ...         print(f"[{name}]")
        >>> model = OpenAIResponsesModel("gpt-4.1-mini")  # doctest: +SKIP
        >>> request = ModelRequest((UserMessage("Count to three."),))
        >>> response = asyncio.run(model.stream(request, Printing()))  # doctest: +SKIP
        1, 2, 3.
        """
        final: Response | None = None
        try:
            create = (await self._clients.acquire()).responses.create
            events = await create(
                **sdk_arguments(create, {**self.request_body(request), "stream": True})
            )
            async for event in events:
                kind = event.type
                if kind == "response.output_text.delta":
                    sink.text(event.delta)
                elif kind == "response.output_item.added" and event.item.type == "function_call":
                    sink.call_started(event.item.call_id, event.item.name)
                elif kind in ("response.completed", "response.incomplete"):
                    final = event.response
                elif kind in ("response.failed", "error"):
                    raise self._stream_failure(event)
        except self._sdk.OpenAIError as exc:
            raise self._failure(exc) from exc
        if final is None:
            raise ProviderError(
                "the Responses stream ended without a final response",
                path=self.where,
                hint="check that the server implements Responses streaming",
            )
        return from_response(final, self._search_name)

    @property
    def _search_name(self) -> str | None:
        return "tool_search" if self.disclosure == "tool_search" else None

    def _stream_failure(self, event: Any) -> ProviderError:
        error = getattr(getattr(event, "response", None), "error", None) or event
        message = getattr(error, "message", None) or "the response failed"
        return ProviderError(
            f"OpenAI stream failed: {message}",
            path=self.where,
            hint="run again later; the provider reported the failure inside the stream",
        )


class _SearchTools:
    """The ``tool_search`` mode's tools array, built again only when the catalogue, the
    namespaces or the visible tools are other objects than last time (from wire forms
    kept in a :class:`~statetools.models.responses_search.SearchWire`)."""

    __slots__ = ("_defined", "_execution", "_last", "_wire")

    def __init__(self, execution: SearchExecution) -> None:
        self._execution = execution
        self._wire = SearchWire()
        self._last: tuple[tuple[object, ...], list[dict[str, Any]]] | None = None
        self._defined: tuple[tuple[object, ...], Mapping[str, ToolDefinition]] | None = None

    def definitions(self, request: ModelRequest) -> Mapping[str, ToolDefinition]:
        """Every definition the request knows, by name (gathered when first read),
        kept while the catalogue, the namespaces and the visible tools are the same."""
        catalogue = request.catalogue.tools if request.catalogue is not None else None
        key = (catalogue, request.search, request.tools)
        known = self._defined
        if known is not None and all(a is b for a, b in zip(known[0], key, strict=True)):
            return known[1]
        found = definitions_of(request)
        self._defined = (key, found)
        return found

    def __call__(self, request: ModelRequest, space: SearchSpace) -> list[dict[str, Any]]:
        catalogue = request.catalogue.tools if request.catalogue is not None else None
        key = (catalogue, request.catalogue, space, request.tools)
        last = self._last
        if last is not None and all(a is b for a, b in zip(last[0], key, strict=True)):
            return last[1]
        tools = search_tools(request, space, self._execution, responses_tool, self._wire)
        self._last = (key, tools)
        return tools
