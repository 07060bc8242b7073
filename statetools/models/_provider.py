"""What the provider adapters share: loading the optional SDK, plain JSON, error hints,
clients per event loop and :class:`ProviderModel`, their common base."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import threading
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from functools import partial
from types import ModuleType
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from statetools.errors import ProviderError, StatetoolsError
from statetools.models.base import ModelCapabilities, ModelRequest, ToolDefinition

ClientT = TypeVar("ClientT", bound="Closable")


def require_sdk(module: str, extra: str, adapter: str) -> ModuleType:
    """Import an optional SDK, or raise a StatetoolsError saying how to install it.

    >>> require_sdk("json", "json", "Example").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise StatetoolsError(
            f"{adapter} needs the '{module}' package, which is not installed",
            path=adapter,
            hint=f"pip install statetools[{extra}]",
        ) from exc


def plain_json(value: Any) -> Any:
    """``value`` with every mapping turned into a dict and every sequence into a list.

    Schemas may be frozen mappings or tuples; the SDKs need plain JSON values.

    >>> plain_json({"a": ("x", "y")})
    {'a': ['x', 'y']}
    """
    if isinstance(value, Mapping):
        return {str(key): plain_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(item) for item in value]
    return value


def sdk_arguments(create: Callable[..., Any], body: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments for an SDK ``create`` method that put ``body`` on the wire.

    Keys the method does not take (``temperature`` in anthropic>=1, server-specific
    options of OpenAI-compatible servers) go through ``extra_body``, which the SDKs
    merge into the JSON body as is.

    >>> def create(*, model: str, extra_body: object = None) -> None: ...
    >>> sdk_arguments(create, {"model": "m", "temperature": 0})
    {'model': 'm', 'extra_body': {'temperature': 0}}
    """
    accepted = inspect.signature(create).parameters
    arguments: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in accepted and key != "extra_body":
            arguments[key] = value
        else:
            extra[key] = value
    given = body.get("extra_body")
    extra.pop("extra_body", None)
    if isinstance(given, Mapping):
        extra.update(given)
    if extra:
        arguments["extra_body"] = extra
    return arguments


def error_text(error: Exception) -> str:
    """The provider's own error message: ``body["message"]`` if the body has one.

    >>> class Failed(Exception):
    ...     body = {"message": "Rate limit reached", "type": "rate_limit"}
    >>> error_text(Failed("Error code: 429 - {...}"))
    'Rate limit reached'
    """
    body = getattr(error, "body", None)
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    if isinstance(body, Mapping) and isinstance(body.get("message"), str):
        return str(body["message"])
    return str(getattr(error, "message", None) or error)


def status_hint(status: int, key_variable: str) -> str:
    """What to do about an HTTP error status from a provider.

    >>> status_hint(401, "OPENAI_API_KEY")
    'check the API key (OPENAI_API_KEY)'
    """
    if status in (401, 403):
        return f"check the API key ({key_variable})"
    if status == 404:
        return "check the model name and base_url"
    if status == 429:
        return "the provider is rate limiting; raise max_retries or wait and run again"
    if status >= 500:
        return "the provider failed even after retries; run again later or raise max_retries"
    return "the provider rejected the request; check the model name and request options"


def provider_error(
    exc: Exception, sdk: ModuleType, *, label: str, where: str, timeout: float, key_variable: str
) -> ProviderError:
    """The ProviderError for an exception of an OpenAI-style SDK (openai, anthropic)."""
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError(
            f"{label} request timed out (timeout={timeout}s per attempt)",
            path=where,
            hint="raise timeout=..., or check that the server at base_url responds",
        )
    if isinstance(exc, sdk.APIStatusError):
        return ProviderError(
            f"{label} returned HTTP {exc.status_code}: {error_text(exc)}",
            status=exc.status_code,
            path=where,
            hint=status_hint(exc.status_code, key_variable),
        )
    if isinstance(exc, sdk.APIConnectionError):
        return ProviderError(
            f"cannot reach the {label} API: {exc.message}",
            path=where,
            hint="check base_url and the network",
        )
    return ProviderError(
        f"{label} request failed: {exc}",
        path=where,
        hint="check the request options and the server's response",
    )


def check_disclosure(disclosure: str, adapter: str, modes: Sequence[str]) -> None:
    """Raise a StatetoolsError naming the modes if ``disclosure`` is not one of them.

    >>> check_disclosure("tools", "OpenAIChatModel", ("tools", "allowed_tools"))
    """
    if disclosure not in modes:
        raise StatetoolsError(
            f"unknown disclosure mode {disclosure!r}",
            path=f"{adapter}(disclosure=...)",
            hint="use " + " or ".join(repr(mode) for mode in modes),
        )


def declared_tools(request: ModelRequest) -> tuple[ToolDefinition, ...]:
    """Every tool to declare: the request's catalogue, or its visible tools if it has
    none (a request made outside the loop)."""
    if request.catalogue is None:
        return request.tools
    return request.catalogue.tools


class Closable(Protocol):
    """An async SDK client: something with ``async close()``."""

    async def close(self) -> None:
        """Close the client's connections."""
        ...


async def _close_at_shutdown(
    client: Closable, forget: Callable[[], None]
) -> AsyncGenerator[None, None]:
    """Parked until the event loop shuts its async generators down, then closes."""
    try:
        yield
    finally:
        forget()
        await client.close()


class ClientPerLoop(Generic[ClientT]):
    """One SDK client per asyncio event loop, closed when that loop shuts down.

    An async HTTP client keeps connections tied to the event loop that opened them, and
    every ``ToolLoop.run`` starts (and ends) a loop of its own. So every event loop that
    uses a model gets a client of its own (safe from any number of threads at once),
    closed by that loop's shutdown (``asyncio.run`` finalizes async generators). A client
    given by the user is always used as is, and never closed here.

    >>> clients = ClientPerLoop(make_client, given=None)  # doctest: +SKIP
    >>> client = await clients.acquire()  # doctest: +SKIP
    """

    def __init__(self, build: Callable[[], ClientT], *, given: ClientT | None) -> None:
        self._build = build
        self._given = given
        self._lock = threading.Lock()
        self._latest: ClientT = given if given is not None else build()
        self._spare: ClientT | None = None if given is not None else self._latest
        """The client built up front (so a missing key fails early), for the first loop."""
        self._by_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[ClientT, AsyncGenerator[None, None]]
        ] = weakref.WeakKeyDictionary()

    @property
    def latest(self) -> ClientT:
        """The client given, or the one built last."""
        return self._latest

    @property
    def open_clients(self) -> int:
        """How many built clients are in use by event loops that have not shut down."""
        with self._lock:
            return len(self._by_loop)

    async def acquire(self) -> ClientT:
        """The client for the running event loop."""
        if self._given is not None:
            return self._given
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._by_loop.get(loop)
            if entry is not None:
                return entry[0]
            client, self._spare = self._spare or self._build(), None
            self._latest = client
            # the closer is kept here: the loop itself only holds it weakly
            closer = _close_at_shutdown(client, partial(self._forget, weakref.ref(loop), client))
            self._by_loop[loop] = (client, closer)
        await anext(closer)  # registers it with this loop's async generators
        return client

    def _forget(self, loop_ref: weakref.ref[asyncio.AbstractEventLoop], client: ClientT) -> None:
        loop = loop_ref()  # a weak reference: the entry must not keep its own key alive
        with self._lock:
            entry = None if loop is None else self._by_loop.get(loop)
            if loop is not None and entry is not None and entry[0] is client:
                del self._by_loop[loop]


class ProviderModel(Generic[ClientT]):
    """What the provider adapters share: their SDK, model name, timeout, disclosure
    mode and request options, one SDK client per event loop, their capabilities and the
    :class:`~statetools.ProviderError` an SDK exception becomes.

    A subclass names its SDK and provider in class attributes, calls :meth:`_configure`
    first in ``__init__`` and :meth:`_connect` (the SDK's own client class) or
    :meth:`_use_clients` last:

    >>> class Echo(ProviderModel[Any]):
    ...     ADAPTER, SDK, EXTRA, PROVIDER = "EchoModel", "json", "json", "echo"
    ...     DISCLOSURES, NATIVE_DISCLOSURE = ("tools", "all"), "all"
    ...     def __init__(self, model: str, disclosure: str = "tools") -> None:
    ...         self._configure(model, timeout=5.0, disclosure=disclosure, request_options={})
    ...         self._use_clients(lambda: None, client=None)
    >>> Echo("e1", disclosure="all").capabilities.declares_all_tools, Echo("e1").where
    (True, 'echo:e1')
    """

    ADAPTER: ClassVar[str]
    """The adapter's class name, as errors name it."""
    SDK: ClassVar[str]
    """The SDK's module, imported when an adapter is made."""
    EXTRA: ClassVar[str]
    """The extra that installs the SDK (``pip install statetools[EXTRA]``)."""
    PROVIDER: ClassVar[str]
    """The provider's prefix in model strings and error paths (``openai:MODEL``)."""
    LABEL: ClassVar[str] = ""
    """The provider's name in error messages."""
    KEY_VARIABLE: ClassVar[str] = ""
    """The environment variable the SDK reads the API key from."""
    DISCLOSURES: ClassVar[tuple[str, ...]]
    """The disclosure modes the adapter has."""
    NATIVE_DISCLOSURE: ClassVar[str]
    """The mode in which the adapter declares every tool (``ModelRequest.catalogue``)."""
    CLIENT: ClassVar[str] = ""
    """The SDK's async client class, which :meth:`_connect` makes (``AsyncOpenAI``)."""
    KEY_ERROR: ClassVar[str | None] = None
    """The SDK's exception its client raises when it finds no API key, if it does."""

    model: str
    timeout: float
    request_options: Mapping[str, Any]
    _sdk: ModuleType
    _clients: ClientPerLoop[ClientT]

    def _configure(
        self,
        model: str,
        *,
        timeout: float,
        disclosure: str,
        request_options: Mapping[str, Any],
    ) -> ModuleType:
        """Import the SDK (or say which extra installs it), check ``disclosure`` and
        keep the options; returns the SDK module."""
        self._sdk = require_sdk(self.SDK, self.EXTRA, self.ADAPTER)
        check_disclosure(disclosure, self.ADAPTER, self.DISCLOSURES)
        self.model = model
        self.timeout = timeout
        self.disclosure = disclosure
        self.request_options = dict(request_options)
        return self._sdk

    def _use_clients(self, build: Callable[[], ClientT], *, client: ClientT | None) -> None:
        """Use ``client`` as is, or clients made by ``build``, one per event loop (the
        first is made now, so a missing key fails here)."""
        self._clients = ClientPerLoop(build, given=client)

    def _connect(
        self,
        client: ClientT | None,
        *,
        api_key: str | None,
        base_url: str | None,
        max_retries: int,
        timeout: float,
    ) -> None:
        """Use ``client`` as is, or clients of the SDK's ``CLIENT`` class made from the
        options, one per event loop; a client without a key fails with a hint."""
        sdk = self._sdk
        missing = getattr(sdk, self.KEY_ERROR) if self.KEY_ERROR else ()

        def build() -> ClientT:
            try:
                made: ClientT = getattr(sdk, self.CLIENT)(
                    api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
                )
            except missing as exc:
                raise self._no_key() from exc
            if not self._has_key(made):
                raise self._no_key()
            return made

        self._use_clients(build, client=client)

    def _has_key(self, client: ClientT) -> bool:
        """Whether a client made by :meth:`_connect` found credentials."""
        return True

    def _no_key(self) -> StatetoolsError:
        return StatetoolsError(
            f"no {self.LABEL} API key for model {self.model!r}",
            path=self.ADAPTER,
            hint=f"set the {self.KEY_VARIABLE} environment variable or pass api_key=...",
        )

    @property
    def capabilities(self) -> ModelCapabilities:
        """Tools may change between calls; several calls may come in one response."""
        return ModelCapabilities(
            supports_dynamic_tools=True,
            parallel_tool_calls=True,
            declares_all_tools=self.disclosure == self.NATIVE_DISCLOSURE,
        )

    @property
    def client(self) -> ClientT:
        """The SDK client: the one given, or the one built last."""
        return self._clients.latest

    @property
    def where(self) -> str:
        """The model as a model string, the path of its errors (``openai:gpt-4o-mini``)."""
        return f"{self.PROVIDER}:{self.model}"

    def _failure(self, exc: Exception) -> ProviderError:
        """The ProviderError for an exception the SDK raised."""
        return provider_error(
            exc,
            self._sdk,
            label=self.LABEL,
            where=self.where,
            timeout=self.timeout,
            key_variable=self.KEY_VARIABLE,
        )
