"""Input schemas for tools: written by hand with :class:`Parameter`, or derived from types.

Hand-written::

    InputSchema.of(
        Parameter.string("q", "Words to look for"),
        Parameter.integer("n", "Hits wanted", required=False),
    )

Derived: see :func:`type_schema` and :func:`bind_signature` (used by
``Tool.from_function``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from statetools.errors import DefinitionError
from statetools.tools.descriptions import first_paragraph
from statetools.tools.signature import SignatureBinding, bind_signature
from statetools.tools.typeschema import JsonSchema, Param, type_schema

__all__ = [
    "InputSchema",
    "JsonSchema",
    "Param",
    "Parameter",
    "SignatureBinding",
    "bind_signature",
    "first_paragraph",
    "type_schema",
]

PROPERTY_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
"""Argument names every major provider accepts."""


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not PROPERTY_NAME_PATTERN.match(name):
        raise DefinitionError(
            f"invalid parameter name {name!r}",
            path=f"parameter {name!r}",
            hint="use 1 to 64 characters from a-z, A-Z, 0-9, '_', '.' and '-'",
        )


def _check_enum(name: str, json_type: str, values: Sequence[Any]) -> list[Any]:
    choices = list(values)
    if not choices:
        raise DefinitionError(
            "enum is empty", path=f"parameter '{name}'", hint="list at least one value"
        )
    import jsonschema  # on first use: building a loop needs no schema checker

    checker = jsonschema.Draft202012Validator({"type": json_type})
    wrong = [value for value in choices if not checker.is_valid(value)]
    if wrong:
        raise DefinitionError(
            f"enum values {wrong!r} are not of type {json_type}",
            path=f"parameter '{name}'",
            hint=f"use only {json_type} values in the enum",
        )
    return choices


@attrs.frozen
class Parameter:
    """One named input of a hand-written :class:`InputSchema`.

    Build it with :meth:`string`, :meth:`integer`, :meth:`number`, :meth:`boolean`,
    :meth:`array` or :meth:`object`.

    >>> Parameter.string("unit", "Temperature unit", enum=["C", "F"]).schema
    {'type': 'string', 'description': 'Temperature unit', 'enum': ['C', 'F']}
    """

    name: str
    schema: Mapping[str, Any]
    required: bool = True

    def __attrs_post_init__(self) -> None:
        _check_name(self.name)

    @classmethod
    def _of(
        cls,
        json_type: str,
        name: str,
        description: str,
        required: bool,
        enum: Sequence[Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Parameter:
        _check_name(name)
        schema: JsonSchema = {"type": json_type, "description": description}
        if enum is not None:
            schema["enum"] = _check_enum(name, json_type, enum)
        schema.update(extra or {})
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
        """A string, optionally one of ``enum``.

        >>> Parameter.string("q", "Query").schema
        {'type': 'string', 'description': 'Query'}
        """
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
        """A whole number, optionally one of ``enum``.

        >>> Parameter.integer("n", "Count", required=False).required
        False
        """
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
        """Any number (integer or not), optionally one of ``enum``.

        >>> Parameter.number("price", "Price in EUR").schema["type"]
        'number'
        """
        return cls._of("number", name, description, required, enum)

    @classmethod
    def boolean(cls, name: str, description: str, *, required: bool = True) -> Parameter:
        """``true`` or ``false``.

        >>> Parameter.boolean("dry_run", "Only pretend").schema["type"]
        'boolean'
        """
        return cls._of("boolean", name, description, required)

    @classmethod
    def array(
        cls,
        name: str,
        description: str,
        items: Mapping[str, Any] | Any = None,
        *,
        required: bool = True,
    ) -> Parameter:
        """A list; ``items`` is a JSON schema or a Python type for each element (any if None).

        >>> Parameter.array("tags", "Tags", str).schema
        {'type': 'array', 'description': 'Tags', 'items': {'type': 'string'}}
        """
        if items is None:
            item_schema: JsonSchema = {}
        elif isinstance(items, Mapping):
            item_schema = dict(items)
        else:
            item_schema = type_schema(items, where=f"parameter '{name}'")
        return cls._of("array", name, description, required, extra={"items": item_schema})

    @classmethod
    def object(
        cls,
        name: str,
        description: str,
        properties: Mapping[str, Any] | Sequence[Parameter] | None = None,
        *,
        required: bool = True,
    ) -> Parameter:
        """A nested object.

        ``properties`` is either a sequence of :class:`Parameter` (nested required
        fields, nothing else accepted) or a mapping of field names to JSON schemas
        (every field optional). Without it, any object is accepted.

        >>> Parameter.object("to", "Recipient", [Parameter.string("email", "Address")]).schema
        {'type': 'object', 'description': 'Recipient', 'properties': {'email': {'type': 'string', 'description': 'Address'}}, 'required': ['email'], 'additionalProperties': False}
        """  # noqa: E501
        if properties is None:
            extra: JsonSchema = {}
        elif isinstance(properties, Mapping):
            for field in properties:
                _check_name(field)
            extra = {"properties": {k: dict(v) for k, v in properties.items()}}
        else:
            nested = InputSchema.of(*properties)
            extra = {k: v for k, v in nested.items() if k != "type"}
        return cls._of("object", name, description, required, extra=extra)


class InputSchema:
    """Builds the JSON schema of a tool's input from :class:`Parameter` objects.

    The result is a plain dict to pass as ``Tool.create(..., schema=...)``; arguments
    not listed are rejected.

    >>> InputSchema.of(Parameter.string("q", "Query"), Parameter.integer("n", "Count", required=False))
    {'type': 'object', 'properties': {'q': {'type': 'string', 'description': 'Query'}, 'n': {'type': 'integer', 'description': 'Count'}}, 'required': ['q'], 'additionalProperties': False}
    """  # noqa: E501

    @staticmethod
    def of(*parameters: Parameter) -> JsonSchema:
        """An object schema with these parameters, in this order.

        >>> InputSchema.of(Parameter.string("q", "Query"))["required"]
        ['q']
        """
        for parameter in parameters:
            if not isinstance(parameter, Parameter):
                raise DefinitionError(
                    f"InputSchema.of takes Parameter objects, got {parameter!r}",
                    hint="build them with Parameter.string(...), Parameter.integer(...), ...",
                )
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
        """The schema of a tool that takes no arguments.

        >>> InputSchema.empty()
        {'type': 'object', 'properties': {}, 'required': [], 'additionalProperties': False}
        """
        return {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
