"""resolve(): a model from a short string such as ``"openai:gpt-4o-mini"``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from statetools.errors import StatetoolsError
from statetools.models.anthropic_messages import AnthropicModel
from statetools.models.base import Model
from statetools.models.openai_chat import OpenAIChatModel
from statetools.models.openai_responses import OpenAIResponsesModel
from statetools.models.scripted import ScriptedModel

FORMS = "'openai:MODEL', 'openai-chat:MODEL', 'anthropic:MODEL' or 'scripted:PATH.yaml'"
ADAPTERS: dict[str, Callable[..., Model]] = {
    "openai": OpenAIResponsesModel,
    "openai-chat": OpenAIChatModel,
    "anthropic": AnthropicModel,
}
"""Provider prefixes and the adapters they make (``scripted:`` is handled apart)."""
PROVIDERS = (*ADAPTERS, "scripted")
"""The providers a model string may name (``PROVIDER:NAME``)."""


def parse(spec: str) -> tuple[str, str]:
    """The provider and the name of a model string, checked without making the model
    (no client, no key needed).

    >>> parse("OpenAI: gpt-4o-mini")
    ('openai', 'gpt-4o-mini')
    """
    provider, colon, name = spec.partition(":")
    provider, name = provider.strip().lower(), name.strip()
    if not colon or not name:
        raise StatetoolsError(
            f"invalid model {spec!r}: expected PROVIDER:NAME",
            path="model",
            hint=f"write {FORMS}",
        )
    if provider not in PROVIDERS:
        raise StatetoolsError(
            f"unknown model provider {provider!r} in {spec!r}",
            path="model",
            hint=f"write {FORMS}",
        )
    return provider, name


def resolve(spec: str | Model, **options: Any) -> Model:
    """The model a string names; a Model is returned unchanged.

    ``"openai:MODEL"`` gives an :class:`OpenAIResponsesModel` (the Responses API),
    ``"openai-chat:MODEL"`` an :class:`OpenAIChatModel` (Chat Completions, also for
    OpenAI-compatible servers), ``"anthropic:MODEL"`` an :class:`AnthropicModel`
    (``options`` go to their constructors), and ``"scripted:PATH.yaml"`` a
    :class:`ScriptedModel` read with ``from_yaml``.

    >>> resolve("openai:gpt-4o-mini", api_key="sk-test").model
    'gpt-4o-mini'
    """
    if not isinstance(spec, str):
        if isinstance(spec, Model):
            return spec
        raise StatetoolsError(
            f"cannot make a model from {type(spec).__name__}",
            path="model",
            hint=f"pass a Model or a string such as {FORMS}",
        )
    provider, name = parse(spec)
    make = ADAPTERS.get(provider)
    if make is not None:
        return make(name, **options)
    if provider == "scripted":
        if options:
            raise StatetoolsError(
                f"a scripted model takes no options (got {', '.join(sorted(options))})",
                path="model",
            )
        return ScriptedModel.from_yaml(name)
    raise StatetoolsError(
        f"unknown model provider {provider!r} in {spec!r}",
        path="model",
        hint=f"write {FORMS}",
    )
