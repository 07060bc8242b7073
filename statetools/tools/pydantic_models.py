"""Pydantic models as tool parameters, results and output types, when pydantic is installed.

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

import sys
from collections.abc import Mapping
from typing import Any

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


def validate(value: Any, cls: type) -> Any:
    """``value`` (parsed JSON) as an instance of the pydantic model ``cls`` (the shape
    of a cattrs structure hook)."""
    if isinstance(value, cls):
        return value
    return cls.model_validate(value)  # type: ignore[attr-defined]


def dump(value: Any) -> Any:
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
