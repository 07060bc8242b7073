"""Telling a run's listeners of its events: each listener hears each event, and one
that fails keeps none of the others from hearing it.

A :class:`~statetools.engine.RunRecord` keeps the trace and tells its :class:`Listeners`
of every event it keeps, of the events of runs nested in it, and of the last events of
a run being stopped (then a listener's failure is logged, not raised, so that it cannot
hide the exception that stops the run). A nested run tells the run it is nested in
through a listener of its own (:func:`forward_to`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from statetools.engine.events import Event, Listener, NestedEvent
from statetools.tools.context import Relay

__all__ = ["Listeners", "forward_to"]

logger = logging.getLogger("statetools.loop")


class Listeners:
    """The listeners of one run, and how each event reaches them.

    >>> from statetools.engine.events import RunFinished
    >>> heard = []
    >>> Listeners([heard.append]).tell(RunFinished(1.0, 1, "answer"))
    >>> [event.type for event in heard]
    ['run_finished']
    """

    def __init__(self, listeners: Sequence[Listener] = ()) -> None:
        self.listeners = tuple(listeners)
        self._nested_failure: Exception | None = None
        """A listener's failure on a nested run's event, raised at this run's next event."""

    def tell(self, event: Event) -> None:
        """Tell every listener of ``event``; the first failure (or one kept from a nested
        run's event) is raised once all were told.

        >>> from statetools.engine.events import RunFinished
        >>> def fails(event):
        ...     raise ValueError("no")
        >>> heard = []
        >>> try:
        ...     Listeners([fails, heard.append]).tell(RunFinished(1.0, 1, "answer"))
        ... except ValueError as error:
        ...     print(error, len(heard))
        no 1
        """
        failure, self._nested_failure = self._nested_failure, None
        for listener in self.listeners:
            try:
                listener(event)
            except Exception as exc:
                if failure is None:
                    failure = exc
        if failure is not None:
            raise failure

    def tell_nested(self, path: tuple[str, ...], event: Event) -> None:
        """Tell every listener of an event of a nested run (``path``: the agentic tools
        from this run inward) as a :class:`NestedEvent`. A listener that fails stops the
        nested run (the failure is raised) and this run at its next event.

        >>> from statetools.engine.events import RunFinished
        >>> heard = []
        >>> Listeners([heard.append]).tell_nested(("helper",), RunFinished(1.0, 1, "answer"))
        >>> heard[0].path, heard[0].event.type
        (('helper',), 'run_finished')
        """
        nested = NestedEvent(path, event)
        failure: Exception | None = None
        for listener in self.listeners:
            try:
                listener(nested)
            except Exception as exc:
                if failure is None:
                    failure = exc
        if failure is not None:
            if self._nested_failure is None:
                self._nested_failure = failure
            raise failure

    def tell_stopping(self, event: Event) -> None:
        """Tell every listener of an event of a run being stopped: a listener's failure
        is logged, so that it cannot hide the exception that is ending the run.

        >>> from statetools.engine.events import RunFinished
        >>> def fails(event):
        ...     raise ValueError("no")
        >>> Listeners([fails]).tell_stopping(RunFinished(1.0, 1, "cancelled"))
        """
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:
                logger.exception("a listener failed while the run was being stopped")


def forward_to(relay: Relay) -> Listener:
    """A listener of a nested run that hands its events to the outer run's ``relay``
    (those of runs nested deeper keep their path).

    >>> from statetools.engine.events import RunFinished
    >>> heard = []
    >>> forward = forward_to(lambda path, event: heard.append((path, event.type)))
    >>> forward(NestedEvent(("inner",), RunFinished(1.0, 1, "answer")))
    >>> forward(RunFinished(2.0, 1, "answer"))
    >>> heard
    [(('inner',), 'run_finished'), ((), 'run_finished')]
    """

    def forward(event: Event) -> None:
        if isinstance(event, NestedEvent):
            relay(event.path, event.event)
        else:
            relay((), event)

    return forward
