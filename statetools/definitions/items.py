"""What may stand where a tool goes: tools, functions, and objects of ``@unfolding_tools``
classes (which become one facade each)."""

from __future__ import annotations

from typing import Any

from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import DefinitionError
from statetools.tools.decorators import marked_methods, tool_from, unfolding_spec
from statetools.tools.tool import BaseTool, Tool


def _facade_of(obj: Any) -> BaseTool | None:
    """The facade of an instance of an ``@unfolding_tools`` class (None for anything else)."""
    if isinstance(obj, type) or unfolding_spec(type(obj)) is None:
        return None
    return UnfoldingTool.from_instance(obj)


def as_tool(obj: Any) -> BaseTool:
    """``obj`` as a tool: tools pass through; an object of an ``@unfolding_tools`` class
    becomes its facade; ``@llm_tool`` functions and plain functions (described by their
    docstring) are converted with ``Tool.from_function``.

    >>> def now() -> str:
    ...     '''The current time.'''
    ...     return "12:00"
    >>> as_tool(now).call().text
    '12:00'
    """
    if isinstance(obj, BaseTool):
        return obj
    facade = _facade_of(obj)
    if facade is not None:
        return facade
    return tool_from(obj)


def tools_from_instance(obj: Any) -> list[BaseTool]:
    """Tools for every ``@llm_tool`` method of ``obj``, bound to it, in definition order.

    Static and class methods are included. For an instance of an ``@unfolding_tools``
    class the list holds one :class:`~statetools.UnfoldingTool` instead. Raises
    :class:`~statetools.DefinitionError` when ``obj`` has no such method.

    >>> class Cart:
    ...     def __init__(self):
    ...         self.items = []
    ...     @llm_tool("Add an item to the cart")
    ...     def add(self, item: str) -> str:
    ...         self.items.append(item)
    ...         return f"{len(self.items)} items"
    ...     @llm_tool("Empty the cart")
    ...     def clear(self) -> str:
    ...         self.items.clear()
    ...         return "empty"
    >>> [t.name for t in tools_from_instance(Cart())]
    ['add', 'clear']
    """
    if isinstance(obj, type):
        raise DefinitionError(
            f"tools_from_instance needs an instance, got the class {obj.__qualname__}",
            hint=f"pass an object: tools_from_instance({obj.__qualname__}(...))",
        )
    facade = _facade_of(obj)
    if facade is not None:
        return [facade]
    cls = type(obj)
    tools: list[BaseTool] = [
        Tool.from_function(getattr(obj, attribute)) for attribute, _ in marked_methods(cls)
    ]
    if not tools:
        raise DefinitionError(
            f"{cls.__qualname__} has no @llm_tool methods",
            path=cls.__qualname__,
            hint="mark the methods the model may call with @llm_tool('description')",
        )
    return tools
