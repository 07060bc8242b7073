"""SqliteStore: sessions saved in one SQLite file (WAL mode), one row per session.

Each step of a run replaces its session's row in one transaction, so a process that
dies at any moment leaves the previous step or the new one, never a mix.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from statetools.disclosure.state import DisclosureState
from statetools.engine.events import Trace
from statetools.engine.result import LoopResult
from statetools.errors import SpecError, StatetoolsError
from statetools.loop.sessions import SavedRun
from statetools.messages import messages_from_json, messages_to_json
from statetools.models.base import Usage
from statetools.tools.convert import to_jsonable

__all__ = ["SCHEMA_VERSION", "SessionInfo", "SqliteStore"]

SCHEMA_VERSION = 1
"""The layout of the file this version writes; files of a newer layout are refused."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS statetools_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS statetools_sessions (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    outcome TEXT NOT NULL,
    iterations INTEGER NOT NULL,
    updated REAL NOT NULL,
    data TEXT NOT NULL
);
"""


@attrs.frozen
class SessionInfo:
    """One saved session, as :meth:`SqliteStore.sessions` lists it.

    ``outcome`` is ``running`` while its run has not ended; ``updated`` is a Unix time.

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


class SqliteStore:
    """Sessions in a SQLite file, for ``loop.run(..., session=, store=)``.

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

    def __init__(self, path: str | Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.Lock()
        self._connection = self._open()

    # the file -----------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        where = str(self.path)
        try:
            if self.path.parent != Path():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    connection.execute(statement)
                row = connection.execute(
                    "SELECT value FROM statetools_meta WHERE key = 'schema_version'"
                ).fetchone()
                if row is None:
                    connection.execute(
                        "INSERT INTO statetools_meta VALUES ('schema_version', ?)",
                        (str(SCHEMA_VERSION),),
                    )
        except sqlite3.DatabaseError as exc:
            raise StatetoolsError(
                f"not a session store: {exc}",
                path=where,
                hint="give the path of a store file statetools made, or of a new file",
            ) from exc
        except OSError as exc:
            raise StatetoolsError(
                f"cannot open the session store: {exc.strerror or exc}",
                path=where,
                hint="check that the folder exists and can be written",
            ) from exc
        version = _version(row[0] if row is not None else str(SCHEMA_VERSION), where)
        if version > SCHEMA_VERSION:
            connection.close()
            raise StatetoolsError(
                f"the session store was written by a newer statetools (store version "
                f"{version}; this one reads {SCHEMA_VERSION})",
                path=where,
                hint="upgrade statetools to continue these sessions",
            )
        return connection

    def close(self) -> None:
        """Close the file (the store cannot be used afterwards); ``with SqliteStore(path)
        as store:`` closes it at the end of the block.

        >>> import os, tempfile
        >>> with SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db")) as store:
        ...     store.sessions()
        []
        """
        with self._lock:
            self._connection.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the SessionStore protocol ------------------------------------------------------

    def save(self, session: str, run: SavedRun) -> None:
        """Replace ``session``'s saved run with ``run`` (one transaction).

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> store.save("copy", store.saved("s1"))
        >>> store.load("copy").output
        'Hello!'
        """
        result = run.result
        data = json.dumps(_to_data(result), ensure_ascii=False, allow_nan=False)
        with self._lock, self._connection:
            self._connection.execute(
                "INSERT OR REPLACE INTO statetools_sessions VALUES (?, ?, ?, ?, ?, ?)",
                (session, run.run_id, result.outcome, result.iterations, self._clock(), data),
            )

    def saved(self, session: str) -> SavedRun | None:
        """``session``'s saved run, or None if it has none.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> store.saved("s1").result.messages[-1].content, store.saved("s2")
        ('Hello!', None)
        """
        with self._lock:
            row = self._connection.execute(
                "SELECT run_id, data FROM statetools_sessions WHERE id = ?", (session,)
            ).fetchone()
        if row is None:
            return None
        return SavedRun(row[0], _from_data(row[1], f"{self.path}: session {session!r}"))

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
        """Every saved session, the most recently updated first.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> [(info.id, info.outcome, info.iterations) for info in store.sessions()]
        [('s1', 'answer', 1)]
        """
        with self._lock:
            rows = self._connection.execute(
                "SELECT id, outcome, iterations, updated FROM statetools_sessions "
                "ORDER BY updated DESC, id"
            ).fetchall()
        return [SessionInfo(*row) for row in rows]

    def delete(self, session: str) -> bool:
        """Forget ``session``; True if it was saved.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "runs.db"))
        >>> _ = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", session="s1", store=store)
        >>> store.delete("s1"), store.delete("s1"), store.sessions()
        (True, False, [])
        """
        with self._lock, self._connection:
            cursor = self._connection.execute(
                "DELETE FROM statetools_sessions WHERE id = ?", (session,)
            )
        return cursor.rowcount > 0


def _version(text: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise StatetoolsError(
            f"the session store has an unreadable version {text!r}",
            path=where,
            hint="the file is damaged; restore it from a copy",
        ) from None


def _output(value: Any) -> Any:
    try:
        data = to_jsonable(value)
        json.dumps(data, allow_nan=False)
    except Exception:  # an output that JSON cannot hold is kept as its text
        return {"text": str(value)}
    return {"value": data}


def _to_data(result: LoopResult) -> dict[str, Any]:
    return {
        "output": _output(result.output),
        "messages": messages_to_json(result.messages),
        "iterations": result.iterations,
        "usage": attrs.asdict(result.usage),
        "trace": result.trace.to_json(),
        "state": json.loads(result.state.to_json()),
        "outcome": result.outcome,
        "stop_reason": result.stop_reason,
    }


def _from_data(text: str, where: str) -> LoopResult:
    try:
        data = json.loads(text)
        output = data["output"]
        return LoopResult(
            output=output.get("value", output.get("text")),
            messages=tuple(messages_from_json(data["messages"])),
            iterations=int(data["iterations"]),
            usage=Usage(**data["usage"]),
            trace=Trace.from_json(data["trace"]),
            state=DisclosureState.from_json(data["state"]),
            outcome=str(data["outcome"]),
            stop_reason=data["stop_reason"],
        )
    except SpecError as exc:
        raise SpecError(
            f"a saved session is damaged: {exc.message}", path=where, hint=exc.hint
        ) from exc
    except Exception as exc:
        raise SpecError(
            f"a saved session is damaged: {type(exc).__name__}: {exc}",
            path=where,
            hint="the store file was changed by something else; delete the session",
        ) from exc
