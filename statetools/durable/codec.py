"""A saved run as rows: a small head (output, usage, state, outcome) and one row per
message and per trace event, so that a save writes only what is new.

The first layout (store version 1) kept the whole run as one JSON text;
:func:`run_from_whole` still reads it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs

from statetools.engine.events import Event, Trace
from statetools.engine.run_result import LoopResult
from statetools.engine.state import DisclosureState
from statetools.errors import SpecError
from statetools.messages import Message, messages_from_json, messages_to_json
from statetools.models.base import Usage
from statetools.tools.convert import to_jsonable

__all__ = [
    "column_text",
    "event_texts",
    "head_json",
    "message_texts",
    "run_from_rows",
    "run_from_whole",
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
