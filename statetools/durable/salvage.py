"""Listing the sessions of a store file, and as many of them as SQLite can still read
when part of the file is damaged: a damaged row does not hide the others."""

from __future__ import annotations

import sqlite3
from typing import Any

import attrs

from statetools.durable.layout import OLD, Layout

__all__ = ["SessionInfo", "list_sessions"]

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
