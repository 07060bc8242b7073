"""Tool chaining: the ``@llm_tool`` methods of an object a tool returned become tools.

``Chaining(Repo)`` declares Repo's methods from the start (real schemas, and a note
that they act on the latest Repo a tool returned); they run once a tool has returned
a Repo, bound to the newest one (last wins). ``Chaining.any()`` binds any returned
object with ``@llm_tool`` methods; a new object replaces the previous one's tools.

Add a rule to a loop (``loop.with_tool_chaining_from(Repo)``), an agentic tool or a
playbook (same method), or pass it in ``tools=[...]``.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from statetools.definitions.conditions import type_key
from statetools.errors import DefinitionError
from statetools.tools.calling import Arguments, Context, ToolResult
from statetools.tools.decorators import marked_methods
from statetools.tools.tool import Tool
from statetools.tools.wrappers import WrapperTool

ANY_KEY = "*"
logger = logging.getLogger("statetools.chaining")


def _check_source(_instance: object, _attribute: object, value: Any) -> None:
    if value is not None and not isinstance(value, type):
        raise DefinitionError(
            f"tool chaining needs a class, got {value!r}",
            hint="write with_tool_chaining_from(Repo), or with_tool_chaining_from_any()",
        )


@attrs.frozen
class Chaining:
    """A chaining rule: objects of ``source`` (any object when None) that a tool
    returns, and for which ``predicate`` holds, lend their ``@llm_tool`` methods as tools.

    >>> class Repo:
    ...     @llm_tool("Star the repository")
    ...     def star(self) -> str:
    ...         return "starred"
    >>> [t.name for t in Chaining(Repo).declared_tools()]
    ['star']
    >>> Chaining.any().key
    '*'
    """

    source: type | None = attrs.field(default=None, validator=_check_source)
    predicate: Callable[[Any], bool] | None = None
    id_attribute: str = "id"
    """The attribute (or method) giving a bound object's id: ``result.state`` keeps the
    object by its type and id, and a resumed run finds it again through
    ``ToolLoop(instances=...)``."""

    @classmethod
    def from_type(
        cls,
        source: type,
        predicate: Callable[[Any], bool] | None = None,
        *,
        id_attribute: str = "id",
    ) -> Chaining:
        """Chain from returned objects of ``source`` (for which ``predicate`` holds).

        >>> Chaining.from_type(dict, lambda d: "id" in d).source
        <class 'dict'>
        """
        if source is None:
            raise DefinitionError("from_type needs a class", hint="use Chaining.any()")
        return cls(source, predicate, id_attribute)

    @classmethod
    def any(
        cls, predicate: Callable[[Any], bool] | None = None, *, id_attribute: str = "id"
    ) -> Chaining:
        """Chain from any returned object that has ``@llm_tool`` methods.

        >>> Chaining.any().source is None, Chaining.any().key
        (True, '*')
        """
        return cls(None, predicate, id_attribute)

    @property
    def key(self) -> str:
        """The source type's stable name (``*`` for any).

        >>> Chaining.from_type(dict).key
        'builtins.dict'
        """
        return ANY_KEY if self.source is None else type_key(self.source)

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` binds under this rule (a predicate that raises says no).

        >>> Chaining(int, lambda n: n > 0).accepts(3), Chaining(int).accepts("3")
        (True, False)
        """
        return self.verdict(value) is True

    def verdict(self, value: Any) -> bool | str:
        """Whether ``value`` binds, or the text of why its predicate failed (logged).

        >>> Chaining(int, lambda n: 1 / n > 0).verdict(0)
        'the chaining predicate failed: ZeroDivisionError: division by zero'
        """
        if self.source is not None and not isinstance(value, self.source):
            return False
        if self.predicate is None:
            return True
        try:
            return bool(self.predicate(value))
        except Exception as exc:
            logger.warning("chaining predicate failed for %r", value, exc_info=True)
            return f"the chaining predicate failed: {type(exc).__name__}: {exc}"

    def declared_tools(self) -> tuple[ChainedTool, ...]:
        """The source's methods as tools declared before any instance exists.

        >>> class Order:
        ...     @llm_tool("Cancel this order")
        ...     def cancel(self) -> str:
        ...         return "cancelled"
        >>> [tool.name for tool in Chaining.from_type(Order).declared_tools()]
        ['cancel']
        """
        source = self.source
        if source is None:
            return ()
        tools = []
        for attribute, spec in marked_methods(source):
            function = inspect.getattr_static(source, attribute)
            if isinstance(function, staticmethod | classmethod):
                function = function.__func__
            declared = Tool.from_function(
                functools.partial(function, None),
                name=spec.name or attribute,
                description=spec.description,
                metadata=spec.metadata(),
            )
            note = f"Needs a {source.__name__} returned by another tool first; uses the latest one"
            tools.append(
                ChainedTool.around(declared.with_note(note), source=source, attribute=attribute)
            )
        if not tools:
            raise DefinitionError(
                f"{source.__qualname__} has no @llm_tool methods to chain",
                path=f"chaining from {source.__qualname__}",
                hint="mark the methods the model may call with @llm_tool('description')",
            )
        return tuple(tools)


@attrs.frozen(kw_only=True)
class ChainedTool(WrapperTool):
    """A method of ``source`` declared as a tool before an instance is bound.

    The scheduler runs :meth:`bind` ``(instance)`` instead; called on its own it
    answers that an instance is needed.
    """

    source: type
    attribute: str

    def bind(self, instance: Any) -> Tool:
        """This tool running the method of ``instance`` (same name, description, schema)."""
        return Tool.from_function(
            getattr(instance, self.attribute),
            name=self.name,
            description=self.description,
            metadata=self.metadata,
        )

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Without a bound instance there is nothing to run: say what is needed."""
        return ToolResult.error(unbound_message(self.name, self.source, ()))


def unbound_message(name: str, source: type, producers: Iterable[str]) -> str:
    """What the model is told when it calls a chained tool before any instance exists.

    >>> class Repo: ...
    >>> unbound_message("star", Repo, ["get_repo"])
    "Tool 'star' needs a Repo first. Call first: get_repo."
    >>> unbound_message("star", Repo, [])
    "Tool 'star' needs a Repo first. Call a tool that returns one."
    """
    names = list(producers)
    text = f"Tool '{name}' needs a {source.__name__} first."
    if not names:
        return f"{text} Call a tool that returns one."
    if len(names) == 1:
        return f"{text} Call first: {names[0]}."
    return f"{text} Call first one of: {', '.join(names)}."
