"""The loop's side of a session: which store, which id, and saving each step."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from statetools.disclosure.state import DisclosureState
from statetools.engine.loop_result import LoopResult
from statetools.errors import StatetoolsError
from statetools.loop.sessions import SavedRun, SessionStore, check_continuation
from statetools.messages import Message

__all__ = ["Session"]


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
