"""What lies below a facade, and the rules its contents follow.

A facade holds tools and nested facades; a search facade also holds in-loop playbooks
and state machines (its *members*), whose tools are found by search. :func:`below`
walks all of them at any depth. When a facade is built, :func:`check_members` and
:func:`check_names` refuse contents it cannot hold.

>>> check_names("facade 'net'", ["ping", "trace", "ping"])
Traceback (most recent call last):
...
statetools.errors.DefinitionError: facade 'net': more than one inner tool is named ping ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeGuard

from statetools.errors import DefinitionError
from statetools.tools.tool import BaseTool

__all__ = ["Contents", "below", "check_members", "check_names", "member_tools"]


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
