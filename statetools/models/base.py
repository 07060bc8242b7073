"""The Model protocol: what the tool loop needs of an LLM."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol, runtime_checkable

import attrs

from statetools.messages import AssistantMessage, Message
from statetools.tools.fields import ToolDefinition as ToolDefinition

StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "other"]
"""Why the model stopped: each adapter maps its provider's reasons onto these five.

>>> ModelResponse(AssistantMessage("Cut short"), stop_reason="max_tokens").stop_reason
'max_tokens'
"""


@attrs.frozen
class Usage:
    """Token counts of one or more model calls. Adding two sums them.

    ``input_tokens`` counts every input token, cached ones included;
    ``cached_input_tokens`` those read from the provider's prompt cache.

    >>> Usage(100, 20, cached_input_tokens=80) + Usage(50, 10)
    Usage(input_tokens=150, output_tokens=30, cached_input_tokens=80)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
        )


@attrs.frozen
class ToolChange:
    """The tools that became visible (``added``) or stopped being visible
    (``removed``) with one tool result.

    >>> ToolChange(added=("open_ticket",))
    ToolChange(added=('open_ticket',), removed=())
    """

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


@attrs.frozen
class ToolCatalogue:
    """Every tool the design can show in a run, for adapters that declare them all.

    ``tools`` keeps a stable order: the registered tools in registration order, then
    tools that appeared at run time (chaining, discovery, injections) in the order they
    appeared (``run_time`` names those). ``initial`` names the tools visible in the
    first request; ``changes``
    says, by tool call id, which tools each tool result showed or hid (changes seen at
    the start of a turn count for the latest tool result). ``searchable`` names every
    search facade of the design (``Facade.searchable``) with the tools below it that
    its search may open now (none while the facade is locked; a tool a condition, a
    state or an exclusive facade keeps locked is left out). ``still_callable`` names the
    facades of the first request that are not visible now but may still be called (one
    that unfolded: called again, it lists its tools). The loop fills it in when
    ``ModelCapabilities.declares_all_tools`` is set.

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> ToolCatalogue((ping,), ("ping",)).names
    ['ping']
    """

    tools: tuple[ToolDefinition, ...]
    initial: tuple[str, ...] = ()
    changes: Mapping[str, ToolChange] = attrs.field(factory=dict)
    run_time: tuple[str, ...] = ()
    searchable: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    still_callable: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        """Names of every tool, in the catalogue's order."""
        return [tool.name for tool in self.tools]


@attrs.frozen
class ToolNamespace:
    """A group of deferred tools a model can search and load (a facade, in a model's
    ``tool_search`` mode): its ``name`` and ``description``, and the ``tools`` a search
    may load now (locked ones are left out).

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> ToolNamespace("net", "Network tools", (ping,)).names
    ['ping']
    """

    name: str
    description: str
    tools: tuple[ToolDefinition, ...] = ()

    @property
    def names(self) -> list[str]:
        """Names of the namespace's tools, in order.

        >>> ToolNamespace("net", "Network tools").names
        []
        """
        return [tool.name for tool in self.tools]


@attrs.frozen
class SearchSpace:
    """What a model that searches deferred tools needs (``ModelCapabilities.searches_tools``).

    ``namespaces``: the groups to declare now, in the design's order, each with the
    tools a search may load (the run's own search tool, ``search_tool``, loads them);
    ``home``: the namespace of every tool that sits in one, and ``descriptions`` the
    description of every namespace, both fixed for a run (a search answered earlier is
    written again from them, the same way in every request).

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> space = SearchSpace((ToolNamespace("net", "Network tools", (ping,)),), {"ping": "net"})
    >>> space.home["ping"], space.search_tool
    ('net', 'tool_search')
    """

    namespaces: tuple[ToolNamespace, ...] = ()
    home: Mapping[str, str] = attrs.field(factory=dict)
    descriptions: Mapping[str, str] = attrs.field(factory=dict)
    search_tool: str = "tool_search"


@attrs.frozen
class ModelRequest:
    """Everything sent to the model in one call: the history and the visible tools.

    ``conversation`` counts restarts: it grows by one each time the loop starts the
    conversation again because a model without dynamic tools needs a new tool set
    (see ``ModelCapabilities.supports_dynamic_tools``). ``catalogue`` is set for a
    model that declares every tool and restricts them by other means (see
    :class:`ToolCatalogue`); ``search`` for a model that searches deferred tools itself
    (see :class:`SearchSpace`).

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> ModelRequest((UserMessage("Ping the server."),), (ping,)).tool_names
    ['ping']
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    conversation: int = 0
    catalogue: ToolCatalogue | None = None
    search: SearchSpace | None = None

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools in this request, in the order they are sent."""
        return [tool.name for tool in self.tools]


@attrs.frozen
class ModelResponse:
    """The model's answer to one request.

    ``found`` names the tools a provider's own tool search loaded while answering
    (Anthropic's server-side tool search): the loop opens them as the design's search
    facade would have, so calls of them in this answer run (locks still hold).

    >>> call = ToolCall("call_1", "ping", {})
    >>> response = ModelResponse(AssistantMessage(tool_calls=[call]), stop_reason="tool_use")
    >>> [call.name for call in response.message.tool_calls], response.usage.input_tokens
    (['ping'], 0)
    """

    message: AssistantMessage
    usage: Usage = Usage()
    stop_reason: StopReason = "end_turn"
    found: tuple[str, ...] = ()


@attrs.frozen
class ModelCapabilities:
    """What a model supports.

    ``supports_dynamic_tools``: the tool list may change between calls of one
    conversation. ``parallel_tool_calls``: it may ask for several calls at once.
    ``declares_all_tools``: the model wants ``ModelRequest.catalogue`` (every tool
    the design can show), as the provider-native disclosure modes do.
    ``searches_tools``: the model searches deferred tools itself (OpenAI's
    ``tool_search``): the run adds its search tool (``tool_search``), which loads the
    facades' tools, and fills ``ModelRequest.search``. ``search_tool``: the name of
    the provider's own search tool that stands in for the design's search facades
    (Anthropic's server-side search); a call of a tool it could load but has not is
    told to search with it.

    >>> capabilities = ModelCapabilities(parallel_tool_calls=False)
    >>> capabilities.supports_dynamic_tools, capabilities.parallel_tool_calls
    (True, False)
    """

    supports_dynamic_tools: bool = True
    parallel_tool_calls: bool = True
    declares_all_tools: bool = False
    searches_tools: bool = False
    search_tool: str | None = None


@runtime_checkable
class Model(Protocol):
    """An LLM the loop can talk to. Implement ``complete`` and ``capabilities``.

    >>> class Echo:
    ...     capabilities = ModelCapabilities()
    ...     async def complete(self, request: ModelRequest) -> ModelResponse:
    ...         return ModelResponse(AssistantMessage(request.messages[-1].content))
    """

    @property
    def capabilities(self) -> ModelCapabilities:
        """What this model supports."""
        ...

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer one request; raise ProviderError when the provider fails."""
        ...


class StreamSink(Protocol):
    """Where a streaming model reports what it receives, as it receives it.

    The loop passes one to :meth:`StreamingModel.stream`; a sink of your own, for
    an adapter's tests, can print what arrives:

    >>> class Printing:
    ...     def text(self, delta: str) -> None:
    ...         print("text", repr(delta))
    ...     def call_started(self, call_id: str, name: str) -> None:
    ...         print("call", call_id, name)
    >>> sink: StreamSink = Printing()
    >>> sink.text("Hel"); sink.call_started("call_1", "search")
    text 'Hel'
    call call_1 search
    """

    def text(self, delta: str) -> None:
        """A piece of the answer's text."""
        ...

    def call_started(self, call_id: str, name: str) -> None:
        """A tool call whose name is known (its arguments may still be arriving)."""
        ...


@runtime_checkable
class StreamingModel(Model, Protocol):
    """A model that can stream: ``stream`` reports text and calls to ``sink`` as they
    arrive and returns the same response ``complete`` would.

    >>> isinstance(st.models.ScriptedModel(["hi"]), StreamingModel)  # answers in one piece
    False
    """

    async def stream(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """Answer one request, streaming; raise ProviderError when the provider fails."""
        ...
