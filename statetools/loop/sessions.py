"""Sessions: a run saved after every step, continued later from where it stopped.

The loop talks to a :class:`SessionStore` (the embedded default is
:class:`statetools.SqliteStore`); this module holds what the loop needs of one and the
rules of continuing, so any store gets them right; a run's :class:`Session` is the
loop's side of one (which store, which id, and saving each step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import attrs

from statetools.engine.answers import pending_calls as pending_calls
from statetools.engine.run_result import LoopResult
from statetools.engine.state import DisclosureState
from statetools.errors import StatetoolsError
from statetools.messages import Message

__all__ = ["SavedRun", "Session", "SessionStore", "check_continuation", "pending_calls"]


@attrs.frozen
class SavedRun:
    """What a store keeps of a session: the run so far, and the id of its run.

    >>> result = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[])
    >>> SavedRun(result.trace[0].run_id, result).result.output
    'Hello!'
    """

    run_id: str
    result: LoopResult


@runtime_checkable
class SessionStore(Protocol):
    """Where the loop saves a session after every step, and finds it again.

    ``save`` must replace the saved run atomically: a reader (or a process that starts
    after a crash) sees the previous step or this one, never a mix.

    A store of your own, in memory (for tests; :class:`statetools.SqliteStore` keeps
    sessions in a file):

    >>> class MemoryStore:
    ...     def __init__(self) -> None:
    ...         self.runs: dict[str, SavedRun] = {}
    ...     def saved(self, session: str) -> SavedRun | None:
    ...         return self.runs.get(session)
    ...     def save(self, session: str, run: SavedRun) -> None:
    ...         self.runs[session] = run
    >>> store = MemoryStore()
    >>> loop = ToolLoop(st.models.ScriptedModel(["Hello!", "Bye!"]))
    >>> loop.run("Hi", tools=[], session="s1", store=store).output
    'Hello!'
    >>> loop.run("Thanks", tools=[], session="s1", store=store).output
    'Bye!'
    >>> [message.content for message in store.saved("s1").result.messages]
    ['Hi', 'Hello!', 'Thanks', 'Bye!']
    """

    def saved(self, session: str) -> SavedRun | None:
        """The session's saved run, or None if there is none.

        >>> store = SqliteStore(":memory:")
        >>> store.saved("s1") is None
        True
        >>> loop = ToolLoop(st.models.ScriptedModel(["Hello!"]))
        >>> _ = loop.run("Hi", tools=[], session="s1", store=store)
        >>> store.saved("s1").result.output
        'Hello!'
        """
        ...

    def save(self, session: str, run: SavedRun) -> None:
        """Replace the session's saved run with ``run``.

        >>> store = SqliteStore(":memory:")
        >>> result = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[])
        >>> store.save("s1", SavedRun(result.trace[0].run_id, result))
        >>> store.saved("s1").result.messages[-1].content
        'Hello!'
        """
        ...


def check_continuation(
    session: str, saved: SavedRun | None, prompt: str | Sequence[Message] | None
) -> None:
    """Refuse what cannot continue a session: no prompt and nothing saved, or a whole
    history given for a session that is saved."""
    if saved is None and prompt is None:
        raise StatetoolsError(
            f"there is no saved session {session!r} to continue",
            path=f"session {session!r}",
            hint="give a prompt to start it, or check the session id and the store",
        )
    if saved is not None and prompt is not None and not isinstance(prompt, str):
        raise StatetoolsError(
            f"session {session!r} is saved: continue it with a text or None, not a history",
            path=f"session {session!r}",
            hint="pass the new user message as a string, or None to continue",
        )


@attrs.frozen
class Session:
    """A run's session: its id and the store it is saved in."""

    id: str
    store: SessionStore

    @classmethod
    def of(cls, session: str | None, store: SessionStore | None) -> Session | None:
        """The session asked for by ``run(..., session=, store=)``, or None."""
        if session is None and store is None:
            return None
        if session is None or store is None:
            raise StatetoolsError(
                "session= and store= go together",
                path="ToolLoop.run",
                hint="pass both: run(prompt, session='s1', store=SqliteStore('runs.db'))",
            )
        if not isinstance(session, str) or not session:
            raise StatetoolsError(
                f"a session id is a non-empty string, got {session!r}",
                path="ToolLoop.run",
                hint="name the session, e.g. session='ticket-42'",
            )
        return cls(session, store)

    def begin(
        self, prompt: str | Sequence[Message] | None, state: DisclosureState | None
    ) -> SavedRun | None:
        """The session's saved run (None for a new session), checked against the call.

        A store that names runners (``claim``/``release``, as
        :class:`~statetools.SqliteStore` does) is claimed first, so no two runners take
        the session's steps; a call that will run nothing gives the claim back.
        """
        claim = getattr(self.store, "claim", None)
        if callable(claim):
            claim(self.id)
        try:
            saved = self.store.saved(self.id)
            check_continuation(self.id, saved, prompt)
            if saved is not None and state is not None:
                raise StatetoolsError(
                    f"session {self.id!r} is saved: its own state is used",
                    path=f"session {self.id!r}",
                    hint="drop state=; a session continues from what its store saved",
                )
        except BaseException:
            self._release()
            raise
        if saved is not None and prompt is None and saved.result.outcome != "running":
            self._release()  # a finished session asked for nothing new: nothing runs
        return saved

    def _release(self) -> None:
        release = getattr(self.store, "release", None)
        if callable(release):
            release(self.id)

    def saver(self, run_id: str) -> Callable[[LoopResult], None]:
        """What saves each step of the run ``run_id`` in this session."""

        def save(result: LoopResult) -> None:
            self.store.save(self.id, SavedRun(run_id, result))

        return save
