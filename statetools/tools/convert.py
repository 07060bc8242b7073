"""Values into JSON and back: the one cattrs converter statetools uses, the text a value
shows the model, and pydantic models as tool parameters, results and output types,
when pydantic is installed.

Pydantic is optional: nothing here imports it. A class is a pydantic model only if
the ``pydantic`` module is already loaded (it is, wherever such a class exists) and
the class derives from ``pydantic.BaseModel``. The schema is pydantic's own
(``model_json_schema``) with its ``$defs`` written in place and its generated titles
left out; values are made with pydantic's own validation (``model_validate``).

>>> from pydantic import BaseModel, Field
>>> class Passenger(BaseModel):
...     '''A traveller.'''
...     name: str = Field(description="Full name")
...     age: int = Field(ge=0)
>>> model_schema(Passenger, "passenger")
{'description': 'A traveller.', 'properties': {'name': {'description': 'Full name', \
'type': 'string'}, 'age': {'minimum': 0, 'type': 'integer'}}, 'required': ['name', 'age'], \
'type': 'object'}
"""

from __future__ import annotations

import enum
import json
import reprlib
import sys
from collections.abc import Mapping
from typing import Any

import cattrs
from cattrs.preconf.json import make_converter

from statetools.errors import DefinitionError

JsonSchema = dict[str, Any]
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
"""Keywords whose value maps names to schemas (names there are not keywords)."""


def is_pydantic_model(annotation: Any) -> bool:
    """Whether ``annotation`` is a pydantic ``BaseModel`` class (never imports pydantic).

    >>> is_pydantic_model(int), is_pydantic_model("Passenger")
    (False, False)
    """
    module = sys.modules.get("pydantic")
    if module is None or not isinstance(annotation, type):
        return False
    return issubclass(annotation, module.BaseModel)


def model_schema(cls: type, where: str) -> JsonSchema:
    """The JSON schema pydantic gives ``cls``, self-contained (no ``$ref``) and without
    the titles pydantic generates. A model that contains itself is refused."""
    try:
        raw: JsonSchema = cls.model_json_schema()  # type: ignore[attr-defined]
    except Exception as exc:  # pydantic refuses some types (callables, ...)
        raise DefinitionError(
            f"pydantic cannot describe {cls.__qualname__} as JSON schema: {exc}",
            path=where or cls.__qualname__,
            hint="use JSON-compatible field types, or give the tool an explicit schema",
        ) from exc
    definitions = raw.pop("$defs", {})
    inlined: JsonSchema = _inline(raw, definitions, (), where or cls.__qualname__)
    return inlined


def _inline(schema: Any, definitions: Mapping[str, Any], seen: tuple[str, ...], where: str) -> Any:
    if isinstance(schema, list):
        return [_inline(item, definitions, seen, where) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        name = reference.removeprefix("#/$defs/")
        if name in seen:
            raise DefinitionError(
                f"type {name} contains itself; recursive types are not supported",
                path=where,
                hint="give the tool an explicit schema, or flatten the type",
            )
        target = _inline(definitions[name], definitions, (*seen, name), where)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        return {**target, **_inline(siblings, definitions, seen, where)}
    result: JsonSchema = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue  # generated from the class or field name: tokens that say nothing
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            result[key] = {
                name: _inline(item, definitions, seen, where) for name, item in value.items()
            }
        else:
            result[key] = _inline(value, definitions, seen, where)
    return result


def validate_model(value: Any, cls: type) -> Any:
    """``value`` (parsed JSON) as an instance of the pydantic model ``cls`` (the shape
    of a cattrs structure hook)."""
    if isinstance(value, cls):
        return value
    return cls.model_validate(value)  # type: ignore[attr-defined]


def dump_model(value: Any) -> Any:
    """A pydantic model instance as plain JSON data."""
    return value.model_dump(mode="json")


def is_validation_error(error: BaseException) -> bool:
    """Whether ``error`` is a pydantic ``ValidationError``."""
    module = sys.modules.get("pydantic")
    return module is not None and isinstance(error, module.ValidationError)


def validation_problems(error: Any, where: str, *, noun: str = "argument") -> list[str]:
    """One short sentence per problem of a pydantic ``ValidationError``, each naming
    the argument's path (``passenger.age``) as the other argument problems do."""
    problems = []
    for item in error.errors(include_url=False):
        path = _path(where, item)
        subject = f"{noun} '{path}'" if path else "the value"
        problems.append(f"{subject} is not valid: {_message(item)}")
    return problems


def short_text(error: Any) -> str:
    """A pydantic ``ValidationError`` in one line: ``name: message; ...``."""
    return "; ".join(
        f"{_path('', item)}: {_message(item)}" if item.get("loc") else _message(item)
        for item in error.errors(include_url=False)
    )


def _path(where: str, item: Mapping[str, Any]) -> str:
    path = where
    for part in item.get("loc", ()):
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def _message(item: Mapping[str, Any]) -> str:
    return str(item.get("msg", "is not valid")).removeprefix("Value error, ")


def make_json_converter(*, forbid_extra_keys: bool = False) -> cattrs.Converter:
    """A cattrs converter for JSON-compatible data (enums by value, attrs/dataclasses as
    dicts, pydantic models through pydantic's own validation and dump)."""
    converter = make_converter(forbid_extra_keys=forbid_extra_keys)
    converter.register_structure_hook_func(is_pydantic_model, validate_model)
    converter.register_unstructure_hook_func(lambda cls: is_pydantic_model(cls), dump_model)
    return converter


JSON_CONVERTER = make_json_converter()
"""Converter for tool arguments and results. It holds no run state, only hooks."""
JSON_CONVERTER.register_structure_hook_func(lambda kind: kind is object, lambda value, _: value)
# A parameter annotated ``object`` (its schema is ``{}``) takes any JSON value as it is.


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (dicts, lists, strings, numbers, booleans, None)."""
    return JSON_CONVERTER.unstructure(value)


_BYTES = (bytes, bytearray, memoryview)


def _bytes_text(value: bytes | bytearray | memoryview) -> str:
    size = value.nbytes if isinstance(value, memoryview) else len(value)
    return f"<{type(value).__name__}, {size} bytes>"


_TEXT_CONVERTER = make_json_converter()
for _kind in _BYTES:
    _TEXT_CONVERTER.register_unstructure_hook(_kind, _bytes_text)


def to_json_text(value: Any) -> str:
    """``value`` as compact JSON text, for the model; this never raises.

    Objects cattrs cannot describe fall back to ``str``; bytes show their type and
    length; a value JSON cannot hold (keys that are not text, a list inside itself,
    an object whose ``repr`` or ``str`` raises) is shown by :func:`safe_repr`.

    >>> to_json_text({"id": 7, "raw": b"\\x00\\x01"})
    '{"id": 7, "raw": "<bytes, 2 bytes>"}'
    >>> to_json_text({("a", 1): "x"})
    "{('a', 1): 'x'}"
    """
    if isinstance(value, _BYTES):
        return _bytes_text(value)
    try:
        return json.dumps(_TEXT_CONVERTER.unstructure(value), ensure_ascii=False, default=_fallback)
    except Exception:  # also RecursionError
        return safe_repr(value)


class _SafeRepr(reprlib.Repr):
    """reprlib's bounded repr (cycles shown as ``...``), with objects whose ``repr``
    raises shown by their type only."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 8
        self.maxdict = self.maxlist = self.maxtuple = self.maxset = 100
        self.maxfrozenset = self.maxdeque = self.maxarray = 100
        self.maxstring = self.maxother = 2000
        self.maxlong = 4000

    def repr_instance(self, x: Any, level: int) -> str:
        try:
            text = repr(x)
        except Exception:
            return f"<{type(x).__name__} object>"
        return text if len(text) <= self.maxother else f"{text[: self.maxother - 3]}..."


_SAFE_REPR = _SafeRepr()


def safe_repr(value: Any) -> str:
    """``repr(value)``, or when that raises, reprlib's bounded form (with objects whose
    ``repr`` raises shown by type), or the type alone. It never raises.

    >>> looped = [1]
    >>> looped.append(looped)
    >>> safe_repr(looped)
    '[1, [...]]'
    """
    if isinstance(value, _BYTES):
        return _bytes_text(value)
    try:
        return repr(value)
    except Exception:  # also RecursionError
        pass
    try:
        return _SAFE_REPR.repr(value)
    except Exception:
        return f"<{type(value).__name__} object>"


def _fallback(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return sorted(value, key=safe_repr)
    return str(value)
