"""What playbooks and state machines share: being a definition, how one runs as an
agentic tool (:class:`AgentOptions`), and :class:`Appendable`, the immutable sequence
their builders extend one item at a time in constant time. Facades and agentic tools
need only this, not the playbook and machine modules.

``playbook.with_tool(a).with_tool(b)...`` makes a new frozen definition at every step;
copying a tuple at each step would make building N tools cost N^2. An
:class:`Appendable` instead shares one growing list with the sequence it was made
from: each value sees only the first ``count`` items of the list (plus its own last
item), so appending never changes what an existing value holds. Appending to a value
that is not the newest (a branch) copies its items once.

>>> first = Appendable.of(["a", "b"])
>>> longer = first.appended("c")
>>> branch = first.appended("x")
>>> first, longer, branch, longer.with_last("C")
(('a', 'b'), ('a', 'b', 'c'), ('a', 'b', 'x'), ('a', 'b', 'C'))
>>> longer == ("a", "b", "c"), longer.position("b"), longer.position("x")
(True, 1, None)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

import attrs

from statetools.errors import DefinitionError
from statetools.tools.context import ToolCallContext
from statetools.tools.schema import InputSchema, JsonSchema, Parameter


class Definition:
    """Base of :class:`~statetools.PlaybookTool` and :class:`~statetools.StateMachineTool`:
    a definition whose tools (``tools``) a loop discloses, or that runs as an agentic
    tool when it has a model (``agent``).

    >>> isinstance(PlaybookTool("p", "P"), Definition)
    True
    """

    __slots__ = ()

    name: str
    description: str
    agent: AgentOptions


SystemPrompt = str | Callable[[ToolCallContext], str]
"""A nested loop's system prompt: text, or a function of the run's context that gives
the text when the nested run starts."""


def _check_system_prompt(_instance: object, _attribute: object, value: Any) -> None:
    if value is not None and not isinstance(value, str) and not callable(value):
        raise DefinitionError(
            f"a system prompt must be text or a function of the run context, got "
            f"{type(value).__name__}",
            path="system_prompt",
            hint="pass a string, or a function (context) -> str",
        )


@attrs.frozen
class AgentOptions:
    """How a definition runs as an agentic tool (its own nested loop with ``model``)."""

    model: Any = None
    system_prompt: SystemPrompt | None = attrs.field(default=None, validator=_check_system_prompt)
    max_iterations: int = 20
    parameters: tuple[Parameter, ...] = ()


def agent_model(model: Any) -> Any:
    """The model of an agentic definition: a ``provider:name`` string becomes its model
    now (see :func:`statetools.models.resolve`), so a bad string or a missing key is an
    error here, not in the middle of a run; ``None`` and models stay as they are.

    >>> agent_model("nope:x")
    Traceback (most recent call last):
    statetools.errors.StatetoolsError: model: unknown model provider 'nope' in 'nope:x' ...
    """
    if isinstance(model, str):
        from statetools.models.model_strings import resolve

        return resolve(model)
    return model


def agent_schema(parameters: Sequence[Parameter]) -> JsonSchema:
    """The input schema of an agentic tool: its parameters, or one ``task`` string."""
    if not parameters:
        parameters = (Parameter.string("task", "What to do, in plain words"),)
    return InputSchema.of(*parameters)


T = TypeVar("T")

_NOTHING: Any = object()


def _itself(item: Any) -> Hashable:
    """The default key of an item: the item."""
    return item  # type: ignore[no-any-return]


class _Store(Generic[T]):
    """The shared list, the first position of each key in it, and a lock for appending."""

    __slots__ = ("index", "items", "key", "lock")

    def __init__(self, items: list[T], key: Callable[[T], Hashable]) -> None:
        self.items = items
        self.key = key
        self.index: dict[Hashable, int] = {}
        for position, item in enumerate(items):
            self.index.setdefault(key(item), position)
        self.lock = threading.Lock()


class Appendable(Sequence[T]):
    """An immutable sequence; :meth:`appended` and :meth:`with_last` give new ones in
    constant (amortized) time. It equals any tuple or list with the same items, and
    prints as a tuple. ``key`` names each item for :meth:`position` (the item itself
    by default).

    >>> Appendable.of([("a", 1)], key=lambda pair: pair[0]).appended(("b", 2)).position("b")
    1
    """

    __slots__ = ("_count", "_last", "_store")

    def __init__(self, store: _Store[T], count: int, last: T = _NOTHING) -> None:
        self._store = store
        self._count = count
        self._last = last

    @classmethod
    def of(cls, items: Iterable[T] = (), key: Callable[[T], Hashable] = _itself) -> Appendable[T]:
        """The sequence of ``items`` (an Appendable is returned as it is).

        >>> Appendable.of(iter([1, 2]))
        (1, 2)
        """
        if isinstance(items, Appendable):
            return items
        listed = list(items)
        return cls(_Store(listed, key), len(listed))

    def _stored(self) -> tuple[_Store[T], int]:
        """The store and count holding every item, the last one included."""
        store, count, last = self._store, self._count, self._last
        if last is _NOTHING:
            return store, count
        with store.lock:
            if len(store.items) == count:  # the newest value: extend the shared list
                store.items.append(last)
                store.index.setdefault(store.key(last), count)
                return store, count + 1
        copied = _Store([*store.items[:count], last], store.key)  # a branch: copy once
        return copied, count + 1

    def appended(self, item: T) -> Appendable[T]:
        """These items and ``item``.

        >>> Appendable.of([1]).appended(2)
        (1, 2)
        """
        store, count = self._stored()
        return Appendable(store, count, item)

    def with_last(self, item: T) -> Appendable[T]:
        """These items with the last one replaced by ``item``.

        >>> Appendable.of([1, 2]).with_last(3)
        (1, 3)
        """
        if self._last is not _NOTHING:
            return Appendable(self._store, self._count, item)
        if not self._count:
            raise IndexError("with_last of an empty sequence")
        return Appendable(self._store, self._count - 1, item)

    def position(self, key: Hashable) -> int | None:
        """The index of the first item whose key is ``key``, or None.

        >>> Appendable.of("abc").position("c")
        2
        """
        store, count, last = self._store, self._count, self._last
        found = store.index.get(key)
        if found is not None and found < count:
            return found
        if last is not _NOTHING and store.key(last) == key:
            return count
        return None

    def __len__(self) -> int:
        return self._count + (self._last is not _NOTHING)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("Appendable index out of range")
        return self._last if index == self._count else self._store.items[index]

    def __iter__(self) -> Iterator[T]:
        items = self._store.items
        for position in range(self._count):
            yield items[position]
        if self._last is not _NOTHING:
            yield self._last

    def __contains__(self, item: object) -> bool:
        if self._store.key is _itself:  # items are their own keys: look it up
            try:
                return self.position(item) is not None
            except TypeError:  # not hashable: compare with each
                pass
        return any(candidate == item for candidate in self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Appendable | tuple | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __add__(self, other: Iterable[T]) -> tuple[T, ...]:
        return (*self, *other)

    def __radd__(self, other: Iterable[T]) -> tuple[T, ...]:
        return (*other, *self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (tuple(self), self._store.key))


def _rebuilt(items: tuple[T, ...], key: Callable[[T], Hashable]) -> Appendable[T]:
    """An Appendable from a pickled or copied one."""
    return Appendable.of(items, key)
