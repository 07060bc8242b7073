"""A saved run as rows: a small head (output, usage, state, outcome) and one row per
message and per trace event, so that a save writes only what is new; and the SQL that
writes, reads and deletes a session's rows (:func:`write_rows`, :func:`read_rows`,
:func:`delete_rows`), inside the store's transactions.

The first layout (store version 1) kept the whole run as one JSON text;
:func:`run_from_whole` still reads it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import attrs

from statetools.durable.layout import OLD, Layout
from statetools.engine.events import Event, Trace
from statetools.engine.run_result import LoopResult
from statetools.engine.state import DisclosureState
from statetools.errors import SpecError
from statetools.messages import Message, messages_from_json, messages_to_json
from statetools.models.base import Usage
from statetools.tools.convert import to_jsonable

__all__ = [
    "Rows",
    "Written",
    "column_text",
    "delete_rows",
    "event_texts",
    "head_json",
    "message_texts",
    "read_rows",
    "run_from_rows",
    "run_from_whole",
    "write_rows",
]


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, allow_nan=False)


def _output(value: Any) -> Any:
    try:
        data = to_jsonable(value)
        json.dumps(data, allow_nan=False)
    except Exception:  # an output that JSON cannot hold is kept as its text
        return {"text": str(value)}
    return {"value": data}


def head_json(result: LoopResult) -> str:
    """What a save always rewrites: everything but the messages and the trace.

    >>> result = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[])
    >>> sorted(json.loads(head_json(result)))
    ['iterations', 'outcome', 'output', 'state', 'stop_reason', 'usage']
    """
    return _dumps(
        {
            "output": _output(result.output),
            "iterations": result.iterations,
            "usage": attrs.asdict(result.usage),
            "state": json.loads(result.state.to_json()),
            "outcome": result.outcome,
            "stop_reason": result.stop_reason,
        }
    )


def message_texts(messages: Sequence[Message]) -> list[str]:
    """One JSON text per message.

    >>> from statetools.messages import UserMessage
    >>> message_texts([UserMessage("Hi")])
    ['{"content": "Hi", "role": "user"}']
    """
    return [_dumps(item) for item in messages_to_json(list(messages))]


def event_texts(events: Sequence[Event]) -> list[str]:
    """One JSON text per trace event.

    >>> trace = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[]).trace
    >>> json.loads(event_texts(trace.events)[0])["type"]
    'run_started'
    """
    return [_dumps(item) for item in Trace(tuple(events)).to_json()]


def run_from_rows(head: str, messages: list[str], events: list[str], where: str) -> LoopResult:
    """The run saved as ``head`` and its message and event rows (JSON texts).

    Raises :class:`~statetools.SpecError` naming ``where`` when the rows are damaged.

    >>> result = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[])
    >>> again = run_from_rows(
    ...     head_json(result), message_texts(result.messages), event_texts(result.trace.events), "s"
    ... )
    >>> again == result
    True
    """
    return _damaged_is_spec_error(
        where,
        lambda: _build(
            json.loads(head),
            [json.loads(text) for text in messages],
            [json.loads(text) for text in events],
        ),
    )


def run_from_whole(text: str, where: str) -> LoopResult:
    """The run saved whole as one JSON text (the layout of store version 1).

    >>> result = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[])
    >>> whole = dict(json.loads(head_json(result)), messages=[], trace=[])
    >>> run_from_whole(json.dumps(whole), "s").output
    'Hello!'
    """

    def build() -> LoopResult:
        data = json.loads(text)
        return _build(data, data["messages"], data["trace"])

    return _damaged_is_spec_error(where, build)


def _build(head: Any, messages: Any, events: Any) -> LoopResult:
    output = head["output"]
    return LoopResult(
        output=output.get("value", output.get("text")),
        messages=tuple(messages_from_json(messages)),
        iterations=int(head["iterations"]),
        usage=Usage(**head["usage"]),
        trace=Trace.from_json(events),
        state=DisclosureState.from_json(head["state"]),
        outcome=str(head["outcome"]),
        stop_reason=head["stop_reason"],
    )


def _damaged_is_spec_error(where: str, build: Any) -> LoopResult:
    try:
        result: LoopResult = build()
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
    return result


def column_text(value: object) -> str:
    """A column read as text (a damaged file may hold bytes or numbers there).

    >>> column_text("café".encode()), column_text(3)
    ('café', '3')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


@attrs.define
class Written:
    """What a store last wrote of a session: to append only what is new.

    >>> Written(1, (), ()).generation
    1
    """

    generation: int
    messages: tuple[Any, ...]
    events: tuple[Any, ...]


def _extends(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    """Whether ``new`` starts with ``old`` (the same objects, as a run's messages and
    events are, compare by identity without looking inside)."""
    return len(old) <= len(new) and new[: len(old)] == old


def write_rows(
    connection: sqlite3.Connection,
    session: str,
    run_id: str,
    result: LoopResult,
    head: str,
    updated: float,
    known: Written | None,
    layout: Layout,
) -> Written:
    """Write ``result`` as ``session``'s rows in the open transaction: the messages and
    events added since ``known`` (what this store last wrote, if the rows still say so)
    are appended, the head row is replaced; what is written now.

    >>> from pathlib import Path
    >>> from statetools.durable.layout import open_file
    >>> connection, layout = open_file(Path(":memory:"), None)
    >>> result = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[])
    >>> written = write_rows(connection, "s1", "r1", result, head_json(result), 1.5, None, layout)
    >>> written.generation, len(written.messages)
    (1, 2)
    """
    messages, events = result.messages, result.trace.events
    row = connection.execute(
        "SELECT generation, messages, events FROM statetools_runs WHERE id = ?",
        (session,),
    ).fetchone()
    if (
        known is None
        or row is None
        or tuple(row) != (known.generation, len(known.messages), len(known.events))
        or not _extends(known.messages, messages)
        or not _extends(known.events, events)
    ):
        known = Written(-1, (), ())
        connection.execute("DELETE FROM statetools_messages WHERE session = ?", (session,))
        connection.execute("DELETE FROM statetools_events WHERE session = ?", (session,))
    start_m, start_e = len(known.messages), len(known.events)
    connection.executemany(
        "INSERT INTO statetools_messages VALUES (NULL, ?, ?, ?)",
        [(session, start_m + i, t) for i, t in enumerate(message_texts(messages[start_m:]))],
    )
    connection.executemany(
        "INSERT INTO statetools_events VALUES (NULL, ?, ?, ?)",
        [(session, start_e + i, t) for i, t in enumerate(event_texts(events[start_e:]))],
    )
    generation = (int(row[0]) if row is not None else 0) + 1
    connection.execute(
        "INSERT OR REPLACE INTO statetools_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session,
            run_id,
            result.outcome,
            result.iterations,
            updated,
            generation,
            len(messages),
            len(events),
            head,
        ),
    )
    if layout.has(OLD):
        connection.execute(f"DELETE FROM {OLD} WHERE id = ?", (session,))
    return Written(generation, tuple(messages), tuple(events))


@attrs.frozen
class Rows:
    """A session's rows as read: its run id, and its head, messages and events (in the
    layout of store version 2) or its whole run (version 1) as JSON texts.

    >>> Rows("r1", whole='{"output": {"text": "Hi"}}').generation
    -1
    """

    run_id: str
    head: str = ""
    messages: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    generation: int = -1
    whole: str | None = None


def read_rows(connection: sqlite3.Connection, session: str, layout: Layout) -> Rows | None:
    """``session``'s rows, or None if it has none.

    >>> from pathlib import Path
    >>> from statetools.durable.layout import open_file
    >>> connection, layout = open_file(Path(":memory:"), None)
    >>> result = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[])
    >>> _ = write_rows(connection, "s1", "r1", result, head_json(result), 1.5, None, layout)
    >>> rows = read_rows(connection, "s1", layout)
    >>> rows.run_id, len(rows.messages), read_rows(connection, "s2", layout)
    ('r1', 2, None)
    """
    row = None
    if layout.has("statetools_runs"):
        row = connection.execute(
            "SELECT run_id, head, generation FROM statetools_runs WHERE id = ?",
            (session,),
        ).fetchone()
    if row is None:
        if not layout.has(OLD):
            return None
        whole = connection.execute(
            f"SELECT run_id, data FROM {OLD} WHERE id = ?", (session,)
        ).fetchone()
        if whole is None:
            return None
        return Rows(str(whole[0]), whole=column_text(whole[1]))
    messages = [
        column_text(r[0])
        for r in connection.execute(
            "SELECT data FROM statetools_messages WHERE session = ? ORDER BY seq",
            (session,),
        )
    ]
    events = [
        column_text(r[0])
        for r in connection.execute(
            "SELECT data FROM statetools_events WHERE session = ? ORDER BY seq",
            (session,),
        )
    ]
    return Rows(str(row[0]), column_text(row[1]), tuple(messages), tuple(events), int(row[2]))


def delete_rows(connection: sqlite3.Connection, session: str, layout: Layout) -> int:
    """Delete ``session``'s rows; how many sessions were deleted (0 or 1, or 2 where a
    version 1 row was left too).

    >>> from pathlib import Path
    >>> from statetools.durable.layout import open_file
    >>> connection, layout = open_file(Path(":memory:"), None)
    >>> delete_rows(connection, "s1", layout)
    0
    """
    count: int = connection.execute("DELETE FROM statetools_runs WHERE id = ?", (session,)).rowcount
    connection.execute("DELETE FROM statetools_messages WHERE session = ?", (session,))
    connection.execute("DELETE FROM statetools_events WHERE session = ?", (session,))
    if layout.has(OLD):
        count += connection.execute(f"DELETE FROM {OLD} WHERE id = ?", (session,)).rowcount
    return count
