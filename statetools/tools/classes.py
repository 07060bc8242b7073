"""Class decorators: ``@unfolding_tools`` (a class as one facade) and ``@tool_provider``
(objects whose methods become tools when a tool returns them).

Both only record a spec on the class; :class:`~statetools.UnfoldingTool` and the
scheduler's entity discovery read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar, overload

import attrs

from statetools.errors import DefinitionError
from statetools.tools.decorators import marked_methods
from statetools.tools.tool import check_tool_name

C = TypeVar("C", bound=type)

UNFOLDING_MARKER = "__unfolding_tools__"
PROVIDER_MARKER = "__tool_provider__"
_PREFIX = re.compile(r"^[a-zA-Z0-9_-]{0,40}$")


@attrs.frozen
class UnfoldingSpec:
    """What ``@unfolding_tools`` recorded about a class."""

    name: str
    description: str
    usage_notes: str | None = None
    exclusive: bool = False


@attrs.frozen
class ProviderSpec:
    """What ``@tool_provider`` recorded about a class."""

    prefix: str
    id_attribute: str


def _check_class(cls: Any, decorator: str) -> None:
    if not isinstance(cls, type):
        raise DefinitionError(f"@{decorator} decorates classes, not {cls!r}")


def unfolding_tools(
    name: str, description: str, *, usage_notes: str | None = None, exclusive: bool = False
) -> Callable[[C], C]:
    """Make instances of the class one facade: ``tools_from_instance(obj)`` (and
    ``UnfoldingTool.from_instance(obj)``) give a single tool that unfolds into the
    ``@llm_tool`` methods. Nested decorated classes (or attributes holding decorated
    objects) become nested facades; ``@llm_tool(category=...)`` gives a by-category
    facade.

    >>> @unfolding_tools("notes", "Open the note tools")
    ... class Notes:
    ...     @llm_tool("Add a note")
    ...     def add(self, text: str) -> str:
    ...         return "added"
    >>> [t.name for t in tools_from_instance(Notes())]
    ['notes']
    """
    check_tool_name(name)
    if not isinstance(description, str) or not description.strip():
        raise DefinitionError(
            "a facade needs a description",
            path=f"@unfolding_tools('{name}')",
            hint="say in one sentence which tools it opens",
        )
    spec = UnfoldingSpec(name, description, usage_notes, exclusive)

    def mark(cls: C) -> C:
        _check_class(cls, "unfolding_tools")
        setattr(cls, UNFOLDING_MARKER, spec)
        return cls

    return mark


def unfolding_spec(cls: type) -> UnfoldingSpec | None:
    """The ``@unfolding_tools`` spec of a class (inherited by subclasses), if any.

    >>> unfolding_spec(int) is None
    True
    """
    spec = getattr(cls, UNFOLDING_MARKER, None)
    return spec if isinstance(spec, UnfoldingSpec) else None


@overload
def tool_provider(prefix: C, /) -> C: ...


@overload
def tool_provider(prefix: str = "", id_attribute: str = "id") -> Callable[[C], C]: ...


def tool_provider(prefix: Any = "", id_attribute: str = "id") -> Any:
    """Entity discovery: whenever a tool returns instances of the class (one object, or
    inside a list or tuple), each instance's ``@llm_tool`` methods become tools named
    ``{prefix}_{id}_{method}``. ``prefix`` defaults to the lowercase class name; ``id``
    is the instance's ``id_attribute``.

    >>> @tool_provider(prefix="customer")
    ... class Customer:
    ...     def __init__(self, id: str) -> None:
    ...         self.id = id
    ...     @llm_tool("The customer's recent orders")
    ...     def recent_orders(self) -> list[str]:
    ...         return []
    >>> provider_spec(Customer)
    ProviderSpec(prefix='customer', id_attribute='id')
    """
    if isinstance(prefix, type):
        return tool_provider()(prefix)
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise DefinitionError(
            f"invalid tool_provider prefix {prefix!r}",
            hint="use up to 40 characters from a-z, A-Z, 0-9, '_' and '-'",
        )
    if not isinstance(id_attribute, str) or not id_attribute.isidentifier():
        raise DefinitionError(f"invalid id_attribute {id_attribute!r}", hint="name an attribute")

    def mark(cls: C) -> C:
        _check_class(cls, "tool_provider")
        if next(marked_methods(cls), None) is None:
            raise DefinitionError(
                f"{cls.__qualname__} has no @llm_tool methods",
                path=f"@tool_provider {cls.__qualname__}",
                hint="mark the methods the model may call with @llm_tool('description')",
            )
        setattr(cls, PROVIDER_MARKER, ProviderSpec(prefix or cls.__name__.lower(), id_attribute))
        return cls

    return mark


def provider_spec(cls: type) -> ProviderSpec | None:
    """The ``@tool_provider`` spec of a class, if any.

    >>> provider_spec(str) is None
    True
    """
    spec = getattr(cls, PROVIDER_MARKER, None)
    return spec if isinstance(spec, ProviderSpec) else None
