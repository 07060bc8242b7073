"""A mapping that starts from a shared dict and keeps only its own changes.

Every fresh run of a compiled graph starts with the same visible tools in the same
order. Each run's scheduler reads them from one dict the graph holds (never written)
and records only what it changes (names removed, names added after them), so a run,
or an MCP gateway session, costs memory for what it changed, not for the catalogue.

>>> shared = {"a": 1, "b": 2, "c": 3}
>>> mine = Overlay(shared)
>>> del mine["b"]
>>> mine["d"] = 4
>>> mine["b"] = 5  # shown again: it goes to the end, as in a dict
>>> list(mine.items()), shared
([('a', 1), ('c', 3), ('d', 4), ('b', 5)], {'a': 1, 'b': 2, 'c': 3})
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from itertools import chain, filterfalse
from typing import Any, TypeVar

V = TypeVar("V")

_EMPTY: Mapping[Any, Any] = {}


class Overlay(MutableMapping[str, V]):
    """A mutable mapping over ``base`` (a dict nobody writes to), in dict order: the
    items of ``base`` not removed, then the ones added. Setting a new value for a key
    still held from ``base`` (rare: a tool swapped for another form) copies ``base``
    once and goes on as a plain dict.

    >>> order = Overlay({"x": 0})
    >>> order["y"] = 1
    >>> order.pop("x"), dict(order), len(order)
    (0, {'y': 1}, 1)
    """

    __slots__ = ("_added", "_base", "_removed")

    def __init__(self, base: Mapping[str, V] = _EMPTY) -> None:
        self._base: Mapping[str, V] = base
        self._removed: set[str] | None = None
        """Keys of ``base`` removed (a key removed and added again is also in ``_added``)."""
        self._added: dict[str, V] | None = None

    def _in_base(self, key: str) -> bool:
        removed = self._removed
        return key in self._base and (removed is None or key not in removed)

    def __getitem__(self, key: str) -> V:
        added = self._added
        if added is not None and key in added:
            return added[key]
        if self._in_base(key):
            return self._base[key]
        raise KeyError(key)

    def get(self, key: str, default: V | None = None) -> V | None:  # type: ignore[override]
        """The value of ``key``, or ``default``."""
        added = self._added
        if added is not None and key in added:
            return added[key]
        return self._base[key] if self._in_base(key) else default

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        added = self._added
        return (added is not None and key in added) or self._in_base(key)

    def __setitem__(self, key: str, value: V) -> None:
        if self._in_base(key):  # a new value in place: become a plain dict
            self._own()
        added = self._added
        if added is None:
            added = self._added = {}
        added[key] = value

    def __delitem__(self, key: str) -> None:
        added = self._added
        if added is not None and key in added:
            del added[key]
        elif self._in_base(key):
            if self._removed is None:
                self._removed = set()
            self._removed.add(key)
        else:
            raise KeyError(key)

    def pop(self, key: str, *default: V) -> V:  # type: ignore[override]
        """Remove ``key`` and give its value (``default`` when it is not here).

        >>> Overlay({"a": 1}).pop("a"), Overlay({"a": 1}).pop("b", 0)
        (1, 0)
        """
        added = self._added
        if added is not None and key in added:
            return added.pop(key)
        if self._in_base(key):
            if self._removed is None:
                self._removed = set()
            self._removed.add(key)
            return self._base[key]
        if default:
            return default[0]
        raise KeyError(key)

    def _own(self) -> None:
        """Copy what is held from ``base`` into a dict of this mapping's own."""
        self._added = dict(self.items())
        self._base = _EMPTY
        self._removed = None

    def clear(self) -> None:
        """Remove every item (``base`` is left as it is)."""
        self._base = _EMPTY
        self._removed = None
        self._added = None

    def __iter__(self) -> Iterator[str]:
        removed, added = self._removed, self._added
        mine = (
            iter(self._base) if removed is None else filterfalse(removed.__contains__, self._base)
        )
        return mine if added is None else chain(mine, added)  # C iterators: no Python per key

    def __len__(self) -> int:
        return (
            len(self._base)
            - (len(self._removed) if self._removed is not None else 0)
            + (len(self._added) if self._added is not None else 0)
        )

    def __repr__(self) -> str:
        return f"Overlay({dict(self.items())!r})"
