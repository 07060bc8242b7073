"""Tools that wrap other tools, and how to find the tool inside.

A wrapper changes how a tool behaves (limits, logging, retries, renaming) while the
wrapped tool stays reachable through ``delegate``. :func:`unwrap` follows that chain
to the innermost tool, which is what analysis and the disclosure graph look at.

Ready-made wrappers: :class:`OneShotPerLoopTool` (runs once per run) and
:class:`ArtifactSinkingTool` (hands returned values to a sink: :class:`ListSink`,
:class:`CompositeSink`, :class:`BlackboardSink`, in :mod:`statetools.tools.sinks`).
Every wrapper passes the call's :class:`~statetools.ToolCallContext` on to the tool
it wraps.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Protocol, Self, runtime_checkable

import attrs

from statetools.errors import DefinitionError
from statetools.tools.calling import ToolResult, failure
from statetools.tools.context import RUN_ID_KEY, ToolCallContext
from statetools.tools.decorators import tool_from
from statetools.tools.sinks import ArtifactSink as ArtifactSink
from statetools.tools.sinks import BlackboardSink as BlackboardSink
from statetools.tools.sinks import CompositeSink as CompositeSink
from statetools.tools.sinks import ListSink as ListSink
from statetools.tools.tool import Arguments, BaseTool, Context


@runtime_checkable
class DelegatingTool(Protocol):
    """Anything with a ``delegate`` attribute holding the tool it wraps.

    A Protocol because users write wrappers of their own: any class with ``delegate``
    is one, and :func:`unwrap` checks it at run time.

    >>> inner = Tool.create("ping", "Ping", lambda: "pong")
    >>> isinstance(WrapperTool.around(inner), DelegatingTool)
    True
    >>> isinstance(inner, DelegatingTool)
    False
    """

    @property
    def delegate(self) -> BaseTool:
        """The wrapped tool.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> WrapperTool.around(ping).delegate is ping
        True
        """
        ...


def _delegate_of(tool: object) -> BaseTool | None:
    if not isinstance(tool, DelegatingTool):
        return None
    inner: Any = tool.delegate
    return inner if isinstance(inner, BaseTool) else None


def delegation_chain(tool: BaseTool) -> tuple[BaseTool, ...]:
    """``tool`` and every tool it wraps, outermost first.

    Raises :class:`~statetools.DefinitionError` if the chain comes back to a tool
    already in it.

    >>> inner = Tool.create("ping", "Ping", lambda: "pong")
    >>> [type(t).__name__ for t in delegation_chain(WrapperTool.around(inner))]
    ['WrapperTool', 'Tool']
    """
    chain = [tool]
    seen = {id(tool)}
    inner = _delegate_of(tool)
    while inner is not None:
        if id(inner) in seen:
            raise DefinitionError(
                "the chain of wrapped tools loops back on itself",
                path=f"tool '{tool.name}'",
                hint="a wrapper's delegate must not be the wrapper or one of its wrappers",
            )
        seen.add(id(inner))
        chain.append(inner)
        inner = _delegate_of(inner)
    return tuple(chain)


def unwrap(tool: BaseTool) -> BaseTool:
    """The innermost tool behind any number of wrappers (``tool`` itself if unwrapped).

    >>> inner = Tool.create("ping", "Ping", lambda: "pong")
    >>> unwrap(WrapperTool.around(WrapperTool.around(inner))) is inner
    True
    """
    return delegation_chain(tool)[-1]


def _check_delegate(_instance: object, _attribute: object, value: Any) -> None:
    if not isinstance(value, BaseTool):
        raise DefinitionError(
            f"a wrapper's delegate must be a tool, got {value!r}",
            hint="wrap a Tool, e.g. Tool.from_function(fn)",
        )


@attrs.frozen(kw_only=True)
class WrapperTool(BaseTool):
    """Base class for wrappers: it shows the model what it is given and, unless a
    subclass overrides :meth:`acall`, passes every call to ``delegate``.

    Create one with :meth:`around`, which copies the delegate's name, description,
    schema and metadata (pass keywords to change them).

    >>> inner = Tool.create("ping", "Ping", lambda: "pong")
    >>> wrapper = WrapperTool.around(inner, description="Check the link")
    >>> wrapper.name, wrapper.description, wrapper.call().text
    ('ping', 'Check the link', 'pong')
    """

    delegate: BaseTool = attrs.field(validator=_check_delegate)

    @classmethod
    def around(cls, delegate: BaseTool, **changes: Any) -> Self:
        """A wrapper of ``delegate`` that looks like it, apart from ``changes``.

        Subclasses take their own fields through ``changes`` too.


        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> wrapper = WrapperTool.around(ping, name="check_link")
        >>> wrapper.name, wrapper.description, unwrap(wrapper) is ping
        ('check_link', 'Ping', True)
        """
        _check_delegate(None, None, delegate)
        return cls(delegate=delegate, **_wrapper_fields(delegate, changes))

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the wrapped tool.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> import asyncio
        >>> asyncio.run(WrapperTool.around(ping).acall({})).text
        'pong'
        """
        return await self.delegate.acall(arguments, context)

    def call(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run synchronously; a plain pass-through wrapper uses the delegate's ``call``.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> WrapperTool.around(ping).call().text
        'pong'
        """
        if type(self).acall is WrapperTool.acall:
            return self.delegate.call(arguments, context)
        return super().call(arguments, context)


DEFAULT_ADVICE = "Use that result instead of calling it again."


def already_loaded_message(name: str, advice: str) -> str:
    """What a :class:`OneShotPerLoopTool` answers to a second call in the same run.

    >>> already_loaded_message("load_guide", "Follow the guide above.")
    "ALREADY LOADED: 'load_guide' already ran in this conversation; its result is above. Follow the guide above."
    """  # noqa: E501
    return (
        f"ALREADY LOADED: '{name}' already ran in this conversation; its result is above. {advice}"
    )


class _RunMemory:
    """The ids of the newest runs in which a tool ran (bounded, oldest forgotten)."""

    def __init__(self, size: int = 1024) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._size = size

    def __contains__(self, run_id: object) -> bool:
        return run_id in self._ids

    def add(self, run_id: str) -> None:
        self._ids[run_id] = None
        self._ids.move_to_end(run_id)
        while len(self._ids) > self._size:
            self._ids.popitem(last=False)


def _wrapper_fields(delegate: BaseTool, fields: dict[str, Any]) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": delegate.name,
        "description": delegate.description,
        "input_schema": delegate.input_schema,
        "metadata": delegate.metadata,
    }
    base.update(fields)
    return base


def _run_id(context: Context) -> str | None:
    if not isinstance(context, Mapping):
        return None
    value = context.get(RUN_ID_KEY)
    return None if value is None else str(value)


@attrs.frozen(kw_only=True, init=False)
class OneShotPerLoopTool(WrapperTool):
    """A tool that runs once per run: a second call in the same run gets the exact
    "ALREADY LOADED" text (with ``advice``) instead of running again. Good for tools
    that load instructions or a large document into the conversation.

    The loop puts a fresh run id into every run's context, so nothing needs setting
    up; called outside a run (no run id), the tool always runs.

    >>> guide = OneShotPerLoopTool(Tool.create("load_guide", "Load the guide", lambda: "Step 1..."),
    ...                            "Follow the guide above.")
    >>> guide.call(context={"statetools.run_id": "r1"}).text
    'Step 1...'
    >>> guide.call(context={"statetools.run_id": "r1"}).text
    "ALREADY LOADED: 'load_guide' already ran in this conversation; its result is above. Follow the guide above."
    >>> guide.call(context={"statetools.run_id": "r2"}).text
    'Step 1...'
    """  # noqa: E501

    advice: str = DEFAULT_ADVICE
    _runs: _RunMemory = attrs.field(init=False, factory=_RunMemory, eq=False, repr=False)

    def __init__(
        self,
        tool: Any = None,
        advice: str = DEFAULT_ADVICE,
        *,
        delegate: Any = None,
        **fields: Any,
    ) -> None:
        inner = tool_from(delegate if delegate is not None else tool)
        self.__attrs_init__(delegate=inner, advice=advice, **_wrapper_fields(inner, fields))

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the tool, unless it already ran (successfully) in this run.

        >>> import asyncio
        >>> guide = OneShotPerLoopTool(Tool.create("guide", "Load the guide", lambda: "Step 1"))
        >>> run = {"statetools.run_id": "r1"}
        >>> [asyncio.run(guide.acall({}, run)).text[:14] for _ in range(2)]
        ['Step 1', 'ALREADY LOADED']
        """
        run_id = _run_id(context)
        if run_id is not None and run_id in self._runs:
            return ToolResult.text(already_loaded_message(self.name, self.advice))
        result = await self.delegate.acall(arguments, context)
        if run_id is not None and not result.is_error:
            self._runs.add(run_id)
        return result


@attrs.frozen(kw_only=True, init=False)
class ArtifactSinkingTool(WrapperTool):
    """Runs its tool and puts the value of each successful result into ``sink``; the
    model sees the result unchanged.

    With ``type``, only values of that type are sunk (items of a returned list or tuple
    one by one); ``filter`` keeps values for which it is true; ``transform`` changes a
    value before it is sunk.

    >>> sink = ListSink()
    >>> find = Tool.create("find", "Find numbers", lambda: [1, 2, 30])
    >>> big = ArtifactSinkingTool(find, sink, type=int, filter=lambda n: n > 1, transform=str)
    >>> big.call().text, sink.items
    ('[1, 2, 30]', ['2', '30'])
    """

    sink: ArtifactSink
    artifact_type: type | None = attrs.field(default=None, alias="type")
    filter: Callable[[Any], bool] | None = None
    transform: Callable[[Any], Any] | None = None

    def __init__(
        self,
        tool: Any = None,
        sink: ArtifactSink | None = None,
        type: type | None = None,
        filter: Callable[[Any], bool] | None = None,
        transform: Callable[[Any], Any] | None = None,
        *,
        delegate: Any = None,
        **fields: Any,
    ) -> None:
        inner = tool_from(delegate if delegate is not None else tool)
        if sink is None or not isinstance(sink, ArtifactSink):
            raise DefinitionError(
                f"ArtifactSinkingTool needs a sink, got {sink!r}",
                path=f"tool '{inner.name}'",
                hint="pass ListSink(), BlackboardSink() or an object with put(value, context)",
            )
        self.__attrs_init__(
            delegate=inner,
            sink=sink,
            type=type,
            filter=filter,
            transform=transform,
            **_wrapper_fields(inner, fields),
        )

    def _values(self, value: Any) -> list[Any]:
        if self.artifact_type is None:
            values = [value]
        else:
            items = value if isinstance(value, list | tuple) else [value]
            values = [item for item in items if isinstance(item, self.artifact_type)]
        return [v for v in values if self.filter is None or self.filter(v)]

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the tool, then sink the matching values of a successful result.

        >>> import asyncio
        >>> sink = ListSink()
        >>> find = Tool.create("find", "Find", lambda: [1, "a", 2])
        >>> find = ArtifactSinkingTool(find, sink, type=int)
        >>> asyncio.run(find.acall({})).text, sink.items
        ('[1, "a", 2]', [1, 2])
        """
        result = await self.delegate.acall(arguments, context)
        if result.is_error or not result.has_value:
            return result
        call_context = (
            context if isinstance(context, ToolCallContext) else ToolCallContext(context or {})
        )
        try:
            for value in self._values(result.value):
                self.sink.put(self.transform(value) if self.transform else value, call_context)
        except Exception as exc:
            return failure(self.name, exc)
        return result
