"""Who runs a session: one runner at a time, by lease.

A runner (a process, through a :class:`~statetools.SqliteStore`) claims a session
before its run takes a step; the lease row names it, carries a fencing token (one more
at every claim) and an expiry. While the runner's process lives, a background thread renews
its leases; a save checks, in its own transaction, that the lease is still this
runner's with the same token, so a runner whose lease ran out and was taken over can
never write over the new owner's steps. A run that ends releases its lease; a runner
that died stops renewing, and its lease expires ``lease_seconds`` later; on the same
machine a runner whose process is gone is known dead at once.
"""

from __future__ import annotations

import inspect
import os
import socket
import sqlite3
import threading
import weakref
from collections.abc import Callable

from statetools.durable.failures import SessionBusy
from statetools.errors import StatetoolsError

__all__ = ["Leases"]


class Leases:
    """The leases one runner (a process) holds in one store file, through one store
    object; every method runs inside the caller's transaction (the store's lock held).

    Two store objects of one process are one runner: either may continue a session the
    other left, and the later claim fences the earlier (its next save is refused).

    >>> import sqlite3
    >>> connection = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = connection.execute(TABLE)
    >>> leases = Leases("runner-a", 30.0, lambda: 100.0, "runs.db")
    >>> leases.claim(connection, "s1")
    1
    >>> _ = connection.execute("UPDATE statetools_leases SET host = 'elsewhere'")
    >>> Leases("runner-b", 30.0, lambda: 110.0, "runs.db").claim(connection, "s1")
    Traceback (most recent call last):
    statetools.durable.failures.SessionBusy: runs.db: session 's1' is being run by runner-a (lease 1) Hint: ...
    """  # noqa: E501

    def __init__(self, owner: str, seconds: float, clock: Callable[[], float], where: str) -> None:
        self.owner = owner
        self.seconds = seconds
        self.clock = clock
        self.where = where
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.held: dict[str, int] = {}
        """The token of each session this store object holds."""

    def _row(self, connection: sqlite3.Connection, session: str) -> tuple[str, int, bool, bool]:
        """(owner, token, whether it is live, whether it is this process's) of
        ``session``'s lease; a lease whose process is gone from this machine is dead."""
        row = connection.execute(
            "SELECT owner, token, expires, host, pid FROM statetools_leases WHERE session = ?",
            (session,),
        ).fetchone()
        if row is None:
            return "", 0, False, False
        owner, token, expires, host, pid = row
        here = host == self.host
        mine = here and pid == self.pid
        live = owner is not None and float(expires) > self.clock()
        if live and here and not mine and not _alive(int(pid)):
            live = False
        return str(owner), int(token), live, mine

    def _busy(self, session: str, owner: str, token: int) -> SessionBusy:
        return SessionBusy(
            f"session {session!r} is being run by {owner} (lease {token})",
            owner=owner,
            token=token,
            path=self.where,
            hint="wait until that run ends, or stop it; if its process died, the session is "
            "free once its lease expires (lease_seconds after its last sign of life)",
        )

    def claim(self, connection: sqlite3.Connection, session: str) -> int:
        """Take ``session``'s lease (or keep it, if this store holds it): its token.

        >>> import sqlite3
        >>> connection = sqlite3.connect(":memory:", isolation_level=None)
        >>> _ = connection.execute(TABLE)
        >>> leases = Leases("runner-a", 30.0, lambda: 100.0, "runs.db")
        >>> leases.claim(connection, "s1"), leases.claim(connection, "s1")
        (1, 1)
        """
        owner, token, live, mine = self._row(connection, session)
        if live and not mine:
            raise self._busy(session, owner, token)
        if not (live and mine and self.held.get(session) == token):
            token += 1  # a new claim: a new fencing token
        connection.execute(
            "INSERT OR REPLACE INTO statetools_leases VALUES (?, ?, ?, ?, ?, ?)",
            (session, self.owner, token, self.clock() + self.seconds, self.host, self.pid),
        )
        self.held[session] = token
        return token

    def check(self, connection: sqlite3.Connection, session: str, *, ended: bool) -> None:
        """Before a save of ``session``: refuse it unless this store may write it
        (renew the lease; release it when the run ``ended``).

        >>> import sqlite3
        >>> connection = sqlite3.connect(":memory:", isolation_level=None)
        >>> _ = connection.execute(TABLE)
        >>> first = Leases("a", 30.0, lambda: 100.0, "runs.db")
        >>> first.claim(connection, "s1"), Leases("b", 30.0, lambda: 100.0, "runs.db").claim(connection, "s1")
        (1, 2)
        >>> first.check(connection, "s1", ended=False)
        Traceback (most recent call last):
        statetools.errors.StatetoolsError: runs.db: session 's1' was taken over by b (lease 2) ...
        """  # noqa: E501
        owner, token, live, mine = self._row(connection, session)
        held = self.held.get(session)
        if held is None:
            if live and not mine:
                raise self._busy(session, owner, token)
            return
        if not mine or token != held:
            self.held.pop(session, None)
            raise StatetoolsError(
                f"session {session!r} was taken over by {owner or 'another runner'} "
                f"(lease {token}) after this runner's lease {held}; this step was not saved",
                path=self.where,
                hint="the other runner goes on with the session; this run must stop",
            )
        if ended:
            self.release(connection, session)
        else:
            self._renew(connection, session, held)

    def _renew(self, connection: sqlite3.Connection, session: str, token: int) -> None:
        connection.execute(
            "UPDATE statetools_leases SET expires = ? WHERE session = ? AND host = ? "
            "AND pid = ? AND token = ?",
            (self.clock() + self.seconds, session, self.host, self.pid, token),
        )

    def renew_all(self, connection: sqlite3.Connection) -> None:
        """Push back the expiry of every lease this store holds.

        >>> import sqlite3
        >>> connection = sqlite3.connect(":memory:", isolation_level=None)
        >>> _ = connection.execute(TABLE)
        >>> now = [100.0]
        >>> leases = Leases("a", 30.0, lambda: now[0], "runs.db")
        >>> _ = leases.claim(connection, "s1")
        >>> now[0] = 120.0
        >>> leases.renew_all(connection)
        >>> connection.execute("SELECT expires FROM statetools_leases").fetchone()
        (150.0,)
        """
        for session, token in list(self.held.items()):
            self._renew(connection, session, token)

    def release(self, connection: sqlite3.Connection, session: str) -> None:
        """Give ``session`` up (its token stays, so the next claim's is higher).

        >>> import sqlite3
        >>> connection = sqlite3.connect(":memory:", isolation_level=None)
        >>> _ = connection.execute(TABLE)
        >>> leases = Leases("a", 30.0, lambda: 100.0, "runs.db")
        >>> _ = leases.claim(connection, "s1")
        >>> leases.release(connection, "s1")
        >>> connection.execute("SELECT owner, token FROM statetools_leases").fetchone()
        (None, 1)
        """
        token = self.held.pop(session, None)
        if token is not None:
            connection.execute(
                "UPDATE statetools_leases SET owner = NULL, expires = 0 WHERE session = ? "
                "AND host = ? AND pid = ? AND token = ?",
                (session, self.host, self.pid, token),
            )


TABLE = """CREATE TABLE IF NOT EXISTS statetools_leases (
    session TEXT PRIMARY KEY,
    owner TEXT,
    token INTEGER NOT NULL,
    expires REAL NOT NULL,
    host TEXT,
    pid INTEGER
)"""
"""The lease table: one row per session ever claimed (its token only grows)."""


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # exists, but someone else's (or cannot tell)
    return True


class Heartbeat:
    """A daemon thread calling ``beat`` every ``interval`` seconds while it returns
    True and its owner lives (``beat`` is held by a weak reference, so the thread does
    not keep a store alive), until stopped.

    >>> beats = []
    >>> heart = Heartbeat(0.01, lambda: beats.append(1) or len(beats) < 3)
    >>> heart.stop()
    >>> heart.alive
    False
    """

    def __init__(self, interval: float, beat: Callable[[], bool]) -> None:
        self._stopped = threading.Event()
        self._beat: Callable[[], Callable[[], bool] | None] = (
            weakref.WeakMethod(beat) if inspect.ismethod(beat) else lambda: beat
        )
        self._interval = interval
        self._thread = threading.Thread(target=self._run, name="statetools-lease", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self._interval):
            beat = self._beat()
            if beat is None:  # its store is gone; its leases expire
                break
            try:
                if not beat():
                    break
            except Exception:  # a damaged or closed store: the next save says so
                continue
            finally:
                del beat
        self._stopped.set()

    @property
    def alive(self) -> bool:
        """Whether it still beats.

        >>> Heartbeat(60.0, lambda: True).alive
        True
        """
        return not self._stopped.is_set()

    def stop(self) -> None:
        """Stop beating (waits for a beat under way to end).

        >>> heart = Heartbeat(60.0, lambda: True)
        >>> heart.stop()
        """
        self._stopped.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
