"""Reading a response body the provider's SDK could not decode.

Python's JSON decoder refuses integers longer than ``sys.get_int_max_str_digits()``
and recurses once per level of nesting, so a model that writes 5,000 digits or
100,000 brackets into a tool call's input makes the SDK fail on the whole response.
:func:`lenient_loads` reads such a body anyway: every over-long integer and every
value nested past :data:`MAX_NESTING` becomes an
:class:`~statetools.tools.calling.Unreadable` marker, which
:func:`~statetools.tools.calling.parse_arguments` answers as invalid arguments (the
rest of the response, with every call id, is kept).

>>> data = lenient_loads('{"a": ' + "9" * 5000 + ', "b": [[[1]]]}')
>>> data["a"], data["b"]
(Unreadable(what='number'), [[[1]]])
>>> deep = lenient_loads("[" * 10_000 + "]" * 10_000)
>>> for _ in range(MAX_NESTING - 1):
...     deep = deep[0]
>>> deep
[Unreadable(what='nesting')]
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from statetools.tools.calling import Unreadable

MAX_NESTING = 200
"""Values nested deeper than this are replaced by a marker before decoding."""

_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_MARKER_KEY = "\x00statetools-unreadable"
_TOO_DEEP = json.dumps({_MARKER_KEY: "nesting"})


def lenient_loads(text: str) -> Any:
    """``text`` decoded as JSON, with the values Python cannot decode as markers.

    >>> lenient_loads('{"q": "tides", "n": 3}')
    {'q': 'tides', 'n': 3}
    """
    return json.loads(_flattened(text), parse_int=_integer, object_hook=_marker)


def _integer(digits: str) -> int | Unreadable:
    limit = sys.get_int_max_str_digits() or len(digits)
    return Unreadable("number") if len(digits.lstrip("-")) > limit else int(digits)


def _marker(value: dict[str, Any]) -> Any:
    return Unreadable(value[_MARKER_KEY]) if _MARKER_KEY in value else value


def _flattened(text: str) -> str:
    """``text`` with every value nested past MAX_NESTING replaced by a marker."""
    pieces: list[str] = []
    depth = 0
    kept = 0  # text[:kept] is in pieces
    cut_at: int | None = None  # where the value being replaced starts
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark[0] == '"':
            continue
        if mark in "[{":
            depth += 1
            if depth > MAX_NESTING and cut_at is None:
                cut_at = token.start()
        else:
            if cut_at is not None and depth == MAX_NESTING + 1:
                pieces += [text[kept:cut_at], _TOO_DEEP]
                kept, cut_at = token.end(), None
            depth -= 1
    return "".join([*pieces, text[kept:]]) if pieces else text
