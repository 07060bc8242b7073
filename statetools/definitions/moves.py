"""The moves of a state machine: :class:`Transition` (what the machine holds) and
:class:`Move` (how :meth:`StateMachineTool.of` is told a tool moves the machine)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from statetools.tools.calling import ToolResult

Guard = Callable[[ToolResult], bool]


@attrs.frozen
class Transition:
    """Calling ``tool`` successfully in ``source`` moves the machine to ``target``.

    With a ``guard``, only when ``guard(result)`` is true; the first matching
    transition (in the order they were declared) wins.

    >>> Transition("DRAFT", "confirm", "CONFIRMED")
    Transition(source='DRAFT', tool='confirm', target='CONFIRMED', guard=None, label=None)
    """

    source: str
    tool: str
    target: str
    guard: Guard | None = attrs.field(default=None, eq=False)
    label: str | None = None


@attrs.frozen
class Move:
    """A tool of :meth:`StateMachineTool.of` that moves the machine to state ``to`` when
    it succeeds (``.with_tool(tool).transitions_to(to, when, label=label)``): ``when``
    guards the move with a test of the tool's result.

    >>> import enum
    >>> Order = enum.Enum("Order", "DRAFT CONFIRMED")
    >>> confirm = Tool.create("confirm", "Confirm", lambda: "ok")
    >>> machine = StateMachineTool.of(
    ...     "order", "Order", Order, tools={Order.DRAFT: [Move(confirm, to=Order.CONFIRMED)]}
    ... )
    >>> machine.transitions
    (Transition(source='DRAFT', tool='confirm', target='CONFIRMED', guard=None, label=None),)
    """

    tool: Any
    to: Any
    """The state to move to (an enum member or a state name)."""
    when: Guard | None = attrs.field(default=None, kw_only=True)
    label: str | None = attrs.field(default=None, kw_only=True)
