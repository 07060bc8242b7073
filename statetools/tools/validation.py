"""Checks a model's arguments against a tool's JSON schema, in words the model can act on.

>>> v = make_validator({"type": "object", "properties": {"n": {"type": "integer"}},
...                     "required": ["n"], "additionalProperties": False})
>>> for problem in argument_problems(v, {"n": "5", "x": 1}):
...     print(problem)
unknown argument 'x' (allowed: n)
argument 'n' must be an integer, got "5"
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from statetools.wording import counted

if TYPE_CHECKING:
    import jsonschema
    from jsonschema.exceptions import ValidationError

_ARTICLES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}
_MAX_SHOWN = 60


class ArgumentValidator:
    """The checks of one JSON schema: :func:`argument_problems` takes it.

    Most arguments a model sends are valid, so a compiled check (``jsonschema-rs``,
    about 0.1 microseconds for a tool's arguments) answers first; only when it does
    not say "valid" does ``jsonschema`` (the reference, some microseconds) look for
    the problems to put in words. A value either finds valid is valid; the compiled
    check is made on first use, and a schema it cannot compile (a ``$ref`` to
    another document, a pattern in another regex dialect) or whose verdicts may
    differ (``multipleOf``, which it checks in floating point) is checked by
    ``jsonschema`` alone.

    >>> v = make_validator({"type": "object", "properties": {"n": {"type": "integer"}}})
    >>> v.is_valid({"n": 1}), v.is_valid({"n": "1"})
    (True, False)
    """

    __slots__ = ("_kind", "_quick", "_reference", "schema")

    def __init__(self, schema: Mapping[str, Any], kind: type[jsonschema.protocols.Validator]):
        self.schema = schema
        self._kind = kind
        self._reference: jsonschema.protocols.Validator | None = None
        self._quick: Callable[[Any], bool] | None = None

    @property
    def reference(self) -> jsonschema.protocols.Validator:
        """The ``jsonschema`` validator: the reference, and the words of each problem
        (made on first use: most tools never meet a value the compiled check refuses)."""
        reference = self._reference
        if reference is None:
            reference = self._reference = self._kind(self.schema)
        return reference

    def is_valid(self, value: Any) -> bool:
        """Whether ``value`` fits the schema."""
        return self._quickly_valid(value) or bool(self.reference.is_valid(value))

    def iter_errors(self, value: Any) -> Iterable[ValidationError]:
        """Each of ``value``'s problems (none when the compiled check finds it valid)."""
        return () if self._quickly_valid(value) else self.reference.iter_errors(value)

    def _quickly_valid(self, value: Any) -> bool:
        quick = self._quick
        if quick is None:
            quick = self._quick = _compiled(self.schema)
        try:
            return quick(value)
        except ValueError:  # not a JSON value (a Python object): the reference decides
            return False


def _never(value: Any) -> bool:
    """The compiled check of a schema ``jsonschema-rs`` cannot compile: no verdict."""
    return False


def _compiled(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    """``jsonschema-rs``'s check of ``schema``, or :func:`_never` if it cannot make one.

    Formats are annotations (as ``jsonschema`` has them by default) and nothing is
    fetched over the network.
    """
    if _uses_keyword(schema, "multipleOf"):
        # it divides in floating point: 2.620354914380229e79, which leaves 2 when
        # divided by 3, passes its {"multipleOf": 3}; jsonschema's remainder is exact
        return _never
    rs: Any = importlib.import_module("jsonschema_rs")
    try:
        compiled = rs.validator_for(dict(schema), validate_formats=False, offline=True)
    except Exception:  # its dialect refuses something jsonschema accepts
        return _never
    return compiled.is_valid  # type: ignore[no-any-return]


def _uses_keyword(schema: Any, keyword: str) -> bool:
    """Whether ``keyword`` is a key anywhere in ``schema``."""
    pending = [schema]
    while pending:
        value = pending.pop()
        if isinstance(value, Mapping):
            if keyword in value:
                return True
            pending.extend(value.values())
        elif isinstance(value, list | tuple):
            pending.extend(value)
    return False


def make_validator(schema: Mapping[str, Any]) -> ArgumentValidator:
    """A validator for ``schema`` (JSON Schema Draft 2020-12 unless ``$schema`` names another).

    Raises ``jsonschema.SchemaError`` when ``schema`` is not a valid JSON schema. A
    Python tuple counts as an array, as a list does (for arguments given from Python).
    """
    import jsonschema  # on first use: ``import statetools`` needs no schema checker

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not JSON-like at all: check it as it is
        error = _first_schema_error(cls, schema)
    else:
        error = _schema_error(cls, text)
    if error is not None:
        raise jsonschema.SchemaError.create_from(error)
    return ArgumentValidator(schema, _with_tuples(cls))


@functools.cache
def _with_tuples(cls: Any) -> Any:
    """``cls`` whose "array" type takes tuples as well as lists."""
    import jsonschema

    checker = cls.TYPE_CHECKER.redefine(
        "array", lambda _checker, value: isinstance(value, list | tuple)
    )
    return jsonschema.validators.extend(cls, type_checker=checker)  # type: ignore[no-untyped-call]


@functools.lru_cache(maxsize=4096)
def _schema_error(cls: Any, text: str) -> ValidationError | None:
    """The metaschema check of one schema's JSON text, done once per distinct schema
    (catalogues repeat schemas; checking is the slow part of building a tool)."""
    return _first_schema_error(cls, json.loads(text))


def _first_schema_error(cls: Any, schema: Any) -> ValidationError | None:
    import jsonschema

    errors = _meta_validator(cls).iter_errors(dict(schema))
    return jsonschema.exceptions.best_match(errors)  # type: ignore[no-any-return]


@functools.cache
def _meta_validator(cls: Any) -> jsonschema.protocols.Validator:
    """The validator that checks schemas of draft ``cls``, built once (it never changes).

    Draft 2020-12 schemas are checked against the Draft 7 metaschema: it catches the
    same mistakes in the keywords tools use (types, properties, required, enum) and
    is about five times faster, which matters for catalogues of thousands of tools.
    Keywords new in 2020-12 (``prefixItems``, ...) are then not checked.
    """
    import jsonschema

    if cls is jsonschema.Draft202012Validator:
        cls = jsonschema.Draft7Validator
    return cls(cls.META_SCHEMA)  # type: ignore[no-any-return]


def show(value: Any) -> str:
    """``value`` as short JSON for a message (long values are cut with ``...``)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_SHOWN else f"{text[: _MAX_SHOWN - 3]}..."


def json_type_name(value: Any) -> str:
    """The JSON name of a parsed JSON value's type (``"array"`` for a list, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _path(parts: Iterable[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _joined(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _types(wanted: Any) -> str:
    names = wanted if isinstance(wanted, list) else [wanted]
    return " or ".join(_ARTICLES.get(str(n), str(n)) for n in names)


def _missing(error: ValidationError) -> list[str]:
    instance: Any = error.instance
    wanted: Any = error.validator_value
    present = instance if isinstance(instance, Mapping) else {}
    return [str(name) for name in wanted if name not in present]


def _describe(error: ValidationError, noun: str) -> str:
    where = _path(error.absolute_path)
    label = f"{noun} '{where}'" if where else "the value"
    kind = error.validator
    wanted: Any = error.validator_value
    instance: Any = error.instance
    if kind == "additionalProperties":
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        allowed = list(schema.get("properties") or {})
        extra = [n for n in instance if n not in allowed]
        names = ", ".join(f"'{_joined(where, n)}'" for n in extra)
        plural = "" if len(extra) == 1 else "s"
        expected = f"allowed: {', '.join(allowed)}" if allowed else "none are allowed"
        return f"unknown {noun}{plural} {names} ({expected})"
    if kind == "type":
        return f"{label} must be {_types(wanted)}, got {show(instance)}"
    if kind == "enum":
        options = ", ".join(show(v) for v in wanted)
        return f"{label} must be one of {options}, got {show(instance)}"
    if kind == "const":
        return f"{label} must be {show(wanted)}, got {show(instance)}"
    if kind in ("minItems", "maxItems") and isinstance(instance, list):
        bound = "at least" if kind == "minItems" else "at most"
        return f"{label} must have {bound} {counted(wanted, 'item')}, got {len(instance)}"
    if kind == "items" and wanted is False and isinstance(instance, list):
        return f"{label} has too many items ({len(instance)})"
    if kind in ("anyOf", "oneOf"):
        return f"{label} does not match any allowed form, got {show(instance)}"
    return f"{label}: {error.message}"


def argument_problems(
    validator: ArgumentValidator, arguments: Any, *, noun: str = "argument"
) -> list[str]:
    """Every problem with ``arguments``, one sentence each, ordered by where it is.

    Empty when the arguments are valid. ``noun`` names what is checked in the
    sentences ("argument" for tool calls, "field" for structured output).
    """
    errors = sorted(
        validator.iter_errors(arguments),
        key=lambda e: [str(part) for part in e.absolute_path],
    )
    problems: list[str] = []
    reported_missing: set[str] = set()
    for error in errors:
        if error.validator != "required":
            problems.append(_describe(error, noun))
            continue
        where = _path(error.absolute_path)
        if where in reported_missing:
            continue  # jsonschema reports each missing name; all were listed already
        reported_missing.add(where)
        problems.extend(
            f"missing required {noun} '{_joined(where, name)}'" for name in _missing(error)
        )
    return problems
