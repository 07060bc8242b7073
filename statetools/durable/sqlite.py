"""SqliteStore: sessions saved in one SQLite file (WAL mode).

Each step of a run is saved in one transaction, so a process that dies at any moment
leaves the previous step or the new one, never a mix. A save appends the messages and
trace events the step added and rewrites one small row (state, usage, outcome), so its
cost does not grow with the session's length. A session is run by one runner at a time
(a lease, see :mod:`statetools.durable.leases`). A store in a place that cannot be
written opens read-only; a damaged file raises a :class:`StatetoolsError` saying what
``PRAGMA integrity_check`` finds, never a raw ``sqlite3`` error.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from statetools.durable.failures import (
    StoreDamaged,
    StoreReadOnly,
    read_only_reason,
    store_error,
)
from statetools.durable.layout import SCHEMA_VERSION, SessionInfo, list_sessions, open_file
from statetools.durable.leases import Heartbeat, Leases
from statetools.durable.rows import (
    Written,
    delete_rows,
    head_json,
    read_rows,
    run_from_rows,
    run_from_whole,
    write_rows,
)
from statetools.engine.run_result import LoopResult
from statetools.errors import StatetoolsError
from statetools.loop.sessions import SavedRun

__all__ = ["SCHEMA_VERSION", "SessionInfo", "SqliteStore"]


class SqliteStore:
    """Sessions in a SQLite file, for ``loop.run(..., session=, store=)``.

    ``lease_seconds``: how long a runner's claim on a session outlives its last sign of
    life (a live process renews it); ``owner`` names this runner in the error another
    runner gets (default: ``process PID on HOST``).

    >>> import tempfile, os, statetools as st
    >>> from statetools.models import ScriptedModel
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.db")
    >>> store = st.SqliteStore(path)
    >>> loop = st.ToolLoop(ScriptedModel(["Hello!"]))
    >>> loop.run("Hi", session="s1", store=store).output
    'Hello!'
    >>> store.load("s1").output, [s.id for s in store.sessions()]
    ('Hello!', ['s1'])
    """

    def __init__(
        self,
        path: str | Path,
        *,
        clock: Callable[[], float] = time.time,
        lease_seconds: float = 30.0,
        owner: str | None = None,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        self.read_only = None if str(path) == ":memory:" else read_only_reason(self.path)
        """Why the store is open read-only (None when it can be written)."""
        self._damaged: StoreDamaged | None = None
        try:
            self._connection, self._layout = open_file(self.path, self.read_only)
        except StoreDamaged as damaged:
            if self.read_only is not None:
                raise
            # what SQLite can still read of a damaged file stays readable
            try:
                self._connection, self._layout = open_file(self.path, "it is damaged", damaged=True)
            except StatetoolsError:
                raise damaged from None
            self._damaged = damaged
        name = owner or f"process {os.getpid()} on {socket.gethostname()}"
        self._leases = Leases(name, lease_seconds, clock, str(self.path))
        self._heart: Heartbeat | None = None
        self._written: dict[str, Written] = {}

    @property
    def owner(self) -> str:
        """The name of this runner, as the lease table and other runners' errors show it.

        >>> SqliteStore(":memory:", owner="runner-a").owner
        'runner-a'
        """
        return self._leases.owner

    # the file -----------------------------------------------------------------------

    @contextmanager
    def _guard(self, doing: str) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock; a sqlite3 error becomes a StatetoolsError."""
        with self._lock:
            try:
                yield self._connection
            except (sqlite3.Error, UnicodeDecodeError) as exc:  # a garbled error message too
                raise store_error(exc, str(self.path), doing, self._connection) from exc

    @contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        """One write transaction (refused, saying why, when the store is read-only)."""
        if self._damaged is not None:
            raise StoreDamaged(
                f"cannot {doing}: {self._damaged.message}",
                path=str(self.path),
                hint=self._damaged.hint,
            )
        if self.read_only is not None:
            raise StoreReadOnly(
                f"cannot {doing}: the session store is read-only ({self.read_only})",
                path=str(self.path),
                hint="make the file and its folder writable, or copy the store to a "
                "writable place and use that",
            )
        with self._guard(doing) as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def close(self) -> None:
        """Close the file, giving up the sessions this runner holds (the store cannot be
        used afterwards); ``with SqliteStore(path) as store:`` closes it at the end.

        >>> import os, tempfile
        >>> with SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db")) as store:
        ...     store.sessions()
        []
        """
        if self._heart is not None:
            self._heart.stop()
            self._heart = None
        with self._lock:
            if self._leases.held and self.read_only is None:
                try:
                    with self._write("give up its sessions") as connection:
                        for session in list(self._leases.held):
                            self._leases.release(connection, session)
                except StatetoolsError:
                    pass  # a damaged or closed file: the leases expire
            self._connection.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # runners ------------------------------------------------------------------------

    def claim(self, session: str) -> int:
        """Make this store the runner of ``session`` until its run ends (the loop calls
        it before a run with ``session=`` takes a step); its fencing token.

        Raises :class:`~statetools.durable.failures.SessionBusy` naming the owner when
        another runner holds it, :class:`~statetools.durable.failures.StoreReadOnly`
        when the store cannot be written.

        Two store objects of one process are one runner: the later claim wins, and the
        earlier one's next save is refused.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.db")
        >>> SqliteStore(path, owner="runner-a").claim("s1")
        1
        >>> SqliteStore(path, owner="runner-b").claim("s1")  # the same process
        2
        """
        with self._write(f"run session {session!r}") as connection:
            token = self._leases.claim(connection, session)
        if self._heart is None or not self._heart.alive:  # it stops when none is held
            self._heart = Heartbeat(self._leases.seconds / 3, self._renew)
        return token

    def release(self, session: str) -> None:
        """Stop being the runner of ``session`` (a run that ends does it itself).

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.db")
        >>> store = SqliteStore(path, owner="runner-a")
        >>> store.claim("s1"), store.release("s1"), SqliteStore(path).claim("s1")
        (1, None, 2)
        """
        if session in self._leases.held:
            with self._write(f"give up session {session!r}") as connection:
                self._leases.release(connection, session)

    def _renew(self) -> bool:
        """Renew the leases held; whether any is."""
        with self._lock:
            if self._leases.held:
                with self._write("renew its leases") as connection:
                    self._leases.renew_all(connection)
            return bool(self._leases.held)

    # the SessionStore protocol ------------------------------------------------------

    def save(self, session: str, run: SavedRun) -> None:
        """Save ``run`` as ``session``'s run so far (one transaction): the messages and
        events it added are appended, its state replaces the saved one.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> store.save("copy", store.saved("s1"))
        >>> store.load("copy").output
        'Hello!'
        """
        result = run.result
        head = head_json(result)
        with self._write(f"save session {session!r}") as connection:
            self._leases.check(connection, session, ended=result.outcome != "running")
            known = self._written.get(session)
            written = write_rows(
                connection, session, run.run_id, result, head, self._clock(), known, self._layout
            )
        self._written[session] = written

    def saved(self, session: str) -> SavedRun | None:
        """``session``'s saved run, or None if it has none.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> store.saved("s1").result.messages[-1].content, store.saved("s2")
        ('Hello!', None)
        """
        where = f"{self.path}: session {session!r}"
        with self._guard(f"reading session {session!r}") as connection:
            rows = read_rows(connection, session, self._layout)
        if rows is None:
            return None
        if rows.whole is not None:  # a session still in the layout of store version 1
            return SavedRun(rows.run_id, run_from_whole(rows.whole, where))
        result = run_from_rows(rows.head, list(rows.messages), list(rows.events), where)
        self._written[session] = Written(
            rows.generation, tuple(result.messages), tuple(result.trace.events)
        )
        return SavedRun(rows.run_id, result)

    # for people ---------------------------------------------------------------------

    def load(self, session: str) -> LoopResult:
        """The run of ``session`` so far (``outcome`` is ``running`` if it has not ended).

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> result = store.load("s1")
        >>> result.outcome, result.output, result.iterations
        ('answer', 'Hello!', 1)
        """
        saved = self.saved(session)
        if saved is None:
            raise StatetoolsError(
                f"no session {session!r}",
                path=str(self.path),
                hint="list the saved ones with store.sessions() or `statetools sessions`",
            )
        return saved.result

    def sessions(self) -> list[SessionInfo]:
        """Every saved session, the most recently updated first. Where part of a damaged
        file cannot be read, the sessions SQLite can still read are listed, and those
        whose id is known but whose row is not say ``damaged``.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> [(info.id, info.outcome, info.iterations) for info in store.sessions()]
        [('s1', 'answer', 1)]
        """
        with self._guard("listing the sessions") as connection:
            rows = list_sessions(connection, self._layout, str(self.path))
        infos = [SessionInfo(*row) for row in rows]
        return sorted(infos, key=lambda info: (-info.updated, info.id))

    def delete(self, session: str) -> bool:
        """Forget ``session``; True if it was saved.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> store.delete("s1"), store.delete("s1"), store.sessions()
        (True, False, [])
        """
        with self._write(f"delete session {session!r}") as connection:
            self._leases.check(connection, session, ended=True)
            count = delete_rows(connection, session, self._layout)
        self._written.pop(session, None)
        return count > 0
