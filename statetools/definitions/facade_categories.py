"""By-category facades: tools grouped under categories, and the argument that picks one.

:meth:`UnfoldingTool.by_category <statetools.UnfoldingTool.by_category>` groups its
tools with :func:`grouped`; the facade checks its categories and derives its schema
(an enum of the categories) with :func:`check_categories` and :func:`category_schema`.

>>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
>>> trace = Tool.create("trace", "Trace the route", lambda: "3 hops")
>>> tools, pairs = grouped("net", {"check": [ping], "debug": [trace], None: [ping]}, as_tool)
>>> [tool.name for tool in tools], pairs
(['ping', 'trace'], [('check', ['ping']), ('debug', ['ping', 'trace'])])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from statetools.errors import DefinitionError
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import BaseTool
from statetools.tools.typeschema import JsonSchema

__all__ = [
    "Categories",
    "categories_of",
    "category_schema",
    "check_categories",
    "grouped",
    "with_added",
]

Categories = tuple[tuple[str, tuple[str, ...]], ...]
"""``(category, inner tool names)`` pairs, in order.

>>> categories_of({"read": ["ls"], "write": ["rm", "mv"]}.items())
(('read', ('ls',)), ('write', ('rm', 'mv')))
"""


def categories_of(value: Iterable[tuple[str, Iterable[str]]]) -> Categories:
    """``value`` as :data:`Categories` (the converter of ``UnfoldingTool.categories``).

    >>> categories_of([("read", ["ls"])])
    (('read', ('ls',)),)
    """
    return tuple((str(category), tuple(names)) for category, names in value)


def grouped(
    facade: str,
    categories: Mapping[str | None, Iterable[Any]],
    as_tool: Callable[[Any], BaseTool],
) -> tuple[list[BaseTool], list[tuple[str, list[str]]]]:
    """The distinct tools of ``categories`` (each item made a tool by ``as_tool``) and
    each category's tool names in tool order; tools under the key ``None`` belong to
    every category. Two different tools of one name are a :class:`DefinitionError`.

    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> grouped("net", {"check": [ping]}, as_tool)[1]
    [('check', ['ping'])]
    """
    tools: dict[str, BaseTool] = {}
    members: dict[str, list[str]] = {}
    everywhere: list[str] = []
    for category, items in categories.items():
        for item in items:
            tool = as_tool(item)
            if tools.setdefault(tool.name, tool) != tool:
                raise DefinitionError(
                    f"two different tools are named '{tool.name}'", path=f"facade '{facade}'"
                )
            if category is None:
                everywhere.append(tool.name)
            else:
                members.setdefault(category, []).append(tool.name)
        if category is not None:
            members.setdefault(category, [])
    pairs = [(c, _ordered(tools, [*names, *everywhere])) for c, names in members.items()]
    return list(tools.values()), pairs


def with_added(categories: Categories, added: Iterable[BaseTool]) -> dict[str, list[str]]:
    """``categories`` with ``added`` tools: each joins the category of its
    ``metadata.category`` (a new category if needed), or every category when it has none.

    >>> rm = Tool.create("rm", "Remove a file", lambda: "ok", metadata={"category": "write"})
    >>> with_added((("read", ("ls",)),), [rm])
    {'read': ['ls'], 'write': ['rm']}
    """
    pairs = {category: list(names) for category, names in categories}
    for tool in added:
        category = tool.metadata.category
        targets = [category] if category else list(pairs)
        for target in targets:
            pairs.setdefault(target, []).append(tool.name)
    return pairs


def check_categories(where: str, categories: Categories, names: Iterable[str]) -> None:
    """Raise :class:`DefinitionError` unless there is a category and every category
    lists only tools of the facade (``names``).

    >>> check_categories("facade 'files'", (("read", ("cat",)),), ["ls"])
    Traceback (most recent call last):
    ...
    statetools.errors.DefinitionError: facade 'files': category 'read' names unknown tools: cat ...
    """
    if not categories:
        raise DefinitionError("a by-category facade needs at least one category", path=where)
    known = list(names)
    for category, members in categories:
        unknown = [n for n in members if n not in known]
        if unknown:
            raise DefinitionError(
                f"category '{category}' names unknown tools: {', '.join(unknown)}",
                path=where,
                hint="list only tools of the facade",
            )


def category_schema(parameter: str, categories: Categories) -> JsonSchema:
    """The schema of a by-category facade: ``parameter``, one of the categories.

    >>> category_schema("area", (("read", ()), ("write", ())))["properties"]["area"]["enum"]
    ['read', 'write']
    """
    return InputSchema.of(
        Parameter.string(
            parameter, "Which tools to open", enum=[category for category, _ in categories]
        )
    )


def _ordered(tools: Mapping[str, BaseTool], names: Iterable[str]) -> list[str]:
    wanted = set(names)
    return [name for name in tools if name in wanted]
