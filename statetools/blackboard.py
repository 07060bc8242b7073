"""The run's blackboard: values tools publish for later tools and conditions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

T = TypeVar("T")


class Blackboard:
    """A per-run list of published values (mutable; one per run, never shared).

    >>> board = Blackboard()
    >>> board.post({"id": 1}); board.of_type(dict)
    [{'id': 1}]
    """

    def __init__(self) -> None:
        self._items: list[Any] = []

    def post(self, value: Any) -> None:
        """Publish ``value``.

        >>> board = Blackboard()
        >>> board.post({"city": "Oslo"})
        >>> board.of_type(dict)
        [{'city': 'Oslo'}]
        """
        self._items.append(value)

    def of_type(self, kind: type[T]) -> list[T]:
        """Every published value that is an instance of ``kind``, oldest first.

        >>> board = Blackboard()
        >>> for value in (1, "two", 3):
        ...     board.post(value)
        >>> board.of_type(int)
        [1, 3]
        """
        return [item for item in self._items if isinstance(item, kind)]

    def latest(self, kind: type[T]) -> T | None:
        """The newest published instance of ``kind``, or None.

        >>> board = Blackboard()
        >>> board.post(1)
        >>> board.post(3)
        >>> board.latest(int), board.latest(str)
        (3, None)
        """
        for item in reversed(self._items):
            if isinstance(item, kind):
                return item
        return None

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def since(self, index: int) -> list[Any]:
        """The values posted after the first ``index`` ones, oldest first.

        >>> board = Blackboard(); board.post(1); board.post(2); board.since(1)
        [2]
        """
        return self._items[index:]

    def __len__(self) -> int:
        return len(self._items)
