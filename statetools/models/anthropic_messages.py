"""AnthropicModel: the Model protocol on Anthropic's Messages API (async SDK).

The ``anthropic`` package is an optional extra: ``pip install statetools[anthropic]``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from statetools.errors import StatetoolsError
from statetools.models._provider import ProviderModel, declared_tools, sdk_arguments
from statetools.models.anthropic_disclosure import (
    ANTHROPIC_DISCLOSURES,
    TOOL_CHANGES_BETA,
    AnthropicDisclosure,
    deferred_more,
    deferred_wire,
    initially_visible,
    with_reveals,
)
from statetools.models.anthropic_search import (
    SEARCH_TOOLS,
    SEARCHES,
    AnthropicSearch,
    PlanMemo,
    SearchPlan,
    continued,
    whole_turn,
)
from statetools.models.anthropic_wire import (
    EPHEMERAL,
    anthropic_tool,
    deferred_tool,
    from_anthropic_message,
    to_anthropic_messages,
    with_cache_breakpoint,
)
from statetools.models.base import (
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    StreamSink,
)
from statetools.models.lenient_json import lenient_loads
from statetools.models.programmatic import anthropic_programmatic, container_of
from statetools.models.wire_cache import WireTools

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from anthropic.types import Message as AnthropicMessage

KEY_VARIABLE = "ANTHROPIC_API_KEY"
MAX_CONTINUATIONS = 4
"""How many times one turn the server paused (``pause_turn``) is sent back to go on;
a turn still paused then ends the run with ``stop_reason`` ``"other"``."""


class AnthropicModel(ProviderModel["AsyncAnthropic"]):
    """A Claude model on Anthropic's Messages API, through the official async SDK.

    ``client`` (an ``anthropic.AsyncAnthropic``) is used as is; otherwise one is made
    from ``base_url``, ``api_key`` (default: the ``ANTHROPIC_API_KEY`` environment
    variable), ``max_retries`` (the SDK retries 408/409/429/5xx and timeouts with
    backoff) and ``timeout`` (seconds per attempt). ``max_tokens`` caps each answer.
    ``cache_control=True`` marks the system prompt and the last tool as prompt-cache
    breakpoints. ``request_options`` go into every request (``temperature=0``, ...).

    ``disclosure="deferred"`` declares every tool the design can show in every
    request, ``defer_loading`` on those not visible at the start, and reveals a tool
    with a ``tool_reference`` block in the tool result that made it visible;
    ``beta_tool_changes=True`` uses the ``tool_addition``/``tool_removal`` system
    blocks of the mid-conversation tool changes beta instead.
    ``disclosure="tool_search"`` declares only the tools the design lets the model have
    now, those not visible at the start deferred, and lets Anthropic's server-side
    tool search (``search="bm25"``, the default, or ``"regex"``) find the tools of the
    design's search facades; ``search="client"`` keeps the search facade as a tool,
    answered by statetools' ranker, whose result loads what it found with
    ``tool_reference`` blocks. ``code_execution=True`` lets Claude's code, run by
    Anthropic, call the visible tools (programmatic tool calling; the calls come back as
    calls of the run, under its locks; see programmatic.py). See docs/providers.md.

    >>> model = AnthropicModel("claude-sonnet-4-6", cache_control=True)  # doctest: +SKIP
    >>> st.ToolLoop(model).run("What is 2 + 3?", tools=[add]).output  # doctest: +SKIP
    '2 + 3 = 5'

    Failures after the retries raise :class:`~statetools.ProviderError` with ``status``.
    """

    ADAPTER = "AnthropicModel"
    SDK = EXTRA = PROVIDER = "anthropic"
    CLIENT = "AsyncAnthropic"
    LABEL = "Anthropic"
    KEY_VARIABLE = KEY_VARIABLE
    DISCLOSURES = ANTHROPIC_DISCLOSURES
    NATIVE_DISCLOSURE = "deferred"

    disclosure: AnthropicDisclosure

    def __init__(
        self,
        model: str,
        *,
        client: AsyncAnthropic | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        max_tokens: int = 4096,
        cache_control: bool = False,
        disclosure: AnthropicDisclosure = "tools",
        beta_tool_changes: bool = False,
        search: AnthropicSearch = "bm25",
        code_execution: bool = False,
        **request_options: Any,
    ) -> None:
        self._configure(
            model, timeout=timeout, disclosure=disclosure, request_options=request_options
        )
        if search not in SEARCHES:
            raise StatetoolsError(
                f"unknown tool search {search!r}",
                path="AnthropicModel(search=...)",
                hint="use 'bm25' or 'regex' (Anthropic's server-side search) or 'client'",
            )
        self.search = search
        if beta_tool_changes and disclosure != "deferred":
            raise StatetoolsError(
                "beta_tool_changes=True needs disclosure='deferred'",
                path="AnthropicModel(beta_tool_changes=...)",
                hint="pass disclosure='deferred' too, or leave beta_tool_changes off",
            )
        self.beta_tool_changes = beta_tool_changes
        self.code_execution = code_execution
        """Tools may be called from code Claude writes (programmatic tool calling)."""
        self.max_tokens = max_tokens
        self.cache_control = cache_control
        self._wire = {
            False: WireTools(anthropic_tool),
            True: WireTools(anthropic_tool, lambda wire, _: with_cache_breakpoint(wire)),
        }
        self._deferred = {
            flag: WireTools(
                anthropic_tool,
                partial(deferred_wire, cache_control=EPHEMERAL if flag else None),
                deferred_more,
            )
            for flag in (False, True)
        }
        self._search_deferred = WireTools(deferred_tool)
        """The deferred definitions of ``disclosure="tool_search"``, converted once."""
        self._search_plan = PlanMemo()
        """What the last ``tool_search`` request's catalogue decided."""

        self._connect(
            client, api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )

    @property
    def capabilities(self) -> ModelCapabilities:
        """Tools may change between calls; several calls may come in one response; the
        native modes (``deferred``, ``tool_search``) want the run's catalogue.

        >>> model = AnthropicModel("m", api_key="k", disclosure="tool_search")
        >>> model.capabilities.declares_all_tools
        True
        """
        server_search = self.disclosure == "tool_search" and self.search in SEARCH_TOOLS
        return ModelCapabilities(
            declares_all_tools=self.disclosure in ("deferred", "tool_search"),
            search_tool=SEARCH_TOOLS[self.search]["name"] if server_search else None,
        )

    def _has_key(self, client: AsyncAnthropic) -> bool:
        """Whether the client found an API key, a token or other credentials."""
        found = (client.api_key, client.auth_token, getattr(client, "credentials", None))
        return any(value is not None for value in found)

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body of the request (``system`` and ``tools`` only if any).

        >>> AnthropicModel("m", api_key="k").request_body(
        ...     ModelRequest((UserMessage("hi"),)))
        {'model': 'm', 'max_tokens': 4096, 'messages': [{'role': 'user', 'content': 'hi'}]}
        """
        system, messages = to_anthropic_messages(request.messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": messages,
        }
        if system and self.cache_control:
            body["system"] = [{"type": "text", "text": system, "cache_control": dict(EPHEMERAL)}]
        elif system:
            body["system"] = system
        if self.disclosure == "deferred":
            body["messages"] = with_reveals(
                messages, request, beta_tool_changes=self.beta_tool_changes
            )
            declared = declared_tools(request)
            if declared:  # built once per catalogue: the same list while it holds
                deferred = self._deferred[bool(self.cache_control)]
                body["tools"] = deferred(declared, initially_visible(request))
        elif self.disclosure == "tool_search":
            plan = SearchPlan(request, self.search, messages, self._search_plan)
            body["messages"] = plan.messages(messages)
            cache = EPHEMERAL if self.cache_control else None
            tools = plan.tools(anthropic_tool, self.search, cache, self._search_deferred)
            if tools:
                body["tools"] = tools
        elif request.tools:
            body["tools"] = self._wire[bool(self.cache_control)](request.tools)
        if self.code_execution:  # see programmatic.py
            body["tools"] = anthropic_programmatic(body.get("tools", []))
            container = container_of(request.messages)
            if container is not None:
                body["container"] = container
        body.update(self.request_options)
        return body

    def _arguments(self, create: Any, body: dict[str, Any]) -> dict[str, Any]:
        arguments = sdk_arguments(create, body)
        if self.beta_tool_changes:
            headers = dict(arguments.get("extra_headers") or {})
            headers["anthropic-beta"] = TOOL_CHANGES_BETA
            arguments["extra_headers"] = headers
        return arguments

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send ``request`` and return the answer; raise ProviderError on failure.

        >>> import asyncio
        >>> model = AnthropicModel("claude-sonnet-4-6")  # doctest: +SKIP
        >>> request = ModelRequest((UserMessage("What is 2 + 3?"),))
        >>> asyncio.run(model.complete(request)).message.content  # doctest: +SKIP
        '5'
        """

        async def send(body: dict[str, Any]) -> AnthropicMessage:
            try:
                create = (await self._clients.acquire()).messages.with_raw_response.create
                raw = await create(**self._arguments(create, body))
            except self._sdk.AnthropicError as exc:
                raise self._failure(exc) from exc
            try:
                message: AnthropicMessage = await raw.parse()
            except (ValueError, RecursionError):  # a number or nesting past Python's limits
                message = self._sdk.types.Message.model_validate(lenient_loads(await raw.text()))
            return message

        return from_anthropic_message(await self._turn(send, request))

    async def _turn(
        self, send: Callable[[dict[str, Any]], Awaitable[AnthropicMessage]], request: ModelRequest
    ) -> AnthropicMessage:
        """The answer to ``request``; a turn the server paused (``pause_turn``, a long
        server tool turn) is sent back with what it said so far as the last assistant
        message, so the server goes on with it, at most MAX_CONTINUATIONS times; the
        answer is then the whole turn, its blocks in order (kept verbatim)."""
        body = self.request_body(request)
        message = await send(body)
        parts: list[AnthropicMessage] = []
        while message.stop_reason == "pause_turn" and len(parts) < MAX_CONTINUATIONS:
            parts.append(message)
            message = await send(continued(body, parts))
        return whole_turn([*parts, message]) if parts else message

    async def stream(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """Send ``request`` with the SDK's streaming helper: text deltas and calls go
        to ``sink`` as the events arrive; the answer is the message it puts together.

        >>> import asyncio
        >>> class Printing:
        ...     def text(self, delta: str) -> None:
        ...         print(delta, end="")
        ...     def call_started(self, call_id: str, name: str) -> None:
        ...         print(f"[{name}]")
        >>> model = AnthropicModel("claude-sonnet-4-6")  # doctest: +SKIP
        >>> request = ModelRequest((UserMessage("Count to three."),))
        >>> response = asyncio.run(model.stream(request, Printing()))  # doctest: +SKIP
        1, 2, 3.
        """

        async def send(body: dict[str, Any]) -> AnthropicMessage:
            try:
                stream = (await self._clients.acquire()).messages.stream
                async with stream(**self._arguments(stream, body)) as events:
                    async for event in events:
                        if event.type == "text":
                            sink.text(event.text)
                        elif event.type == "content_block_start":
                            block = event.content_block
                            if block.type == "tool_use":
                                sink.call_started(block.id, block.name)
                    message: AnthropicMessage = await events.get_final_message()
            except self._sdk.AnthropicError as exc:
                raise self._failure(exc) from exc
            return message

        return from_anthropic_message(await self._turn(send, request))
