"""The Model protocol: what the tool loop needs of an LLM."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

from statetools.loop.messages import AssistantMessage, Message

StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "other"]


@attrs.frozen
class ToolDefinition:
    """A tool as the model sees it: name, description and input JSON schema."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@attrs.frozen
class Usage:
    """Token counts of one or more model calls. Adding two sums them."""

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
class ModelRequest:
    """Everything sent to the model in one call: the history and the visible tools.

    ``conversation`` counts restarts: it grows by one each time the loop starts the
    conversation again because a model without dynamic tools needs a new tool set
    (see ``ModelCapabilities.supports_dynamic_tools``).
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    conversation: int = 0

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools in this request, in the order they are sent."""
        return [tool.name for tool in self.tools]


@attrs.frozen
class ModelResponse:
    """The model's answer to one request."""

    message: AssistantMessage
    usage: Usage = Usage()
    stop_reason: StopReason = "end_turn"


@attrs.frozen
class ModelCapabilities:
    """What a model supports.

    ``supports_dynamic_tools``: the tool list may change between calls of one
    conversation. ``parallel_tool_calls``: it may ask for several calls at once.
    """

    supports_dynamic_tools: bool = True
    parallel_tool_calls: bool = True


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
