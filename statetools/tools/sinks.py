"""Artifact sinks: where an :class:`~statetools.ArtifactSinkingTool` puts the values
its tool returns (a list, a blackboard, several sinks at once, or your own).

>>> sink = ListSink()
>>> CompositeSink(sink, BlackboardSink(Blackboard())).put({"id": 7}, ToolCallContext())
>>> sink.items
[{'id': 7}]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from statetools.errors import StatetoolsError
from statetools.tools.context import ToolCallContext

if TYPE_CHECKING:
    from statetools.blackboard import Blackboard

__all__ = ["ArtifactSink", "BlackboardSink", "CompositeSink", "ListSink"]


@runtime_checkable
class ArtifactSink(Protocol):
    """Where an :class:`ArtifactSinkingTool` puts the values its tool returns.

    A Protocol because it is an extension point: any object with ``put`` is a sink.

    >>> class Printer:
    ...     def put(self, value, context):
    ...         print("got", value)
    >>> isinstance(Printer(), ArtifactSink)
    True
    """

    def put(self, value: Any, context: ToolCallContext) -> None:
        """Receive one value (``context`` is the call's context).

        >>> sink: ArtifactSink = ListSink()
        >>> sink.put({"id": 7}, ToolCallContext())
        """
        ...


class ListSink:
    """Collects values in ``items``, oldest first.

    >>> sink = ListSink()
    >>> sink.put(1, ToolCallContext()); sink.items
    [1]
    """

    def __init__(self) -> None:
        self.items: list[Any] = []

    def put(self, value: Any, context: ToolCallContext) -> None:
        """Append ``value``.

        >>> sink = ListSink()
        >>> sink.put(1, ToolCallContext())
        >>> sink.put(2, ToolCallContext())
        >>> sink.items
        [1, 2]
        """
        self.items.append(value)


class CompositeSink:
    """Hands every value to each of several sinks, in order.

    >>> first, second = ListSink(), ListSink()
    >>> CompositeSink(first, second).put("x", ToolCallContext())
    >>> first.items, second.items
    (['x'], ['x'])
    """

    def __init__(self, *sinks: ArtifactSink) -> None:
        self.sinks: tuple[ArtifactSink, ...] = sinks

    def put(self, value: Any, context: ToolCallContext) -> None:
        """Give ``value`` to every sink.

        >>> first, second = ListSink(), ListSink()
        >>> CompositeSink(first, second).put("x", ToolCallContext())
        >>> first.items + second.items
        ['x', 'x']
        """
        for sink in self.sinks:
            sink.put(value, context)


class BlackboardSink:
    """Posts values to a blackboard: the given one or, by default, the run's (which
    ``OnBlackboard`` conditions read, so sunk values can unlock tools).

    >>> board = Blackboard()
    >>> BlackboardSink(board).put({"id": 1}, ToolCallContext())
    >>> board.latest(dict)
    {'id': 1}
    """

    def __init__(self, blackboard: Blackboard | None = None) -> None:
        self.blackboard = blackboard

    def put(self, value: Any, context: ToolCallContext) -> None:
        """Post ``value``; outside a run, only a given blackboard can take it.

        >>> board = Blackboard()
        >>> BlackboardSink(board).put(7, ToolCallContext())
        >>> board.of_type(int)
        [7]
        >>> BlackboardSink().put(7, ToolCallContext())
        Traceback (most recent call last):
        ...
        statetools.errors.StatetoolsError: BlackboardSink has no blackboard outside a run ...
        """
        board = self.blackboard if self.blackboard is not None else context.blackboard
        if board is None:
            raise StatetoolsError(
                "BlackboardSink has no blackboard outside a run",
                hint="call the tool inside a ToolLoop run, or pass BlackboardSink(blackboard)",
            )
        board.post(value)
