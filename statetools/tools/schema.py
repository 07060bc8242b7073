"""JSON schemas for tool inputs: written by hand or derived from a function signature."""

from __future__ import annotations

import dataclasses
import enum
import inspect
import types
import typing
from collections import abc
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import attrs

from statetools.errors import DefinitionError
from statetools.tools.context import ToolCallContext
from statetools.tools.convert import JSON_CONVERTER, to_jsonable

JsonSchema = dict[str, Any]


@attrs.frozen
class Param:
    """Describes a function parameter for the model: ``Annotated[str, Param("Query")]``.

    >>> def search(q: Annotated[str, Param("Search query")]) -> str: ...
    """

    description: str


@attrs.frozen
class Parameter:
    """One named input of a hand-written :class:`InputSchema`.

    >>> Parameter.string("q", "Query").schema
    {'type': 'string', 'description': 'Query'}
    """

    name: str
    schema: Mapping[str, Any]
    required: bool = True

    @classmethod
    def _of(
        cls,
        json_type: str,
        name: str,
        description: str,
        required: bool,
        enum: Sequence[Any] | None,
        extra: Mapping[str, Any] | None = None,
    ) -> Parameter:
        schema: JsonSchema = {"type": json_type, "description": description}
        if enum is not None:
            schema["enum"] = list(enum)
        if extra:
            schema.update(extra)
        return cls(name=name, schema=schema, required=required)

    @classmethod
    def string(
        cls,
        name: str,
        description: str,
        *,
        required: bool = True,
        enum: Sequence[str] | None = None,
    ) -> Parameter:
        """A string parameter, optionally limited to ``enum`` values."""
        return cls._of("string", name, description, required, enum)

    @classmethod
    def integer(
        cls,
        name: str,
        description: str,
        *,
        required: bool = True,
        enum: Sequence[int] | None = None,
    ) -> Parameter:
        """An integer parameter."""
        return cls._of("integer", name, description, required, enum)

    @classmethod
    def number(
        cls,
        name: str,
        description: str,
        *,
        required: bool = True,
        enum: Sequence[float] | None = None,
    ) -> Parameter:
        """A number (float) parameter."""
        return cls._of("number", name, description, required, enum)

    @classmethod
    def boolean(cls, name: str, description: str, *, required: bool = True) -> Parameter:
        """A boolean parameter."""
        return cls._of("boolean", name, description, required, None)

    @classmethod
    def array(
        cls,
        name: str,
        description: str,
        items: Mapping[str, Any] | None = None,
        *,
        required: bool = True,
    ) -> Parameter:
        """An array parameter; ``items`` is the JSON schema of one element (any by default)."""
        return cls._of("array", name, description, required, None, {"items": dict(items or {})})

    @classmethod
    def object(
        cls,
        name: str,
        description: str,
        properties: Mapping[str, Any] | None = None,
        *,
        required: bool = True,
    ) -> Parameter:
        """An object parameter; ``properties`` maps field names to JSON schemas."""
        extra = {"properties": dict(properties)} if properties is not None else None
        return cls._of("object", name, description, required, None, extra)


class InputSchema:
    """Builds the JSON schema of a tool's input from :class:`Parameter` objects.

    >>> InputSchema.of(Parameter.string("q", "Query"))["required"]
    ['q']
    """

    @staticmethod
    def of(*parameters: Parameter) -> JsonSchema:
        """An object schema with these parameters; unknown arguments are rejected."""
        names = [p.name for p in parameters]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise DefinitionError(
                f"duplicate parameter names: {', '.join(duplicates)}",
                hint="give every parameter of a tool its own name",
            )
        return {
            "type": "object",
            "properties": {p.name: dict(p.schema) for p in parameters},
            "required": [p.name for p in parameters if p.required],
            "additionalProperties": False,
        }

    @staticmethod
    def empty() -> JsonSchema:
        """The schema of a tool that takes no arguments."""
        return {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


@attrs.frozen
class SignatureBinding:
    """How a function's signature maps to a tool: its schema and argument conversion."""

    schema: JsonSchema
    types: Mapping[str, Any]
    context_parameter: str | None
    accepts_any_keywords: bool = False

    def to_call_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Validated JSON arguments as the Python values the function's annotations ask for."""
        converted: dict[str, Any] = {}
        for name, value in arguments.items():
            annotation = self.types.get(name, Any)
            converted[name] = (
                value if annotation is Any else JSON_CONVERTER.structure(value, annotation)
            )
        return converted


def _strip_annotated(annotation: Any) -> tuple[Any, str | None]:
    description = None
    if get_origin(annotation) is Annotated:
        base, *extras = get_args(annotation)
        for extra in extras:
            if isinstance(extra, Param):
                description = extra.description
        return base, description
    return annotation, None


def _is_context(annotation: Any) -> bool:
    base, _ = _strip_annotated(annotation)
    return isinstance(base, type) and issubclass(base, ToolCallContext)


def type_schema(annotation: Any, *, where: str = "") -> JsonSchema:
    """The JSON schema of a Python type annotation.

    Supports str, int, float, bool, None, Any, enums, Literal, Optional/unions,
    list/tuple/set/Sequence, dict/Mapping, and attrs classes and dataclasses (nested).

    >>> type_schema(list[int])
    {'type': 'array', 'items': {'type': 'integer'}}
    """
    annotation, description = _strip_annotated(annotation)
    schema = _bare_type_schema(annotation, where)
    if description:
        schema = {**schema, "description": description}
    return schema


_SIMPLE: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAY_ORIGINS = (list, set, frozenset, abc.Sequence, abc.Set, abc.Iterable, abc.Collection)


def _bare_type_schema(annotation: Any, where: str) -> JsonSchema:
    if annotation is Any or annotation is inspect.Parameter.empty or annotation is object:
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}
    origin = get_origin(annotation)
    if origin is Literal:
        values = list(get_args(annotation))
        return {**_json_type_of_values(values), "enum": values}
    if origin in (Union, types.UnionType):
        return _union_schema(get_args(annotation), where)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [member.value for member in annotation]
        return {**_json_type_of_values(values), "enum": values}
    if origin is tuple:
        args = get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": type_schema(args[0], where=where)}
        return {
            "type": "array",
            "prefixItems": [type_schema(a, where=where) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin in _ARRAY_ORIGINS:
        args = get_args(annotation)
        return {"type": "array", "items": type_schema(args[0] if args else Any, where=where)}
    if annotation in (list, tuple, set, frozenset):
        return {"type": "array", "items": {}}
    if origin in (dict, abc.Mapping) or annotation in (dict, Mapping):
        args = get_args(annotation)
        if len(args) == 2 and args[1] is not Any:
            return {"type": "object", "additionalProperties": type_schema(args[1], where=where)}
        return {"type": "object"}
    if isinstance(annotation, type) and (
        attrs.has(annotation) or dataclasses.is_dataclass(annotation)
    ):
        return _class_schema(annotation, where)
    raise DefinitionError(
        f"cannot describe type {annotation!r} as JSON schema",
        path=where or None,
        hint="use str, int, float, bool, enums, Literal, lists, dicts, attrs classes or "
        "dataclasses, or pass schema= explicitly",
    )


def _json_type_of_values(values: Sequence[Any]) -> JsonSchema:
    kinds = {_SIMPLE.get(type(v)) for v in values}
    if len(kinds) == 1 and None not in kinds:
        return {"type": kinds.pop()}
    return {}


def _union_schema(members: tuple[Any, ...], where: str) -> JsonSchema:
    schemas = [type_schema(m, where=where) for m in members]
    if all(set(s) == {"type"} and isinstance(s["type"], str) for s in schemas):
        return {"type": [s["type"] for s in schemas]}
    non_null = [s for s in schemas if s != {"type": "null"}]
    if len(non_null) == 1 and len(schemas) == 2 and isinstance(non_null[0].get("type"), str):
        return {**non_null[0], "type": [non_null[0]["type"], "null"]}
    return {"anyOf": schemas}


def _class_schema(cls: type, where: str) -> JsonSchema:
    hints = typing.get_type_hints(cls, include_extras=True)
    properties: dict[str, JsonSchema] = {}
    required: list[str] = []
    fields: list[tuple[str, bool, Any]]
    if attrs.has(cls):
        fields = [
            (f.alias or f.name, f.default is not attrs.NOTHING, f.default)
            for f in attrs.fields(cls)
        ]
    else:
        fields = [
            (
                f.name,
                f.default is not dataclasses.MISSING
                or f.default_factory is not dataclasses.MISSING,
                f.default,
            )
            for f in dataclasses.fields(cls)
        ]
    for name, has_default, default in fields:
        hint_name = name.lstrip("_") if name not in hints else name
        annotation = hints.get(name, hints.get(hint_name, Any))
        properties[name] = type_schema(annotation, where=f"{where}.{name}" if where else name)
        if not has_default:
            required.append(name)
        elif _is_plain_default(default):
            properties[name]["default"] = to_jsonable(default)
    schema: JsonSchema = {"type": "object", "properties": properties, "required": required}
    schema["additionalProperties"] = False
    doc = inspect.getdoc(cls)
    if doc and cls.__doc__:
        schema["description"] = first_paragraph(doc)
    return schema


def _is_plain_default(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool | enum.Enum)


def first_paragraph(doc: str | None) -> str | None:
    """The first paragraph of a docstring, joined into one line."""
    if not doc:
        return None
    paragraph = inspect.cleandoc(doc).split("\n\n", 1)[0]
    text = " ".join(line.strip() for line in paragraph.splitlines()).strip()
    return text or None


def bind_signature(fn: Callable[..., Any], *, where: str = "") -> SignatureBinding:
    """Derive the input schema of ``fn`` from its signature.

    Parameters annotated ``ToolCallContext`` are injected, never shown; parameters with a
    default are optional; ``Annotated[T, Param("...")]`` gives the description.
    """
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)
    except (TypeError, ValueError, NameError) as exc:
        raise DefinitionError(
            f"cannot read the signature of {fn!r}: {exc}",
            path=where or None,
            hint="pass schema= explicitly",
        ) from exc
    properties: dict[str, JsonSchema] = {}
    required: list[str] = []
    conversions: dict[str, Any] = {}
    context_parameter = None
    any_keywords = False
    for name, parameter in signature.parameters.items():
        annotation = hints.get(name, Any)
        if _is_context(annotation):
            context_parameter = name
            continue
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            any_keywords = True
            continue
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.POSITIONAL_ONLY):
            raise DefinitionError(
                f"parameter '{name}' of {getattr(fn, '__qualname__', fn)!r} "
                "cannot be passed by name",
                path=where or None,
                hint="tools are called with keyword arguments; use normal parameters",
            )
        prop = type_schema(annotation, where=f"{where}.{name}" if where else name)
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        elif _is_plain_default(parameter.default):
            prop = {**prop, "default": to_jsonable(parameter.default)}
        properties[name] = prop
        conversions[name] = _strip_annotated(annotation)[0]
    schema: JsonSchema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": any_keywords,
    }
    return SignatureBinding(
        schema=schema,
        types=conversions,
        context_parameter=context_parameter,
        accepts_any_keywords=any_keywords,
    )
