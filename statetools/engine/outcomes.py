"""What the scheduler answers: Blocked calls and the Changes a call made."""

from __future__ import annotations

import attrs


@attrs.frozen
class Blocked:
    """A call that may not run now, and the text that tells the model why.

    >>> Blocked("Tool 'analyze' is locked. Call first: search.").reason
    "Tool 'analyze' is locked. Call first: search."
    """

    reason: str


@attrs.frozen
class StateChange:
    """A state machine moved from ``previous`` to ``state``.

    >>> StateChange("order", previous="DRAFT", state="CONFIRMED", final=True).state
    'CONFIRMED'
    """

    machine: str
    previous: str
    state: str
    final: bool


@attrs.frozen
class Injected:
    """Tools a call's result added or removed at run time (not through conditions).

    ``source`` is ``"discovery"`` (``@tool_provider`` objects), ``"chaining"``
    (``Chaining.any()``) or the name of a selectable facade; ``skipped`` tools were not
    added because the name is taken; ``over_limit`` ones because the run reached
    ``limit`` discovered tools; ``not_added`` lists ``(name, reason)`` of other tools
    left out: those of provider objects without an id (the name is a template), and
    tools a resumed run could not restore.

    >>> Injected("discovery", added=("order_7_cancel",)).added
    ('order_7_cancel',)
    """

    source: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    over_limit: tuple[str, ...] = ()
    limit: int = 0
    not_added: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class Changes:
    """What a recorded call (or a new turn) changed.

    ``announcement`` is the line appended to the call's result, e.g.
    ``[now available: analyze; state is now CONFIRMED]``.

    >>> changes = Changes(entered=(StateChange("order", "DRAFT", "CONFIRMED", True),))
    >>> changes.final_reached
    True
    """

    unlocked: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    entered: tuple[StateChange, ...] = ()
    announcement: str | None = None
    injected: tuple[Injected, ...] = ()

    @property
    def final_reached(self) -> bool:
        """Whether a machine entered a final state.

        >>> Changes(entered=(StateChange("order", "DRAFT", "OPEN", False),)).final_reached
        False
        """
        return any(change.final for change in self.entered)


NOTHING_CHANGED = Changes()
"""The changes of a turn that changed nothing (one shared value: it is immutable)."""


def announcement(
    shown: list[str], entered: list[StateChange], machines: int, listed: set[str]
) -> str | None:
    """The line appended to a result: new tools (apart from those the result already
    listed) and state changes.

    >>> announcement(["a", "b"], [StateChange("m", "A", "B", True)], 1, {"b"})
    '[now available: a; state is now B (final)]'
    """
    parts = []
    news = [name for name in shown if name not in listed]
    if news:
        parts.append(f"now available: {', '.join(news)}")
    for change in entered:
        subject = "state" if machines == 1 else f"state of {change.machine}"
        final = " (final)" if change.final else ""
        parts.append(f"{subject} is now {change.state}{final}")
    return f"[{'; '.join(parts)}]" if parts else None
