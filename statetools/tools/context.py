"""ToolCallContext: values a handler receives without the model seeing them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from statetools.loop.blackboard import Blackboard


def _freeze(values: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(values))


@attrs.frozen(eq=False)
class ToolCallContext(Mapping[str, Any]):
    """An immutable mapping handed to any handler parameter annotated with it.

    The parameter never appears in the tool's schema, so the model cannot see or forge
    it. Use it for user ids, database sessions, request ids and the like::

        def lookup(order_id: str, ctx: ToolCallContext) -> str:
            return db(ctx["tenant"]).get(order_id)

        loop.run("...", tools=[Tool.from_function(lookup)], context={"tenant": "acme"})

    >>> ctx = ToolCallContext({"tenant": "acme"})
    >>> ctx["tenant"], len(ctx)
    ('acme', 1)

    Inside a run, ``blackboard`` is the run's :class:`~statetools.Blackboard` (not one of
    the mapping's entries): a handler may post values that ``OnBlackboard`` conditions
    wait for. Outside a run it is None.

    >>> board = Blackboard()
    >>> ToolCallContext({"tenant": "acme"}, blackboard=board).blackboard is board
    True
    """

    _values: Mapping[str, Any] = attrs.field(factory=dict, converter=_freeze, alias="values")
    blackboard: Blackboard | None = attrs.field(default=None, kw_only=True, repr=False)

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._values) == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values.items(), key=lambda kv: kv[0])))

    def __repr__(self) -> str:
        return f"ToolCallContext({dict(self._values)!r})"

    def merge(self, other: Mapping[str, Any] | None) -> ToolCallContext:
        """A new context with ``other``'s entries added; on equal keys ``other`` wins.

        ``ctx | other`` is the same.

        >>> base = ToolCallContext({"user": "ann", "locale": "en"})
        >>> dict(base.merge({"locale": "de"}))
        {'user': 'ann', 'locale': 'de'}
        """
        if not other:
            return self
        board = other.blackboard if isinstance(other, ToolCallContext) else None
        return ToolCallContext(
            {**self._values, **other}, blackboard=board if board is not None else self.blackboard
        )

    def with_blackboard(self, blackboard: Blackboard | None) -> ToolCallContext:
        """The same entries with ``blackboard`` as the run's blackboard.

        >>> ToolCallContext({"a": 1}).with_blackboard(Blackboard()).blackboard is not None
        True
        """
        return ToolCallContext(self._values, blackboard=blackboard)

    def __or__(self, other: Mapping[str, Any]) -> ToolCallContext:
        if not isinstance(other, Mapping):
            return NotImplemented
        return self.merge(other)


RUN_ID_KEY = "statetools.run_id"
"""Context key under which the loop puts a fresh id for every run."""
