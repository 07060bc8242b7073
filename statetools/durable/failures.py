"""What goes wrong with a session store, said plainly: a damaged file (with what
``PRAGMA integrity_check`` finds), a read-only one, a busy one, a session another
runner owns. No raw ``sqlite3`` error leaves the store."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from statetools.errors import StatetoolsError

__all__ = ["SessionBusy", "StoreDamaged", "StoreReadOnly", "read_only_reason", "store_error"]

_BUSY, _LOCKED, _READONLY, _FULL, _CANTOPEN = 5, 6, 8, 13, 14


class StoreDamaged(StatetoolsError):
    """The store file is damaged: SQLite cannot read (part of) it. The message says
    what ``PRAGMA integrity_check`` found; restore the file from a backup.

    >>> raise StoreDamaged("the session store is damaged", path="runs.db")
    Traceback (most recent call last):
    statetools.durable.failures.StoreDamaged: runs.db: the session store is damaged
    """


class StoreReadOnly(StatetoolsError):
    """The store is open read-only (its file or folder cannot be written): sessions can
    be listed and loaded, not saved.

    >>> raise StoreReadOnly("cannot save session 's1': the store is read-only", path="runs.db")
    Traceback (most recent call last):
    statetools.durable.failures.StoreReadOnly: runs.db: cannot save session 's1': ...
    """


class SessionBusy(StatetoolsError):
    """Another runner owns the session (it holds its lease): nothing was run. ``owner``
    names it; ``token`` is its lease's fencing token.

    >>> error = SessionBusy("session 's1' is being run by runner-a (lease 3)", owner="runner-a", token=3)
    >>> error.owner, error.token
    ('runner-a', 3)
    """  # noqa: E501

    def __init__(
        self,
        message: str,
        *,
        owner: str,
        token: int,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, path=path, hint=hint)
        self.owner = owner
        self.token = token


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def read_only_reason(path: Path) -> str | None:
    """Why the existing store at ``path`` must be opened read-only (None when it can be
    written). A file or folder without any write permission bit counts as read-only
    even for a user who could write it anyway (root): whoever made it so meant it.

    >>> read_only_reason(Path("no-such-store.db")) is None
    True
    """
    if not path.is_file():
        return None
    folder = path.resolve().parent
    mode = _mode(path)
    if not os.access(path, os.W_OK) or not mode & 0o222:
        return f"the file cannot be written (mode {mode:04o})"
    folder_mode = _mode(folder)
    if not os.access(folder, os.W_OK) or not folder_mode & 0o222:
        return f"its folder cannot be written (mode {folder_mode:04o})"
    return None


def integrity(connection: sqlite3.Connection | None) -> str:
    """What ``PRAGMA integrity_check`` says (its first lines), or, where it fails too,
    what the lighter ``PRAGMA quick_check`` says.

    >>> integrity(sqlite3.connect(":memory:"))
    'PRAGMA integrity_check says: ok'
    """
    if connection is None:
        return "PRAGMA integrity_check could not run (the file does not open)"
    said = []
    for check in ("integrity_check", "quick_check"):
        try:
            rows = connection.execute(f"PRAGMA {check}(3)").fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            said.append(f"PRAGMA {check} fails ({exc})")
            continue
        lines = "; ".join(line for row in rows for line in str(row[0]).splitlines())
        said.append(f"PRAGMA {check} says: {lines or 'nothing'}")
        break
    return "; ".join(said)


def store_error(
    exc: Exception, where: str, doing: str, connection: sqlite3.Connection | None
) -> StatetoolsError:
    """The StatetoolsError that says what ``exc`` (met while ``doing``) means.

    >>> error = store_error(sqlite3.DatabaseError("database disk image is malformed"),
    ...                     "runs.db", "listing the sessions", None)
    >>> print(error.message)
    the session store is damaged (listing the sessions): database disk image is malformed
    """
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in str(exc):
        return StatetoolsError(
            f"the session store is closed ({doing})", path=where, hint="open it again"
        )
    if code in (_BUSY, _LOCKED):
        return StatetoolsError(
            f"the session store is busy ({doing}): {exc}",
            path=where,
            hint="another process held its write lock too long; try again",
        )
    if code == _READONLY:
        return StoreReadOnly(
            f"the session store cannot be written ({doing}): {exc}",
            path=where,
            hint="make the file and its folder writable, or copy the store somewhere writable",
        )
    if code == _FULL:
        return StatetoolsError(
            f"the disk is full ({doing})",
            path=where,
            hint="free some space; the last saved step is kept",
        )
    if code == _CANTOPEN:
        return StatetoolsError(
            f"cannot open the session store ({doing}): {exc}",
            path=where,
            hint="check that the folder exists and can be written",
        )
    return StoreDamaged(
        f"the session store is damaged ({doing}): {exc}",
        path=where,
        hint=f"{integrity(connection)}. Restore the file from a backup, or move it aside "
        "to start a new store",
    )
