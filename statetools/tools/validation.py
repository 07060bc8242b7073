"""Checks a model's arguments against a tool's JSON schema, in words the model can act on."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError


def make_validator(schema: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    """A validator for ``schema`` (Draft 2020-12 unless the schema names another)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def _where(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path)


def _describe(error: ValidationError, noun: str) -> str:
    where = _where(error)
    label = f"{noun} '{where}'" if where else "the value"
    if error.validator == "required":
        message = str(error.message)
        missing = message.split("'")[1] if "'" in message else message
        full = f"{where}.{missing}" if where else missing
        return f"missing required {noun} '{full}'"
    if error.validator == "additionalProperties":
        allowed = sorted(
            (error.schema.get("properties") or {}) if isinstance(error.schema, dict) else {}
        )
        extra = (
            sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        )
        prefix = f"{where}." if where else ""
        names = ", ".join(f"'{prefix}{name}'" for name in extra)
        plural = "" if len(extra) == 1 else "s"
        expected = ", ".join(allowed) if allowed else "none"
        return f"unknown {noun}{plural} {names} (expected: {expected})"
    if error.validator == "type":
        wanted_types: Any = error.validator_value
        if isinstance(wanted_types, list):
            wanted = " or ".join(wanted_types)
        else:
            wanted = str(wanted_types)
        return f"{label} must be of type {wanted}, got {json.dumps(error.instance)}"
    if error.validator == "enum":
        values: Any = error.validator_value
        choices = ", ".join(json.dumps(v) for v in values)
        return f"{label} must be one of {choices}, got {json.dumps(error.instance)}"
    return f"{label}: {error.message}"


def argument_problems(
    validator: jsonschema.protocols.Validator, arguments: Any, *, noun: str = "argument"
) -> list[str]:
    """Every problem with ``arguments``, sorted by where it is; empty when they are valid.

    ``noun`` names what is checked in the messages ("argument", "field").
    """
    errors = sorted(
        validator.iter_errors(arguments),
        key=lambda e: (list(map(str, e.absolute_path)), str(e.validator)),
    )
    return [_describe(error, noun) for error in errors]
