"""JSON schemas from Python type annotations."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import inspect
import json
import types
import typing
from collections import abc
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import attrs

from statetools.errors import DefinitionError
from statetools.tools.convert import is_pydantic_model, model_schema, to_jsonable
from statetools.tools.descriptions import description_of, parameter_descriptions

JsonSchema = dict[str, Any]
"""A JSON schema as a plain dict."""


def _copy_mapping(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return dict(value)


@attrs.frozen
class Param:
    """Describes a parameter to the model: ``Annotated[T, Param("description")]``.

    ``schema`` adds JSON-schema keywords (``minimum``, ``maxLength``, ``pattern``, ...),
    which are checked before the handler runs. ``example`` is a value shown in the
    schema's ``examples`` (and used first by :func:`~statetools.example_arguments`).

    >>> def search(q: Annotated[str, Param("Words to look for")],
    ...            n: Annotated[int, Param("Hits wanted", schema={"minimum": 1})] = 5) -> str:
    ...     return q
    >>> type_schema(Annotated[int, Param("Hits wanted", schema={"minimum": 1})])
    {'type': 'integer', 'description': 'Hits wanted', 'minimum': 1}
    """

    description: str
    schema: Mapping[str, Any] = attrs.field(factory=dict, converter=_copy_mapping, hash=False)
    """Hashed by description only, so types annotated with a Param stay hashable (cattrs
    caches its hooks by type, and dataclass or attrs fields carry the Annotated type)."""
    example: Any = attrs.field(default=None, kw_only=True, hash=False)
    """A value shown as the parameter's example (None: no example)."""


def strip_annotated(annotation: Any) -> tuple[Any, Param | None]:
    """``Annotated[T, Param(...)]`` as ``(T, Param)``; other annotations as ``(T, None)``."""
    if get_origin(annotation) is not Annotated:
        return annotation, None
    base, *extras = get_args(annotation)
    params = [extra for extra in extras if isinstance(extra, Param)]
    return base, params[-1] if params else None


def type_schema(annotation: Any, *, where: str = "") -> JsonSchema:
    """The JSON schema of a Python type annotation.

    Understands str, int, float, bool, None, Any, enums, Literal, Optional and other
    unions, list/tuple/set/Sequence, dict/Mapping, date and datetime, NewType, attrs
    classes and dataclasses (nested; field descriptions from ``Param`` or the class
    docstring), and pydantic models (pydantic's own schema, ``Field(description=...)``
    included). Anything else raises :class:`~statetools.DefinitionError` naming
    ``where`` (the path of the parameter being described).

    >>> type_schema(list[int])
    {'type': 'array', 'items': {'type': 'integer'}}
    >>> type_schema(Literal["asc", "desc"] | None)
    {'type': ['string', 'null'], 'enum': ['asc', 'desc', None]}
    """
    return _schema(annotation, where, ())


_SIMPLE: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAYS = (list, set, frozenset, abc.Sequence, abc.MutableSequence, abc.Set, abc.MutableSet)
_ARRAYS_ALSO = (abc.Iterable, abc.Collection)
_MAPPINGS = (dict, abc.Mapping, abc.MutableMapping)
_FORMATS: dict[Any, str] = {datetime.datetime: "date-time", datetime.date: "date"}


def _schema(annotation: Any, where: str, seen: tuple[type, ...]) -> JsonSchema:
    base, param = strip_annotated(annotation)
    schema = _bare_schema(base, where, seen)
    if param is not None:
        schema = {**schema, "description": param.description, **param.schema}
        if param.example is not None:
            schema = {**schema, "examples": [param.example]}
    return schema


def _field_examples(cls: type) -> dict[str, list[Any]]:
    """Examples from attrs or dataclass field ``metadata={"example": ...}`` (or
    ``"examples": [...]``), by field name."""
    fields: Any = attrs.fields(cls) if attrs.has(cls) else dataclasses.fields(cls)
    found: dict[str, list[Any]] = {}
    for field in fields:
        metadata = field.metadata or {}
        if "examples" in metadata:
            found[field.name] = list(metadata["examples"])
        elif "example" in metadata:
            found[field.name] = [metadata["example"]]
    return found


def _bare_schema(annotation: Any, where: str, seen: tuple[type, ...]) -> JsonSchema:
    if annotation in (Any, object, inspect.Parameter.empty):
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}
    if annotation in _FORMATS:
        return {"type": "string", "format": _FORMATS[annotation]}
    if hasattr(annotation, "__supertype__"):  # typing.NewType
        return _schema(annotation.__supertype__, where, seen)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return _enum_schema(list(args))
    if origin in (Union, types.UnionType):
        return _union_schema(args, where, seen)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_schema([member.value for member in annotation])
    if origin is tuple or annotation is tuple:
        return _tuple_schema(args, where, seen)
    if origin in _ARRAYS or origin in _ARRAYS_ALSO or annotation in _ARRAYS:
        return {"type": "array", "items": _schema(args[0] if args else Any, f"{where}[]", seen)}
    if origin in _MAPPINGS or annotation in _MAPPINGS:
        if len(args) == 2 and args[1] is not Any:
            return {"type": "object", "additionalProperties": _schema(args[1], where, seen)}
        return {"type": "object"}
    if isinstance(annotation, type) and (
        attrs.has(annotation) or dataclasses.is_dataclass(annotation)
    ):
        return _class_schema(annotation, where, seen)
    if is_pydantic_model(annotation):
        return model_schema(annotation, where)
    raise DefinitionError(
        f"cannot describe type {_type_name(annotation)} as JSON schema",
        path=where or None,
        hint="use str, int, float, bool, enums, Literal, lists, dicts, attrs classes, "
        "dataclasses or pydantic models, or give the tool an explicit schema",
    )


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")


def _enum_schema(values: list[Any]) -> JsonSchema:
    kinds = {_SIMPLE.get(type(value)) for value in values}
    schema: JsonSchema = {"type": kinds.pop()} if len(kinds) == 1 and None not in kinds else {}
    return {**schema, "enum": [to_jsonable(value) for value in values]}


def _tuple_schema(args: tuple[Any, ...], where: str, seen: tuple[type, ...]) -> JsonSchema:
    if not args or (len(args) == 2 and args[1] is Ellipsis):
        item = args[0] if args else Any
        return {"type": "array", "items": _schema(item, f"{where}[]", seen)}
    return {
        "type": "array",
        "prefixItems": [_schema(arg, f"{where}[{i}]", seen) for i, arg in enumerate(args)],
        "items": False,
        "minItems": len(args),
    }


def _union_schema(members: tuple[Any, ...], where: str, seen: tuple[type, ...]) -> JsonSchema:
    schemas = [_schema(member, where, seen) for member in members]
    if {} in schemas:
        return {}
    if all(set(s) == {"type"} and isinstance(s["type"], str) for s in schemas):
        return {"type": list(dict.fromkeys(s["type"] for s in schemas))}
    others = [s for s in schemas if s != {"type": "null"}]
    if len(others) == 1 and len(schemas) == 2 and isinstance(others[0].get("type"), str):
        nullable = {**others[0], "type": [others[0]["type"], "null"]}
        if "enum" in nullable:
            nullable["enum"] = [*nullable["enum"], None]
        return nullable
    return {"anyOf": schemas}


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def json_default(value: Any) -> tuple[bool, Any]:
    """``(True, json_value)`` when a default can be shown in a schema, else ``(False, None)``."""
    if callable(value) or hasattr(value, "takes_self"):  # a function or an attrs Factory
        return False, None
    try:
        plain = to_jsonable(value)
    except Exception:
        return False, None
    return (True, plain) if _is_json(plain) else (False, None)


def _fields(cls: type) -> list[tuple[str, bool, Any]]:
    """(name as cattrs reads it, has a default, the default) for each init field."""
    if attrs.has(cls):
        return [
            (f.name, f.default is not attrs.NOTHING, f.default) for f in attrs.fields(cls) if f.init
        ]
    return [
        (
            f.name,
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING,
            f.default,
        )
        for f in dataclasses.fields(cls)
        if f.init
    ]


def _class_schema(cls: type, where: str, seen: tuple[type, ...]) -> JsonSchema:
    path = where or cls.__qualname__
    if cls in seen:
        raise DefinitionError(
            f"type {cls.__qualname__} contains itself; recursive types are not supported",
            path=path,
            hint="give the tool an explicit schema, or flatten the type",
        )
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as exc:
        raise DefinitionError(
            f"cannot resolve the annotations of {cls.__qualname__}: {exc}",
            path=path,
            hint="make every annotation importable from the class's module",
        ) from exc
    fields = _fields(cls)
    documented = parameter_descriptions(cls, [name for name, _, _ in fields])
    examples = _field_examples(cls)
    properties: dict[str, JsonSchema] = {}
    required: list[str] = []
    for name, has_default, default in fields:
        prop = _schema(hints.get(name, Any), f"{where}.{name}" if where else name, (*seen, cls))
        if "description" not in prop and name in documented:
            prop = {**prop, "description": documented[name]}
        if name in examples and "examples" not in prop:
            prop = {**prop, "examples": examples[name]}
        if not has_default:
            required.append(name)
        else:
            shown, value = json_default(default)
            if shown:
                prop = {**prop, "default": value}
        properties[name] = prop
    schema: JsonSchema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    description = description_of(cls)
    return {**schema, "description": description} if description else schema
