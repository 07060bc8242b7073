"""What goes inside a facade, what lies below it, and the rules its contents follow.

:func:`inner_tool` turns an item given to a facade into its inner tool and
:func:`object_tools` lists the tools an object offers to one. A facade holds tools
and nested facades; a search facade also holds in-loop playbooks and state machines
(its *members*), whose tools are found by search. :func:`below` walks all of them at
any depth. When a facade is built, :func:`check_members` and
:func:`check_names` refuse contents it cannot hold.

By-category facades: tools grouped under categories, and the argument that picks one.
:meth:`UnfoldingTool.by_category <statetools.UnfoldingTool.by_category>` groups its
tools with :func:`grouped`; the facade checks its categories and derives its schema
(an enum of the categories) with :func:`check_categories` and :func:`category_schema`.

>>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
>>> trace = Tool.create("trace", "Trace the route", lambda: "3 hops")
>>> tools, pairs = grouped("net", {"check": [ping], "debug": [trace], None: [ping]}, as_tool)
>>> [tool.name for tool in tools], pairs
(['ping', 'trace'], [('check', ['ping']), ('debug', ['ping', 'trace'])])

>>> check_names("facade 'net'", ["ping", "trace", "ping"])
Traceback (most recent call last):
...
statetools.errors.DefinitionError: facade 'net': more than one inner tool is named ping ...
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

from statetools.definitions.agentic import agentic_from_definition
from statetools.definitions.search_index import SearchIndex, facade_paths, search_schema
from statetools.definitions.shared_definition import Definition
from statetools.errors import DefinitionError
from statetools.tools.decorators import (
    UnfoldingSpec,
    attribute_names,
    marked_methods,
    tool_from,
    unfolding_spec,
)
from statetools.tools.schema import InputSchema, Parameter
from statetools.tools.tool import BaseTool, Tool
from statetools.tools.typeschema import JsonSchema

if TYPE_CHECKING:
    from statetools.definitions.unfolding import UnfoldingTool

__all__ = [
    "Categories",
    "below",
    "categories_of",
    "category_schema",
    "check_categories",
    "check_members",
    "check_names",
    "grouped",
    "inner_tool",
    "member_tools",
    "object_tools",
    "settled",
    "unfolding_class",
    "with_added",
]


def below(
    facade: UnfoldingTool, is_facade: Callable[[BaseTool], TypeGuard[UnfoldingTool]]
) -> Iterator[BaseTool]:
    """Every tool below ``facade`` at any depth, in definition order (nested facades
    before their tools; in-loop playbooks' and machines' tools after the inner tools).
    ``is_facade`` tells which tools are facades to walk into.

    >>> inner = UnfoldingTool.of("u", "Open u", [Tool.create("a", "A", lambda: 1)])
    >>> outer = UnfoldingTool.of("t", "Open t", [inner])
    >>> [tool.name for tool in below(outer, lambda tool: isinstance(tool, UnfoldingTool))]
    ['u', 'a']
    """
    for tool in facade.inner:
        yield tool
        if is_facade(tool):
            yield from below(tool, is_facade)
    for member in facade.members:
        for tool in member_tools(member):
            yield tool
            if is_facade(tool):
                yield from below(tool, is_facade)


def member_tools(member: Any) -> list[BaseTool]:
    """The tools of an in-loop playbook or state machine inside a search facade.

    >>> [tool.name for tool in member_tools(PlaybookTool("p", "P").with_tools(Tool.create("a", "A", lambda: 1)))]
    ['a']
    """  # noqa: E501
    return list(member.tools)  # a Definition's tools


def check_members(where: str, members: Sequence[Any], searchable: bool) -> None:
    """Raise :class:`DefinitionError` when a facade that is not searched holds in-loop
    playbooks or state machines.

    >>> check_members("facade 'f'", [PlaybookTool("p", "P")], searchable=False)
    Traceback (most recent call last):
    ...
    statetools.errors.DefinitionError: facade 'f': only a search facade holds in-loop ...
    """
    if members and not searchable:
        raise DefinitionError(
            "only a search facade holds in-loop playbooks and state machines",
            path=where,
            hint="use UnfoldingTool.searchable(...), or give them a model",
        )


def check_names(where: str, names: Sequence[str]) -> None:
    """Raise :class:`DefinitionError` when two tools below a facade share a name.

    >>> check_names("facade 'f'", ["a", "b"])
    >>> check_names("facade 'f'", ["a", "b", "a"])
    Traceback (most recent call last):
    ...
    statetools.errors.DefinitionError: facade 'f': more than one inner tool is named a ...
    """
    seen: set[str] = set()
    twice: set[str] = set()
    for name in names:
        (twice if name in seen else seen).add(name)
    if twice:
        raise DefinitionError(
            f"more than one inner tool is named {', '.join(sorted(twice))}",
            path=where,
            hint="give every tool of a facade its own name",
        )


def settled(
    facade: UnfoldingTool, is_facade: Callable[[BaseTool], TypeGuard[UnfoldingTool]]
) -> tuple[JsonSchema | None, SearchIndex]:
    """Check a facade's contents as it is built; the schema its variant derives (None:
    it keeps its own) and its search index (empty but for a search facade).

    >>> facade = UnfoldingTool.by_category("f", "F", {"read": [Tool.create("a", "A", lambda: 1)]})
    >>> schema, index = settled(facade, lambda tool: isinstance(tool, UnfoldingTool))
    >>> schema["properties"]["category"]["enum"], index.tools
    (['read'], ())
    """
    where = f"facade '{facade.name}'"
    check_members(where, facade.members, searchable=facade.search is not None)
    everything = list(below(facade, is_facade)) if facade.search is not None else []
    names = [tool.name for tool in everything or facade.inner]
    check_names(where, names)
    schema = None
    if facade.category_parameter is not None:
        check_categories(where, facade.categories, names)
        schema = category_schema(facade.category_parameter, facade.categories)
    if facade.search is None:
        return schema, SearchIndex(())
    index = SearchIndex(
        everything,
        facade.search.ranker,
        paths=facade_paths(facade, is_facade),
        keywords=facade.search.keywords,
        vectors=facade.search.vectors,
        example_requests=facade.search.example_requests,
    )
    return search_schema(), index


def unfolding_class(obj: Any) -> UnfoldingSpec:
    """The spec of ``obj``'s ``@unfolding_tools`` class; a :class:`DefinitionError` when
    ``obj`` is not an instance of one.

    >>> unfolding_class(object())
    Traceback (most recent call last):
    ...
    statetools.errors.DefinitionError: <object object at ...> is not an instance of an @unfolding_tools class ...
    """  # noqa: E501
    spec = unfolding_spec(type(obj))
    if spec is None or isinstance(obj, type):
        raise DefinitionError(
            f"{obj!r} is not an instance of an @unfolding_tools class",
            hint="decorate the class with @unfolding_tools(name, description), or use "
            "UnfoldingTool.from_tool_object(obj, name, description)",
        )
    return spec


def inner_tool(item: Any, facade: Callable[[Any], BaseTool]) -> BaseTool:
    """``item`` as a facade's inner tool: tools and functions as with ``as_tool``
    (objects of ``@unfolding_tools`` classes become facades, built by ``facade``);
    playbooks and state machines that have a model become their agentic tool."""
    if isinstance(item, Definition):
        if item.agent.model is None:
            raise DefinitionError(
                f"'{item.name}' cannot go inside a facade without a model",
                path=f"'{item.name}'",
                hint="give it a model (.with_model(m)) to make it an agentic tool, or put "
                "the facade inside the playbook instead",
            )
        return agentic_from_definition(item)
    if not isinstance(item, BaseTool | type) and unfolding_spec(type(item)) is not None:
        return facade(item)
    return tool_from(item)


def object_tools(obj: Any, facade: Callable[[Any], BaseTool]) -> list[BaseTool]:
    """The tools of ``obj`` for a facade, in definition order: its ``@llm_tool`` methods,
    nested ``@unfolding_tools`` classes and attributes holding ``@unfolding_tools``
    objects (as facades, built by ``facade``). Without any of these: its public methods
    that have a docstring."""
    cls = type(obj)
    tools: list[BaseTool] = []
    marked = dict(marked_methods(cls))
    for attribute in attribute_names(cls):
        static = inspect.getattr_static(cls, attribute, None)
        if isinstance(static, type) and unfolding_spec(static) is not None:
            tools.append(facade(_instantiate(static, cls)))
        elif attribute in marked:
            tools.append(Tool.from_function(getattr(obj, attribute)))
    for value in getattr(obj, "__dict__", {}).values():
        if not isinstance(value, type) and unfolding_spec(type(value)) is not None:
            tools.append(facade(value))
    if not tools:
        tools = _public_methods(obj)
    if not tools:
        raise DefinitionError(
            f"{cls.__qualname__} offers no tools",
            path=cls.__qualname__,
            hint="mark the methods the model may call with @llm_tool('description')",
        )
    return tools


def _instantiate(nested: type, outer: type) -> Any:
    try:
        return nested()
    except TypeError as exc:
        raise DefinitionError(
            f"cannot create the nested facade {nested.__qualname__} without arguments: {exc}",
            path=outer.__qualname__,
            hint=f"give {outer.__qualname__} an attribute holding a {nested.__name__} "
            "object instead",
        ) from exc


def _public_methods(obj: Any) -> list[BaseTool]:
    tools: list[BaseTool] = []
    for attribute in attribute_names(type(obj)):
        if attribute.startswith("_"):
            continue
        member = getattr(obj, attribute, None)
        if inspect.ismethod(member) and inspect.getdoc(member):
            tools.append(Tool.from_function(member))
    return tools


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
