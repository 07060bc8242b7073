"""ToolCallContext: values a handler receives without the model seeing them."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import attrs

if TYPE_CHECKING:
    from statetools.blackboard import Blackboard


class NestedLoop(Protocol):
    """A loop an agentic tool runs its task in (a :class:`~statetools.ToolLoop` is one).

    A Protocol because ``ToolLoop`` lives in a higher layer (``statetools.loop``).
    """

    async def arun(
        self, prompt: str, *, tools: Sequence[Any], context: Mapping[str, Any] | None = None
    ) -> Any:
        """Run ``prompt`` over ``tools``; return the run's result (with ``.output``)."""
        ...


class LoopFactory(Protocol):
    """Builds the nested loop of an agentic tool; the ``ToolLoop`` class is one.

    A run hands its factory down to the tools it calls (``ToolCallContext.loop_factory``),
    so agentic tools, which sit below the loop, never import it. A Protocol because
    ``ToolLoop`` lives in a higher layer (``statetools.loop``).
    """

    def __call__(
        self,
        model: Any,
        *,
        max_iterations: int,
        system_prompt: str | None,
        end_on_final_state: bool,
    ) -> NestedLoop:
        """A loop over ``model`` with these options."""
        ...


Relay = Callable[[tuple[str, ...], Any], None]
"""Where a nested run's events go: called with the path of agentic tools (outermost
first) and the nested run's event."""


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

    Inside a run, ``loop_factory`` builds nested loops for agentic tools (the running
    loop's class), and ``relay`` takes a nested run's events to the run's listeners
    (``relay(path, event)``, ``path`` naming the agentic tools from the run inward);
    outside a run both are None.
    """

    _values: Mapping[str, Any] = attrs.field(factory=dict, converter=_freeze, alias="values")
    blackboard: Blackboard | None = attrs.field(default=None, kw_only=True, repr=False)
    run_end: RunEnd | None = attrs.field(default=None, kw_only=True, repr=False)
    """Inside a run, where tools register what to close when the run ends."""
    loop_factory: LoopFactory | None = attrs.field(default=None, kw_only=True, repr=False)
    relay: Relay | None = attrs.field(default=None, kw_only=True, repr=False)

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
        end = other.run_end if isinstance(other, ToolCallContext) else None
        factory = other.loop_factory if isinstance(other, ToolCallContext) else None
        relay = other.relay if isinstance(other, ToolCallContext) else None
        return ToolCallContext(
            {**self._values, **other},
            blackboard=board if board is not None else self.blackboard,
            run_end=end if end is not None else self.run_end,
            loop_factory=factory if factory is not None else self.loop_factory,
            relay=relay if relay is not None else self.relay,
        )

    def with_blackboard(self, blackboard: Blackboard | None) -> ToolCallContext:
        """The same entries with ``blackboard`` as the run's blackboard.

        >>> ToolCallContext({"a": 1}).with_blackboard(Blackboard()).blackboard is not None
        True
        """
        return ToolCallContext(
            self._values,
            blackboard=blackboard,
            run_end=self.run_end,
            loop_factory=self.loop_factory,
            relay=self.relay,
        )

    def with_run_end(self, run_end: RunEnd | None) -> ToolCallContext:
        """The same entries (and blackboard) with ``run_end`` as the run's closer.

        >>> ToolCallContext({"a": 1}).with_run_end(RunEnd()).run_end is not None
        True
        """
        return ToolCallContext(
            self._values,
            blackboard=self.blackboard,
            run_end=run_end,
            loop_factory=self.loop_factory,
            relay=self.relay,
        )

    def with_relay(self, relay: Relay | None) -> ToolCallContext:
        """The same entries (blackboard, closer, loop) with ``relay`` as where nested
        runs' events go.

        >>> heard = []
        >>> ctx = ToolCallContext({"a": 1}).with_relay(lambda path, event: heard.append(path))
        >>> ctx.relay(("researcher",), "an event"); heard
        [('researcher',)]
        """
        return ToolCallContext(
            self._values,
            blackboard=self.blackboard,
            run_end=self.run_end,
            loop_factory=self.loop_factory,
            relay=relay,
        )

    def __or__(self, other: Mapping[str, Any]) -> ToolCallContext:
        if not isinstance(other, Mapping):
            return NotImplemented
        return self.merge(other)


RUN_ID_KEY = "statetools.run_id"
"""Context key under which the loop puts a fresh id for every run."""


_log = logging.getLogger(__name__)


class RunEnd:
    """What to do when a run ends: async callbacks, run last-registered first.

    The loop makes one per run (``context.run_end``) and closes it however the run
    ends; a tool that opened something for the run (a connection, a process)
    registers its closing there.

    >>> import asyncio
    >>> closed = []
    >>> end = RunEnd()
    >>> async def close() -> None:
    ...     closed.append("connection")
    >>> end.push(close)
    >>> asyncio.run(end.aclose())
    >>> closed
    ['connection']
    """

    def __init__(self) -> None:
        self._callbacks: list[Callable[[], Awaitable[None]]] = []

    def push(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run ``callback`` when the run ends."""
        self._callbacks.append(callback)

    async def aclose(self) -> None:
        """Run the callbacks (newest first); a failing one is logged, the rest still run."""
        while self._callbacks:
            callback = self._callbacks.pop()
            try:
                await callback()
            except Exception:
                _log.warning("closing a run resource failed", exc_info=True)
