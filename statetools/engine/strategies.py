"""Injection strategies: add or remove tools in reaction to a tool call."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from statetools.blackboard import Blackboard
from statetools.messages import Message, ToolCall
from statetools.tools.calling import ToolResult
from statetools.tools.tool import BaseTool


def _tools(tools: Iterable[BaseTool]) -> tuple[BaseTool, ...]:
    return tuple(tools)


def _names(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(names)


@attrs.frozen
class Injection:
    """Tools to add and names of tools to remove. Removals are applied first.

    >>> Injection(remove=["search"]).then(Injection(remove=["browse"])).remove
    ('search', 'browse')
    >>> bool(Injection())
    False
    """

    add: tuple[BaseTool, ...] = attrs.field(default=(), converter=_tools)
    remove: tuple[str, ...] = attrs.field(default=(), converter=_names)

    def __bool__(self) -> bool:
        return bool(self.add or self.remove)

    def then(self, other: Injection) -> Injection:
        """This injection followed by ``other``.

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> Injection(add=(ping,)).then(Injection(remove=("search",)))
        Injection(add=(Tool(name='ping', ...),), remove=('search',))
        """
        return Injection(add=self.add + other.add, remove=self.remove + other.remove)


@attrs.frozen
class InjectionContext:
    """What a strategy sees after a tool call.

    >>> call = ToolCall("call_1", "search", {"query": "tides"})
    >>> context = InjectionContext((), (), call, ToolResult.text("found"), 1, Blackboard())
    >>> context.arguments, context.result.text
    ({'query': 'tides'}, 'found')
    """

    messages: tuple[Message, ...]
    tools: tuple[BaseTool, ...]
    call: ToolCall
    result: ToolResult
    iteration: int
    blackboard: Blackboard

    @property
    def arguments(self) -> Mapping[str, Any]:
        """The arguments of the call that just ran.

        >>> call = ToolCall("call_1", "search", {"query": "tides"})
        >>> context = InjectionContext((), (), call, ToolResult.text("found"), 1, Blackboard())
        >>> context.arguments
        {'query': 'tides'}
        """
        return self.call.arguments


@runtime_checkable
class ToolInjectionStrategy(Protocol):
    """Decides, after every executed tool call, which tools to add or remove.

    A Protocol because it is an extension point: users write their own strategies.

    A strategy that adds tools may also have a ``tool(name) -> BaseTool | None``
    method: a resumed run asks it for the tools it had added (they are saved by name).

    >>> class AddHelpAfterError:
    ...     def evaluate(self, context: InjectionContext) -> Injection | None:
    ...         return Injection(add=[help_tool]) if context.result.is_error else None
    """

    def evaluate(self, context: InjectionContext) -> Injection | None:
        """The change to make, or None for no change.

        >>> class RemoveAfterSearch:
        ...     def evaluate(self, context: InjectionContext) -> Injection | None:
        ...         return Injection(remove=("search",)) if context.call.name == "search" else None
        >>> isinstance(RemoveAfterSearch(), ToolInjectionStrategy)
        True
        """
        ...


class ChainedStrategy:
    """Several strategies, asked in order; their injections are combined.

    >>> class Drop:
    ...     def __init__(self, name: str) -> None:
    ...         self.name = name
    ...     def evaluate(self, context: InjectionContext) -> Injection | None:
    ...         return Injection(remove=[self.name])
    >>> call, result = ToolCall("call_1", "search"), ToolResult.text("found")
    >>> context = InjectionContext((), (), call, result, 1, Blackboard())
    >>> ChainedStrategy(Drop("search"), Drop("browse")).evaluate(context)
    Injection(add=(), remove=('search', 'browse'))
    """

    def __init__(self, *strategies: ToolInjectionStrategy) -> None:
        self.strategies: tuple[ToolInjectionStrategy, ...] = strategies

    def evaluate(self, context: InjectionContext) -> Injection | None:
        """The combination of every strategy's injection (None when none changes anything).

        >>> call = ToolCall("call_1", "search", {"query": "tides"})
        >>> context = InjectionContext((), (), call, ToolResult.text("found"), 1, Blackboard())
        >>> class Remove:
        ...     def __init__(self, name: str) -> None:
        ...         self.name = name
        ...     def evaluate(self, context: InjectionContext) -> Injection | None:
        ...         return Injection(remove=(self.name,))
        >>> ChainedStrategy(Remove("a"), Remove("b")).evaluate(context).remove
        ('a', 'b')
        """
        combined = Injection()
        for strategy in self.strategies:
            injection = strategy.evaluate(context)
            if injection:
                combined = combined.then(injection)
        return combined or None


def restored_tool(strategies: Sequence[Any], name: str) -> BaseTool | None:
    """The tool named ``name`` that one of ``strategies`` injected, for a resumed run:
    asked of each strategy that has a ``tool(name)`` method (None when none gives it).

    >>> class AddHelp:
    ...     def evaluate(self, context):
    ...         return None
    ...     def tool(self, name):
    ...         return Tool.create("help", "Help", lambda: "ok") if name == "help" else None
    >>> restored_tool([AddHelp()], "help").name, restored_tool([AddHelp()], "other")
    ('help', None)
    """
    for strategy in strategies:
        inner = strategy.strategies if isinstance(strategy, ChainedStrategy) else None
        found = restored_tool(inner, name) if inner is not None else None
        method = getattr(strategy, "tool", None)
        if found is None and callable(method):
            found = method(name)
        if isinstance(found, BaseTool):
            return found
    return None


def chain(strategies: Sequence[ToolInjectionStrategy]) -> ToolInjectionStrategy | None:
    """One strategy for a sequence of them (None for none)."""
    if not strategies:
        return None
    return strategies[0] if len(strategies) == 1 else ChainedStrategy(*strategies)
