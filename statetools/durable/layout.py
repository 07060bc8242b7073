"""The tables of a store file, opening it (read-write, or read-only where it cannot be
written) and the layouts it may hold.

Store version 2 keeps a session as a small row (``statetools_runs``: outcome, counts,
the head of the run) and its messages and trace events as rows of their own, appended
as the run goes (in rowid tables found through a small index, so a damaged long row
is only read by its own session). Files of version 1 (``statetools_sessions``: the whole run as one
JSON text per session) are still read; a session moves to the new tables at its next
save.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

import attrs

from statetools.durable.failures import store_error
from statetools.durable.leases import TABLE as LEASES
from statetools.errors import StatetoolsError

__all__ = ["SCHEMA_VERSION", "Layout", "open_file"]

SCHEMA_VERSION = 2
"""The layout of the file this version writes; files of a newer layout are refused."""

OLD = "statetools_sessions"
"""The table of store version 1: one row per session, the whole run as JSON."""

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS statetools_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS statetools_runs (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        outcome TEXT NOT NULL,
        iterations INTEGER NOT NULL,
        updated REAL NOT NULL,
        generation INTEGER NOT NULL,
        messages INTEGER NOT NULL,
        events INTEGER NOT NULL,
        head TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS statetools_messages (
        row INTEGER PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL,
        data TEXT NOT NULL, UNIQUE (session, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS statetools_events (
        row INTEGER PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL,
        data TEXT NOT NULL, UNIQUE (session, seq)
    )""",
    LEASES,
)


@attrs.frozen
class Layout:
    """What an open store file holds: its version and which tables.

    >>> Layout(2, frozenset({"statetools_runs"})).has("statetools_runs")
    True
    """

    version: int
    tables: frozenset[str]

    def has(self, table: str) -> bool:
        """Whether the file has ``table``.

        >>> Layout(2, frozenset()).has("statetools_runs")
        False
        """
        return table in self.tables


def open_file(
    path: Path, read_only: str | None, *, damaged: bool = False
) -> tuple[sqlite3.Connection, Layout]:
    """Open the store file at ``path`` (made if missing), read-only when ``read_only``
    says why it must be. A ``damaged`` file is opened read-only to read what can still
    be read (SQLite then takes a file shorter than its header says as it is).

    >>> connection, layout = open_file(Path(":memory:"), None)
    >>> layout.version, layout.has("statetools_runs")
    (2, True)
    """
    where = str(path)
    connection: sqlite3.Connection | None = None
    try:
        if read_only is None:
            if where != ":memory:" and path.parent != Path():
                path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
            connection.text_factory = _text  # a damaged row's bytes are no decoding error
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            layout = _prepare(connection, where)
        else:
            connection = _connect_read_only(path)
            connection.text_factory = _text
            if damaged:
                connection.execute("PRAGMA writable_schema=ON")  # nothing can be written
            layout = _layout(connection, where)
    except (sqlite3.Error, UnicodeDecodeError) as exc:  # a garbled error message too
        error = store_error(exc, where, "opening it", connection)
        if connection is not None:
            connection.close()
        if "file is not a database" in str(exc):
            raise StatetoolsError(
                f"not a session store: {exc}",
                path=where,
                hint="give the path of a store file statetools made, or of a new file; if "
                "it was a store, it is damaged: restore it from a backup",
            ) from exc
        raise error from exc
    except OSError as exc:
        raise StatetoolsError(
            f"cannot open the session store: {exc.strerror or exc}",
            path=where,
            hint="check that the folder exists and can be written",
        ) from exc
    except StatetoolsError:
        if connection is not None:
            connection.close()
        raise
    return connection, layout


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection; ``immutable`` where the folder cannot be written either
    (SQLite could not make its shared-memory file there)."""
    folder = path.resolve().parent
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    writable = _writable(folder)
    if not writable:
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK) and bool(folder.stat().st_mode & 0o222)


def _prepare(connection: sqlite3.Connection, where: str) -> Layout:
    connection.execute("BEGIN IMMEDIATE")
    try:
        layout = _layout(connection, where)
        if layout.version <= SCHEMA_VERSION:
            for statement in SCHEMA:
                connection.execute(statement)
            connection.execute(
                "INSERT OR REPLACE INTO statetools_meta VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return _layout(connection, where)


def _layout(connection: sqlite3.Connection, where: str) -> Layout:
    tables = frozenset(
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
    )
    version = SCHEMA_VERSION if OLD not in tables else 1
    if "statetools_meta" in tables:
        row = connection.execute(
            "SELECT value FROM statetools_meta WHERE key = 'schema_version'"
        ).fetchone()
        if row is not None:
            version = _version(row[0], where)
    if version > SCHEMA_VERSION:
        raise StatetoolsError(
            f"the session store was written by a newer statetools (store version "
            f"{version}; this one reads {SCHEMA_VERSION})",
            path=where,
            hint="upgrade statetools to continue these sessions",
        )
    return Layout(version, tables)


def _version(text: object, where: str) -> int:
    try:
        return int(str(text))
    except ValueError:
        raise StatetoolsError(
            f"the session store has an unreadable version {text!r}",
            path=where,
            hint="the file is damaged; restore it from a copy",
        ) from None
