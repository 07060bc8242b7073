"""What the two OpenAI adapters share: building the client, the disclosure modes."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from statetools.errors import StatetoolsError
from statetools.models.base import ModelRequest

if TYPE_CHECKING:
    from openai import AsyncOpenAI

KEY_VARIABLE = "OPENAI_API_KEY"

OpenAIDisclosure = Literal["tools", "allowed_tools"]
OPENAI_DISCLOSURES: tuple[str, ...] = ("tools", "allowed_tools")


def client_builder(
    sdk: ModuleType,
    *,
    adapter: str,
    model: str,
    api_key: str | None,
    base_url: str | None,
    max_retries: int,
    timeout: float,
) -> Callable[[], AsyncOpenAI]:
    """A function making an ``AsyncOpenAI`` client, or failing with a hint on the key."""

    def build() -> AsyncOpenAI:
        try:
            made: AsyncOpenAI = sdk.AsyncOpenAI(
                api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
            )
        except sdk.OpenAIError as exc:
            raise StatetoolsError(
                f"no OpenAI API key for model {model!r}",
                path=adapter,
                hint=f"set the {KEY_VARIABLE} environment variable or pass api_key=...",
            ) from exc
        return made

    return build


def allowed_tools(
    request: ModelRequest, reference: Callable[[str], dict[str, Any]]
) -> dict[str, Any] | None:
    """The ``allowed_tools`` setting for exactly the request's visible tools (mode
    ``auto``), or None when no tool is visible. ``reference`` writes one tool's entry.

    >>> ping = st.models.ToolDefinition("ping", "Ping.", {})
    >>> allowed_tools(st.models.ModelRequest((), (ping,)), lambda name: {"name": name})
    {'mode': 'auto', 'tools': [{'name': 'ping'}]}
    """
    if not request.tools:
        return None
    return {"mode": "auto", "tools": [reference(tool.name) for tool in request.tools]}
