"""The decorators: ``@llm_tool`` for functions and methods (and tools made from them),
``@unfolding_tools`` (a class as one facade) and ``@tool_provider`` (objects whose
methods become tools when a tool returns them).

The class decorators only record a spec on the class; :class:`~statetools.UnfoldingTool`
and the scheduler's entity discovery read it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, overload

import attrs

from statetools.errors import DefinitionError
from statetools.tools.descriptions import description_of
from statetools.tools.foreign import foreign_tool
from statetools.tools.tool import BaseTool, Tool, ToolMetadata, check_timeout, check_tool_name

F = TypeVar("F", bound=Callable[..., Any])

MARKER = "__llm_tool__"


@attrs.frozen
class LlmToolSpec:
    """What ``@llm_tool`` recorded about a function or method."""

    description: str | None = None
    name: str | None = None
    category: str | None = None
    return_direct: bool = False
    timeout: float | None = None
    on_loop_thread: bool = False

    def metadata(self) -> ToolMetadata:
        """The metadata of the tools made from the marked function."""
        return ToolMetadata(
            return_direct=self.return_direct,
            category=self.category,
            timeout=self.timeout,
            on_loop_thread=self.on_loop_thread,
        )


@overload
def llm_tool(description: F, /) -> F: ...


@overload
def llm_tool(
    description: str | None = None,
    *,
    name: str | None = None,
    category: str | None = None,
    return_direct: bool = False,
    timeout: float | None = None,
    on_loop_thread: bool = False,
) -> Callable[[F], F]: ...


def llm_tool(
    description: str | Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    category: str | None = None,
    return_direct: bool = False,
    timeout: float | None = None,
    on_loop_thread: bool = False,
) -> Any:
    """Mark a function, method or staticmethod as a tool; it stays callable as before.

    Without a description the docstring's first paragraph is used; bare ``@llm_tool``
    works too. Pass marked functions straight to ``tools=[...]`` (they become tools
    there), convert them with :func:`as_tool`, or use :func:`tools_from_instance` for
    the methods of an object. ``timeout`` and ``on_loop_thread`` go into the tool's
    :class:`~statetools.ToolMetadata`.

    >>> @llm_tool("Add two numbers", category="math")
    ... def add(a: int, b: int) -> int:
    ...     return a + b
    >>> add(1, 2), as_tool(add).name, as_tool(add).metadata.category
    (3, 'add', 'math')
    """
    if callable(description):
        return llm_tool()(description)
    if name is not None:
        check_tool_name(name)
    where = f"tool '{name}'" if name else "@llm_tool"
    spec = LlmToolSpec(
        description, name, category, return_direct, check_timeout(timeout, where), on_loop_thread
    )

    def mark(fn: F) -> F:
        target = fn.__func__ if isinstance(fn, staticmethod | classmethod) else fn
        if not callable(target):
            raise DefinitionError(f"@llm_tool marks functions and methods, not {fn!r}")
        check_tool_name(name or getattr(target, "__name__", None))
        if spec.description is None and not description_of(target):
            raise DefinitionError(
                "tool has no description",
                path=f"tool '{name or target.__name__}'",
                hint="pass @llm_tool('what it does') or write a docstring",
            )
        setattr(target, MARKER, spec)
        return fn

    return mark


def tool_spec(obj: Any) -> LlmToolSpec | None:
    """The ``@llm_tool`` spec of a function, method or static/class method, if it has one.

    >>> tool_spec(len) is None
    True
    """
    if isinstance(obj, staticmethod | classmethod):
        obj = obj.__func__
    spec = getattr(obj, MARKER, None)
    return spec if isinstance(spec, LlmToolSpec) else None


def _first_parameter(fn: Callable[..., Any]) -> str | None:
    try:
        parameters = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    return parameters[0] if parameters else None


def tool_from(obj: Any) -> BaseTool:
    """``obj`` as a tool: tools pass through; ``@llm_tool`` functions and plain functions
    (described by their docstring) are converted with ``Tool.from_function``; tools of
    LangChain, pydantic-ai and openai-agents are used as they are (see
    :mod:`statetools.tools.foreign`). Objects of ``@unfolding_tools`` classes become
    facades one layer up, in :func:`statetools.as_tool`.

    >>> def now() -> str:
    ...     '''The current time.'''
    ...     return "12:00"
    >>> tool_from(now).call().text
    '12:00'
    """
    if isinstance(obj, BaseTool):
        return obj
    converted = foreign_tool(obj)
    if converted is not None:
        return converted
    spec = tool_spec(obj)
    if spec is not None and inspect.isfunction(obj) and _first_parameter(obj) in ("self", "cls"):
        raise DefinitionError(
            f"{obj.__qualname__} is a method; a tool needs it bound to an object",
            hint="pass obj.method, or tools_from_instance(obj) for all of them",
        )
    if spec is not None:
        return Tool.from_function(obj)  # takes the decorator's name, description, metadata
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return Tool.from_function(obj)
    raise DefinitionError(
        f"{obj!r} is not a tool",
        hint="pass Tool objects, functions, objects' methods marked with @llm_tool "
        "(use tools_from_instance(obj) for a whole object), or tools of LangChain, "
        "pydantic-ai or openai-agents",
    )


def attribute_names(cls: type) -> list[str]:
    """Attribute names in definition order, base classes first."""
    names: dict[str, None] = {}
    for klass in reversed(cls.__mro__):
        names.update(dict.fromkeys(vars(klass)))
    return list(names)


def marked_methods(cls: type) -> Iterator[tuple[str, LlmToolSpec]]:
    """``(attribute, spec)`` of every ``@llm_tool`` method of ``cls``, in definition order."""
    for attribute in attribute_names(cls):
        spec = tool_spec(inspect.getattr_static(cls, attribute, None))
        if spec is not None:
            yield attribute, spec


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
