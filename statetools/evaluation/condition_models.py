"""The model each condition of an evaluation runs with: the provider-native conditions
(each design run with the provider's own disclosure mode: OpenAI's and Anthropic's
``tool_search``, Anthropic's ``deferred``, OpenAI's ``allowed_tools``) next to the same
design in statetools' default mode, and :class:`RecordingModel`, the model seen from
outside, one record per request it answered.

>>> native_modes("openai:gpt-5.4")
('tool_search', 'allowed_tools')
>>> native_name("desk", "tool_search")
'desk+tool_search'
>>> import asyncio
>>> from statetools.models import ModelRequest, ScriptedModel, ToolDefinition
>>> watched = RecordingModel(ScriptedModel(["Hi."]))
>>> ping = ToolDefinition("ping", "Ping.", {"type": "object", "properties": {}})
>>> _ = asyncio.run(watched.complete(ModelRequest((), (ping,))))
>>> watched.requests[0].tools, watched.requests[0].tool_tokens
(('ping',), 28)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from statetools.engine.tool_search import TOOL_SEARCH
from statetools.errors import StatetoolsError
from statetools.models.base import (
    Model,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    ToolDefinition,
)
from statetools.models.openai_chat import openai_tool
from statetools.review.tokens import array_tokens, wire_json

if TYPE_CHECKING:
    from statetools.evaluation.task_runs import EvalCondition

__all__ = [
    "NATIVE_MODES",
    "NativeLike",
    "RecordingModel",
    "RequestRecord",
    "ToolTokens",
    "native_model",
    "native_modes",
    "native_name",
    "native_twins",
]

NATIVE_MODES: dict[str, tuple[str, ...]] = {
    "openai": ("tool_search", "allowed_tools"),
    "anthropic": ("tool_search", "deferred"),
    "openai-chat": ("allowed_tools",),
}
"""Per model-string provider, the provider's own disclosure modes (the first one is what
``native=True`` picks). ``stable_prefix`` is statetools' own mode, not a provider's.

>>> NATIVE_MODES["anthropic"][0]
'tool_search'
"""

NativeLike = bool | str | Model | None
"""What ``evaluate(native=...)`` takes: True (the provider's first native mode), a mode's
name, a model already made with a native mode, or None/False (no native conditions).

>>> native_name("search", "deferred")
'search+deferred'
"""

_WHERE = "evaluate(native=...)"


_PROVIDERS = "use openai:MODEL (Responses API) or anthropic:MODEL, or leave --native off"


def native_name(design: str, mode: str) -> str:
    """The condition name of ``design`` run in the provider's ``mode``.

    >>> native_name("machine", "allowed_tools")
    'machine+allowed_tools'
    """
    return f"{design}+{mode}"


def native_modes(model: str, options: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """The native modes the model string ``model`` (with its ``options``) can run; a
    model no provider-native mode can run is refused with what to use instead.

    >>> native_modes("openai-chat:qwen", {"base_url": "http://127.0.0.1:8080/v1"})
    Traceback (most recent call last):
    statetools.errors.StatetoolsError: evaluate(native=...): ...
    """
    from statetools.models.model_strings import parse

    provider, _ = parse(model)
    base_url = (options or {}).get("base_url")
    if provider == "openai-chat" and base_url:
        raise StatetoolsError(
            f"{model!r} at {base_url} is an OpenAI-compatible server: it cannot run a "
            "provider's own disclosure modes (tool_search, deferred, allowed_tools)",
            path=_WHERE,
            hint=_PROVIDERS,
        )
    if provider not in NATIVE_MODES:
        raise StatetoolsError(
            f"{model!r} has no provider-native disclosure mode", path=_WHERE, hint=_PROVIDERS
        )
    return NATIVE_MODES[provider]


def native_model(
    native: NativeLike, model: Model | str, options: Mapping[str, Any]
) -> tuple[Model, str] | None:
    """The model of the native conditions and its mode, for ``evaluate(native=...)``:
    None when ``native`` is None or False.

    >>> native_model(None, "openai:gpt-5.4", {}) is None
    True
    """
    if native is None or native is False:
        return None
    if isinstance(native, Model):
        mode = getattr(native, "disclosure", None)
        if not any(mode in modes for modes in NATIVE_MODES.values()):
            raise StatetoolsError(
                f"the native model {type(native).__name__} runs disclosure={mode!r}, "
                "not a provider-native mode",
                path=_WHERE,
                hint="make it with disclosure='tool_search' (OpenAIResponsesModel, "
                "AnthropicModel), 'deferred' (AnthropicModel) or 'allowed_tools' (OpenAI)",
            )
        return native, str(mode)
    if not isinstance(model, str):
        raise StatetoolsError(
            f"native={native!r} needs a model string to make the native model from, "
            f"not a {type(model).__name__}",
            path=_WHERE,
            hint="pass the native model itself: native=st.models.OpenAIResponsesModel(NAME, "
            "disclosure='tool_search')",
        )
    modes = native_modes(model, options)
    mode = modes[0] if native is True else str(native)
    if mode not in modes:
        raise StatetoolsError(
            f"{model!r} cannot run the disclosure mode {mode!r}",
            path=_WHERE,
            hint=f"use one of: {', '.join(modes)}",
        )
    from statetools.models.model_strings import resolve

    return resolve(model, disclosure=mode, **options), mode


def native_twins(
    conditions: Sequence[EvalCondition],
    designs: Mapping[str, Any],
    native: tuple[Model, str],
) -> list[EvalCondition]:
    """For each design's condition (an ``EvalCondition``; not flat, which ``designs``
    maps to None), its twin run by the native model, named ``DESIGN+MODE``; its calls
    of ``tool_search`` count as searches.

    >>> from statetools.evaluation.task_runs import EvalCondition
    >>> model = st.models.ScriptedModel([])
    >>> [c.name for c in native_twins([EvalCondition("desk", ())], {"desk": []},
    ...                               (model, "tool_search"))]
    ['desk+tool_search']
    """
    model, mode = native
    twins = [
        attrs.evolve(
            condition,
            name=native_name(condition.name, mode),
            searching=condition.searching | {TOOL_SEARCH},
            model=model,
        )
        for condition in conditions
        if designs.get(condition.name) is not None
    ]
    if not twins:
        raise StatetoolsError(
            "the native conditions run the designs in the provider's own mode, and there "
            "is no design",
            path=_WHERE,
            hint="pass designs={'NAME': 'design.yaml'} (statetools eval: --design NAME=FILE)",
        )
    taken = {condition.name for condition in conditions}
    clash = next((twin.name for twin in twins if twin.name in taken), None)
    if clash is not None:
        raise StatetoolsError(
            f"the condition name {clash!r} is used twice (the native twin of a design is "
            "named DESIGN+MODE)",
            path=_WHERE,
            hint="rename that design",
        )
    return twins


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
