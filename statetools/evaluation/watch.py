"""RecordingModel: a model seen from outside, one record per request it answered.

>>> import asyncio
>>> from statetools.models import ModelRequest, ScriptedModel, ToolDefinition
>>> watched = RecordingModel(ScriptedModel(["Hi."]))
>>> ping = ToolDefinition("ping", "Ping.", {"type": "object", "properties": {}})
>>> _ = asyncio.run(watched.complete(ModelRequest((), (ping,))))
>>> watched.requests[0].tools, watched.requests[0].tool_tokens
(('ping',), 28)
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from statetools.models.base import (
    Model,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    ToolDefinition,
)
from statetools.models.openai_chat import openai_tool
from statetools.review.tokens import array_tokens, wire_json

__all__ = ["RecordingModel", "RequestRecord", "ToolTokens"]


@attrs.frozen
class RequestRecord:
    """One request: the tools sent, their definitions' tokens, the usage reported, and
    the tools a provider's own search loaded while answering (``response.found``)."""

    tools: tuple[str, ...]
    tool_tokens: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    found: tuple[str, ...] = ()


class ToolTokens:
    """Tokens of a request's tool definitions (o200k, OpenAI wire form), each tool's
    text and each tool set counted once.

    >>> ToolTokens().count([])
    0
    """

    def __init__(self) -> None:
        self._texts: dict[int, tuple[ToolDefinition, str]] = {}
        """id of a definition -> (the definition, kept so the id stays its own; its text)"""
        self._sets: dict[tuple[str, ...], int] = {}

    def count(self, tools: Sequence[ToolDefinition]) -> int:
        """Tokens of the ``tools`` array holding ``tools``."""
        texts = []
        for tool in tools:
            known = self._texts.get(id(tool))
            if known is None:
                known = self._texts[id(tool)] = (tool, wire_json(openai_tool(tool)))
            texts.append(known[1])
        key = tuple(texts)
        counted = self._sets.get(key)
        if counted is None:
            counted = self._sets[key] = array_tokens(texts)
        return counted


class RecordingModel:
    """Passes every request to ``model`` and keeps a :class:`RequestRecord` of it (a
    request that failed is kept too, with no usage).

    >>> RecordingModel(st.models.ScriptedModel(["Hi."])).requests
    []
    """

    def __init__(self, model: Model, tokens: ToolTokens | None = None) -> None:
        self.model = model
        self.tokens = tokens or ToolTokens()
        self.requests: list[RequestRecord] = []

    @property
    def capabilities(self) -> ModelCapabilities:
        """The wrapped model's capabilities."""
        return self.model.capabilities

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer with the wrapped model, recording the request."""
        names = tuple(tool.name for tool in request.tools)
        tool_tokens = self.tokens.count(request.tools)
        try:
            response = await self.model.complete(request)
        except BaseException:
            self.requests.append(RequestRecord(names, tool_tokens))
            raise
        usage = response.usage
        self.requests.append(
            RequestRecord(
                names,
                tool_tokens,
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_input_tokens,
                tuple(response.found),
            )
        )
        return response
