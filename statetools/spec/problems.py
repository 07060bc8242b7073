"""Problems found in a YAML/dict definition: where (path and line), what, and what to do.

Every problem of a file is collected before anything is raised, so one
:class:`~statetools.SpecError` lists them all. Paths look like
``$.states.DRAFT.tools[2].transitions_to``; lines come from the YAML node marks.

>>> str(SpecProblem("unknown state 'DONE'", path=("states", "DRAFT"), line=7))
"$.states.DRAFT (line 7): unknown state 'DONE'"
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Self

import attrs
from cattrs.errors import (
    AttributeValidationNote,
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
    IterableValidationNote,
)

from statetools.errors import SpecError, StatetoolsError

Segment = str | int
Path = tuple[Segment, ...]

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


QUOTE_LIMIT = 80
"""How many characters of a value from the input a problem quotes."""

MESSAGE_LIMIT = 300
"""The longest message or hint a problem carries (longer ones are cut)."""


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text``, cut to ``limit`` characters with a note of its length when longer.

    >>> shorten("x" * 100, 10)
    'xxxxxxxxx… (100 characters)'
    """
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(text)} characters)"


def _cut(text: str) -> str:
    if len(text) <= MESSAGE_LIMIT:
        return text
    return f"{text[:MESSAGE_LIMIT]}… (cut from {len(text):,} characters)"


def format_path(path: Sequence[Any]) -> str:
    """``("states", "DRAFT", "tools", 2)`` -> ``$.states.DRAFT.tools[2]``.

    Keys that are not plain names are quoted; keys that are not text (from data that
    has them) are shown as their repr. Long keys are shortened.

    >>> format_path(("definitions", 0, "odd key"))
    "$.definitions[0]['odd key']"
    """
    text = "$"
    for segment in path:
        if isinstance(segment, int) and not isinstance(segment, bool):
            text += f"[{segment}]"
        elif isinstance(segment, str) and _PLAIN_KEY.match(segment):
            text += f".{shorten(segment)}"
        elif isinstance(segment, str):
            text += f"[{shorten(segment)!r}]"
        else:
            text += f"[{shorten(repr(segment))}]"
    return text


class SpecProblem(str):
    """One problem, as text (``"$.a.b (line 3): message Hint: ..."``) with its parts.

    A ``str`` subclass, so ``SpecError.problems`` stays a tuple of strings while tools
    such as ``statetools check --format json`` can read ``path``, ``line``,
    ``message`` and ``hint``.

    >>> try:
    ...     load_playbook("definitions:\\n  - kind: playbook\\n    name: research\\n")
    ... except SpecError as error:
    ...     problem = error.problems[0]
    >>> problem
    "$.definitions[0].description (line 2): 'description' is required"
    >>> problem.path, problem.line, problem.message
    (('definitions', 0, 'description'), 2, "'description' is required")
    """

    path: Path
    line: int | None
    message: str
    hint: str | None

    def __new__(
        cls,
        message: str,
        *,
        path: Path = (),
        line: int | None = None,
        hint: str | None = None,
    ) -> Self:
        message = _cut(message)
        hint = None if hint is None else _cut(hint)
        where = format_path(path)
        if line is not None:
            where += f" (line {line})"
        text = f"{where}: {message}"
        if hint:
            text += f" Hint: {hint}"
        instance = super().__new__(cls, text)
        instance.path = tuple(path)
        instance.line = line
        instance.message = message
        instance.hint = hint
        return instance

    @property
    def where(self) -> str:
        """The path as text, e.g. ``$.states.DRAFT``.

        >>> SpecProblem("unknown state", path=("states", "DRAFT")).where
        '$.states.DRAFT'
        """
        return format_path(self.path)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: path, line, message, hint.

        >>> SpecProblem("unknown state", path=("states", 0), line=4, hint="use DONE").to_dict()
        {'path': '$.states[0]', 'line': 4, 'message': 'unknown state', 'hint': 'use DONE'}
        """
        return {"path": self.where, "line": self.line, "message": self.message, "hint": self.hint}


class Invalid(ValueError):
    """Raised inside structure hooks: a problem at the current path (plus ``at``)."""

    def __init__(self, message: str, *, hint: str | None = None, at: Path = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.at = at


class Several(ValueError):
    """Raised inside structure hooks to report several problems at once."""

    def __init__(self, problems: Sequence[Invalid]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = tuple(problems)


def located(error: Exception, *segments: Segment) -> Exception:
    """``error`` as if cattrs had raised it from inside ``segments`` (for error paths)."""
    wrapped = error
    for segment in reversed(segments):
        if isinstance(segment, int):
            wrapped.__notes__ = [
                *getattr(wrapped, "__notes__", []),
                IterableValidationNote(f"@ index {segment}", segment, object),
            ]
            wrapped = IterableValidationError("while structuring", [wrapped], list)
        else:
            wrapped.__notes__ = [
                *getattr(wrapped, "__notes__", []),
                AttributeValidationNote(f"@ {segment}", segment, object),
            ]
            wrapped = ClassValidationError("while structuring", [wrapped], object)
    return wrapped


@attrs.frozen
class RawProblem:
    """A problem before its line is known."""

    path: Path
    message: str
    hint: str | None = None


def _allowed_keys(cl: type) -> list[str]:
    if attrs.has(cl):
        return [field.alias or field.name for field in attrs.fields(cl)]
    return []


ROOT_KEYS = ("mcp_servers", "tools_from", "script", "prompt", "system_prompt", "context")
"""Document keys, which may sit beside a definition at the top of a file."""


def _unknown_keys(error: ForbiddenExtraKeysError, path: Path) -> Iterator[RawProblem]:
    allowed = _allowed_keys(error.cl)
    candidates = [*allowed, *ROOT_KEYS] if not path else allowed
    for key in sorted(error.extra_fields, key=str):
        shown = shorten(str(key))
        close = difflib.get_close_matches(str(key), candidates, n=1) if shown == str(key) else []
        hint: str | None
        if close:
            hint = f"did you mean '{close[0]}'?"
        else:
            hint = f"allowed keys: {', '.join(allowed)}" if allowed else None
        yield RawProblem((*path, key), f"unknown key '{shown}'", hint)


def _type_name(kind: Any) -> str:
    names = {
        str: "text",
        int: "an integer",
        bool: "true or false",
        float: "a number",
    }
    return names.get(kind, getattr(kind, "__name__", str(kind)))


def _leaf(error: BaseException, path: Path, kind: Any) -> Iterator[RawProblem]:
    if isinstance(error, Several):
        for problem in error.problems:
            yield RawProblem((*path, *problem.at), problem.message, problem.hint)
    elif isinstance(error, Invalid):
        yield RawProblem((*path, *error.at), error.message, error.hint)
    elif isinstance(error, ForbiddenExtraKeysError):
        yield from _unknown_keys(error, path)
    elif isinstance(error, KeyError):
        yield RawProblem(path, f"'{path[-1]}' is required" if path else "a key is missing")
    elif isinstance(error, StatetoolsError):
        yield RawProblem(path, error.message, error.hint)
    elif isinstance(error, RecursionError):
        yield RawProblem(path, "the data is nested too deeply (or refers to itself)")
    elif kind is not None and kind is not object:
        yield RawProblem(path, f"expected {_type_name(kind)}")
    else:
        yield RawProblem(path, f"invalid value ({error})")


def problems_of(error: BaseException, path: Path = ()) -> list[RawProblem]:
    """Every problem in a cattrs error tree, each with its path.

    Follows the notes cattrs attaches (attribute names and list indices or mapping
    keys), like :func:`cattrs.transform_error`, but keeps paths as segments so they
    can be matched to YAML lines.
    """
    found: list[RawProblem] = []
    if isinstance(error, ClassValidationError | IterableValidationError):
        with_notes, without = error.group_exceptions()
        for sub, note in with_notes:
            segment: Segment = (
                note.name if isinstance(note, AttributeValidationNote) else note.index
            )
            if isinstance(sub, ClassValidationError | IterableValidationError):
                found.extend(problems_of(sub, (*path, segment)))
            else:
                found.extend(_leaf(sub, (*path, segment), note.type))
        for sub in without:
            found.extend(problems_of(sub, path))
    else:
        found.extend(_leaf(error, path, None))
    return found


UNREAD = "(a tools file could not be read)"
"""The end of each unknown-tool problem that a tools file that failed to read explains."""
_UNREAD_SHOWN = 3


def spec_error(
    problems: Iterable[RawProblem],
    lines: Mapping[Path, int] | None = None,
    *,
    source: str | None = None,
) -> SpecError:
    """One :class:`~statetools.SpecError` listing every problem, with lines if known."""
    listed = [
        SpecProblem(p.message, path=p.path, line=line_of(p.path, lines or {}), hint=p.hint)
        for p in problems
    ]
    listed = list(dict.fromkeys(listed))  # the same problem reached twice is listed once
    listed.sort(key=lambda p: p.line if p.line is not None else 0)
    if len(listed) == 1:  # its hint is the error's own (the text stays the problem's)
        only = listed[0]
        where = only.where if only.line is None else f"{only.where} (line {only.line})"
        return SpecError(f"{where}: {only.message}", problems=(only,), path=source, hint=only.hint)
    unread = [p for p in listed if p.message.endswith(UNREAD)][_UNREAD_SHOWN:]
    lines_shown = [f"  {p}" for p in listed if p not in unread]
    if unread:  # a tools file that failed to read makes every name in it unknown
        lines_shown.append(
            f"  ... and {len(unread)} more unknown tools {UNREAD} (all are in SpecError.problems)"
        )
    message = f"{len(listed)} problems:\n" + "\n".join(lines_shown)
    return SpecError(message, problems=tuple(listed), path=source)


def line_of(path: Path, lines: Mapping[Path, int]) -> int | None:
    """The line of ``path``, or of the nearest enclosing element that has one."""
    for end in range(len(path), -1, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None
