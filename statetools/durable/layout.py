"""The tables of a store file, opening it (read-write, or read-only where it cannot be
written), the layouts it may hold, and listing its sessions.

Store version 2 keeps a session as a small row (``statetools_runs``: outcome, counts,
the head of the run) and its messages and trace events as rows of their own, appended
as the run goes (in rowid tables found through a small index, so a damaged long row
is only read by its own session). Files of version 1 (``statetools_sessions``: the whole run as one
JSON text per session) are still read; a session moves to the new tables at its next
save.

Listing the sessions (:func:`list_sessions`) reads as many of them as SQLite can still
read when part of the file is damaged: a damaged row does not hide the others.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import attrs

from statetools.durable.failures import store_error
from statetools.durable.leases import TABLE as LEASES
from statetools.errors import StatetoolsError

__all__ = ["Layout", "SCHEMA_VERSION", "SessionInfo", "list_sessions", "open_file"]

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


_MAX_PROBES = 100_000
"""How many row numbers are tried, one by one, when no index of a table can be read."""

Row = tuple[str, str, int, float]


@attrs.frozen
class SessionInfo:
    """One saved session, as :meth:`SqliteStore.sessions` lists it.

    ``outcome`` is ``running`` while its run has not ended (``damaged`` when the store
    cannot read its row); ``updated`` is a Unix time.

    >>> import os, tempfile
    >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"), clock=lambda: 1.5)
    >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
    >>> store.sessions()
    [SessionInfo(id='s1', outcome='answer', iterations=1, updated=1.5)]
    """

    id: str
    outcome: str
    iterations: int
    updated: float


def list_sessions(connection: sqlite3.Connection, layout: Layout, where: str) -> list[Row]:
    """(id, outcome, iterations, updated) of every session in the file; sessions whose
    id can be read but not their row say ``damaged``. Raises ``sqlite3.DatabaseError``
    only when no session at all can be read.

    >>> connection = sqlite3.connect(":memory:")
    >>> list_sessions(connection, Layout(2, frozenset()), "runs.db")
    []
    """
    rows: list[Row] = []
    if layout.has("statetools_runs"):
        rows.extend(_rows(connection, "statetools_runs"))
    if layout.has(OLD):
        known = {row[0] for row in rows}
        rows.extend(row for row in _rows(connection, OLD) if row[0] not in known)
    return rows


def _rows(connection: sqlite3.Connection, table: str) -> list[Row]:
    query = f"SELECT id, outcome, iterations, updated FROM {table}"
    try:
        return [_clean(row) for row in connection.execute(query)]
    except sqlite3.DatabaseError:
        ids = _ids(connection, table)
        if ids is None:
            raise
    found: list[Row] = []
    for session in ids:
        try:
            row = connection.execute(f"{query} WHERE id = ?", (session,)).fetchone()
        except sqlite3.DatabaseError:
            row = (session, "damaged", 0, 0.0)
        if row is not None:
            found.append(_clean(row))
    return found


def _ids(connection: sqlite3.Connection, table: str) -> list[Any] | None:
    """The ids of ``table`` read from its primary-key index, else row by row; None
    when neither can be read."""
    try:
        return [
            row[0]
            for row in connection.execute(
                f"SELECT id FROM {table} INDEXED BY sqlite_autoindex_{table}_1"
            )
        ]
    except sqlite3.DatabaseError:
        pass
    try:
        last = connection.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        return None
    ids: list[Any] = []
    for rowid in range(1, min(int(last or 0), _MAX_PROBES) + 1):
        try:
            row = connection.execute(f"SELECT id FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None:
            ids.append(row[0])
    return ids or None


def _clean(row: Any) -> Row:
    """A row as the types SessionInfo holds (a damaged file may hold anything)."""
    session, outcome, iterations, updated = row
    return (_str(session), _str(outcome), _number(iterations, int, 0), _number(updated, float, 0.0))


def _str(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _number(value: Any, kind: Any, default: Any) -> Any:
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        return default
