"""What the two OpenAI adapters share: their base class and the disclosure modes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from statetools.models._provider import ProviderModel
from statetools.models.base import ModelRequest, ToolDefinition
from statetools.models.wire_cache import WireTools

if TYPE_CHECKING:
    from openai import AsyncOpenAI

KEY_VARIABLE = "OPENAI_API_KEY"

OpenAIDisclosure = Literal["tools", "allowed_tools", "tool_search", "stable_prefix"]
OPENAI_DISCLOSURES: tuple[str, ...] = ("tools", "allowed_tools")


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


class OpenAIModel(ProviderModel["AsyncOpenAI"]):
    """The base of the OpenAI adapters: the ``openai`` SDK, its API key and errors, the
    ``tools`` and ``allowed_tools`` disclosure modes, and its client.

    >>> OpenAIModel.NATIVE_DISCLOSURE, OpenAIModel.DISCLOSURES
    ('allowed_tools', ('tools', 'allowed_tools'))
    """

    SDK = EXTRA = PROVIDER = "openai"
    CLIENT, KEY_ERROR = "AsyncOpenAI", "OpenAIError"
    LABEL = "OpenAI"
    KEY_VARIABLE = KEY_VARIABLE
    DISCLOSURES = OPENAI_DISCLOSURES
    NATIVE_DISCLOSURE = "allowed_tools"

    WIRE_TOOL: ClassVar[Callable[[ToolDefinition], dict[str, Any]]]
    """One tool definition in the adapter's wire form."""

    disclosure: OpenAIDisclosure

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
        **request_options: Any,
    ) -> None:
        self._configure(
            model, timeout=timeout, disclosure=disclosure, request_options=request_options
        )
        self._wire_tools = WireTools(type(self).WIRE_TOOL)
        self._connect(
            client, api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )
