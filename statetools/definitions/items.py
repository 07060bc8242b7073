"""What may stand where a tool goes (tools, functions, and objects of ``@unfolding_tools``
classes, which become one facade each), and the tools collected from an object or a
module: its ``@llm_tool`` functions, the marked static and class methods of its
classes, and the marked methods of objects it holds.

>>> [t.name for t in tools_from_module("statetools.definitions.items", include=["nothing*"])]
[]
"""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import pkgutil
import types
from collections.abc import Iterable, Iterator
from typing import Any

from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import DefinitionError
from statetools.tools.decorators import marked_methods, tool_from, tool_spec, unfolding_spec
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


def _modules(module: types.ModuleType) -> Iterator[types.ModuleType]:
    yield module
    path = getattr(module, "__path__", None)
    if path is None:
        return
    for info in sorted(pkgutil.walk_packages(path, prefix=f"{module.__name__}."), key=_name):
        yield importlib.import_module(info.name)


def _name(info: pkgutil.ModuleInfo) -> str:
    return info.name


def _static_methods(cls: type) -> list[BaseTool]:
    tools: list[BaseTool] = []
    for attribute, _ in marked_methods(cls):
        static = inspect.getattr_static(cls, attribute)
        if isinstance(static, staticmethod | classmethod):
            tools.append(Tool.from_function(getattr(cls, attribute)))
    return tools


def _module_tools(module: types.ModuleType, package: str) -> Iterator[BaseTool]:
    for value in list(vars(module).values()):
        owner = getattr(value, "__module__", None)
        if inspect.isfunction(value):
            if owner == module.__name__ and tool_spec(value) is not None:
                yield Tool.from_function(value)
        elif isinstance(value, type):
            if owner == module.__name__:
                yield from _static_methods(value)
        elif (
            not isinstance(value, types.ModuleType)
            and _from(type(value), package)
            and next(marked_methods(type(value)), None) is not None
        ):
            yield from tools_from_instance(value)


def _from(cls: type, package: str) -> bool:
    module = cls.__module__
    return module == package or module.startswith(f"{package}.")


def _matches(name: str, patterns: Iterable[str] | None) -> bool:
    return patterns is not None and any(fnmatch.fnmatchcase(name, p) for p in patterns)


def tools_from_module(
    module: types.ModuleType | str,
    *,
    include: Iterable[str] | None = None,
    exclude: Iterable[str] | None = None,
) -> list[BaseTool]:
    """The tools a module (or, for a package, it and every module below it) defines:
    ``@llm_tool`` functions; ``@llm_tool`` static and class methods of its classes;
    the ``@llm_tool`` methods of objects it holds whose class comes from the same
    package (a class whose methods need an instance gives tools only through one).
    ``include`` / ``exclude`` are tool names or shell-style patterns (``"get_*"``).
    Modules in definition order, packages' modules by name.

    >>> import types
    >>> tools_module = types.ModuleType("shop_tools")
    >>> exec('''
    ... import statetools as st
    ... @st.llm_tool("Search the catalogue")
    ... def search(query: str) -> str:
    ...     return "3 hits"
    ... @st.llm_tool("Remove an item")
    ... def remove_item(item: str) -> str:
    ...     return "removed"
    ... ''', tools_module.__dict__)
    >>> [t.name for t in tools_from_module(tools_module, exclude=["remove_*"])]
    ['search']
    """
    if isinstance(module, str):
        dotted = module
        try:
            module = importlib.import_module(dotted)
        except ImportError as exc:
            raise DefinitionError(
                f"cannot import module '{dotted}': {exc}",
                path=dotted,
                hint="pass an importable dotted name, or the module object",
            ) from exc
    package = module.__name__.partition(".")[0]
    include = None if include is None else list(include)
    exclude = list(exclude or ())
    tools: dict[str, BaseTool] = {}
    for each in _modules(module):
        for tool in _module_tools(each, package):
            if include is not None and not _matches(tool.name, include):
                continue
            if _matches(tool.name, exclude):
                continue
            existing = tools.setdefault(tool.name, tool)
            if existing is not tool and not _same(existing, tool):
                raise DefinitionError(
                    f"two tools are named '{tool.name}'",
                    path=each.__name__,
                    hint="give them different names with @llm_tool(..., name=...), or exclude one",
                )
    return list(tools.values())


def _same(first: BaseTool, second: BaseTool) -> bool:
    """Whether two tools run the same function (an object held by two modules)."""
    handler: Any = getattr(first, "handler", None)
    return handler is not None and bool(handler == getattr(second, "handler", None))
