"""Collect the tools of a module or package: its ``@llm_tool`` functions, the marked
static and class methods of its classes, and the marked methods of objects it holds.

>>> [t.name for t in tools_from_module("statetools.definitions.scan", include=["nothing*"])]
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

from statetools.definitions.items import tools_from_instance
from statetools.errors import DefinitionError
from statetools.tools.decorators import marked_methods, tool_spec
from statetools.tools.tool import BaseTool, Tool

__all__ = ["tools_from_module"]


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
