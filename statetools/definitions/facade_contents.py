"""What goes inside a facade, what lies below it, and the rules its contents follow.

:func:`inner_tool` turns an item given to a facade into its inner tool and
:func:`object_tools` lists the tools an object offers to one. A facade holds tools
and nested facades; a search facade also holds in-loop playbooks and state machines
(its *members*), whose tools are found by search. :func:`below` walks all of them at
any depth. When a facade is built, :func:`check_members` and
:func:`check_names` refuse contents it cannot hold.

>>> check_names("facade 'net'", ["ping", "trace", "ping"])
Traceback (most recent call last):
...
statetools.errors.DefinitionError: facade 'net': more than one inner tool is named ping ...
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeGuard

from statetools.definitions.agentic import agentic_from_definition
from statetools.definitions.shared_definition import Definition
from statetools.errors import DefinitionError
from statetools.tools.decorators import attribute_names, marked_methods, tool_from, unfolding_spec
from statetools.tools.tool import BaseTool, Tool

__all__ = [
    "Contents",
    "below",
    "check_members",
    "check_names",
    "inner_tool",
    "member_tools",
    "object_tools",
]


class Contents(Protocol):
    """What :func:`below` reads of a facade: its inner tools and its members.

    >>> isinstance(UnfoldingTool.of("t", "Open t", []).inner, tuple)
    True
    """

    @property
    def inner(self) -> tuple[BaseTool, ...]:
        """The tools (and nested facades) the facade opens."""
        ...

    @property
    def members(self) -> tuple[Any, ...]:
        """The in-loop playbooks and state machines of a search facade."""
        ...


def below(
    facade: Contents, is_facade: Callable[[BaseTool], TypeGuard[Contents]]
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
