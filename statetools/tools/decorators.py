"""``@llm_tool`` for functions and methods, and tools from an object's methods."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from statetools.errors import DefinitionError
from statetools.tools.tool import BaseTool, Tool, ToolMetadata

F = TypeVar("F", bound=Callable[..., Any])

MARKER = "__llm_tool__"


@attrs.frozen
class LlmToolSpec:
    """What ``@llm_tool`` recorded about a function or method."""

    description: str
    name: str | None = None
    category: str | None = None
    return_direct: bool = False


def llm_tool(
    description: str,
    *,
    name: str | None = None,
    category: str | None = None,
    return_direct: bool = False,
) -> Callable[[F], F]:
    """Mark a function or method as a tool. The function stays callable as before.

    Pass marked functions straight to ``tools=[...]`` (they become tools there) or use
    :func:`tools_from_instance` for the methods of an object.

    >>> @llm_tool("Add two numbers")
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> as_tool(add).name
    'add'
    """

    def mark(fn: F) -> F:
        if not callable(fn):
            raise DefinitionError(f"@llm_tool needs a function, got {fn!r}")
        setattr(fn, MARKER, LlmToolSpec(description, name, category, return_direct))
        return fn

    return mark


def tool_spec(obj: Any) -> LlmToolSpec | None:
    """The ``@llm_tool`` spec of a function or bound method, if it has one."""
    spec = getattr(obj, MARKER, None)
    return spec if isinstance(spec, LlmToolSpec) else None


def _tool_from_marked(fn: Callable[..., Any], spec: LlmToolSpec) -> Tool:
    return Tool.from_function(
        fn,
        name=spec.name,
        description=spec.description,
        metadata=ToolMetadata(return_direct=spec.return_direct, category=spec.category),
    )


def as_tool(obj: Any) -> BaseTool:
    """``obj`` as a tool: tools pass through; ``@llm_tool`` functions are converted."""
    if isinstance(obj, BaseTool):
        return obj
    spec = tool_spec(obj)
    if spec is not None:
        return _tool_from_marked(obj, spec)
    raise DefinitionError(
        f"{obj!r} is not a tool",
        hint="pass Tool objects, @llm_tool functions, or Tool.from_function(fn)",
    )


def tools_from_instance(obj: Any) -> list[BaseTool]:
    """Tools for every ``@llm_tool`` method of ``obj``, bound to that instance.

    >>> class Cart:
    ...     def __init__(self): self.items = []
    ...     @llm_tool("Add an item")
    ...     def add(self, item: str) -> str:
    ...         self.items.append(item); return "ok"
    >>> [t.name for t in tools_from_instance(Cart())]
    ['add']
    """
    tools: list[BaseTool] = []
    for attribute, member in inspect.getmembers_static(type(obj)):
        function = member.__func__ if isinstance(member, staticmethod | classmethod) else member
        spec = tool_spec(function)
        if spec is None:
            continue
        bound = getattr(obj, attribute)
        tools.append(_tool_from_marked(bound, spec))
    return tools
