"""Tools that wrap other tools, and how to find the tool inside.

A wrapper changes how a tool behaves (limits, logging, retries, renaming) while the
wrapped tool stays reachable through ``delegate``. :func:`unwrap` follows that chain
to the innermost tool, which is what analysis and the disclosure graph look at.
"""

from __future__ import annotations

from typing import Any, Protocol, Self, runtime_checkable

import attrs

from statetools.errors import DefinitionError
from statetools.tools.result import ToolResult
from statetools.tools.tool import Arguments, BaseTool, Context


@runtime_checkable
class DelegatingTool(Protocol):
    """Anything with a ``delegate`` attribute holding the tool it wraps.

    >>> inner = Tool.create("ping", "Ping", lambda: "pong")
    >>> isinstance(WrapperTool.around(inner), DelegatingTool)
    True
    >>> isinstance(inner, DelegatingTool)
    False
    """

    @property
    def delegate(self) -> BaseTool:
        """The wrapped tool."""
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
        """
        _check_delegate(None, None, delegate)
        fields: dict[str, Any] = {
            "name": delegate.name,
            "description": delegate.description,
            "input_schema": delegate.input_schema,
            "metadata": delegate.metadata,
        }
        fields.update(changes)
        return cls(delegate=delegate, **fields)

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the wrapped tool."""
        return await self.delegate.acall(arguments, context)

    def call(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run synchronously; a plain pass-through wrapper uses the delegate's ``call``."""
        if type(self).acall is WrapperTool.acall:
            return self.delegate.call(arguments, context)
        return super().call(arguments, context)
