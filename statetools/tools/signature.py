"""From a function's signature to a tool's input schema, and from JSON back to arguments."""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Union, get_args, get_origin

import attrs
import cattrs

from statetools.errors import DefinitionError
from statetools.tools.context import ToolCallContext
from statetools.tools.convert import (
    JSON_CONVERTER,
    is_validation_error,
    short_text,
    validation_problems,
)
from statetools.tools.descriptions import parameter_descriptions
from statetools.tools.typeschema import JsonSchema, json_default, strip_annotated, type_schema


class ConversionProblem(ValueError):
    """Validated arguments could not be turned into the annotated Python types.

    ``problems`` holds one model-facing sentence per argument that failed.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


@attrs.frozen
class SignatureBinding:
    """How a handler's signature maps to a tool: its schema and how to call it.

    ``types`` maps argument names to the Python types they are converted to;
    ``context_parameters`` name the parameters that receive the :class:`ToolCallContext`.
    """

    schema: JsonSchema = attrs.field(eq=False)
    types: Mapping[str, Any] = attrs.field(eq=False)
    context_parameters: tuple[str, ...] = ()
    accepts_any_keywords: bool = False

    def to_call_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Validated JSON arguments as the Python values the annotations ask for.

        Raises :class:`ConversionProblem` with one sentence per argument that failed.
        """
        converted: dict[str, Any] = {}
        problems: list[str] = []
        for name, value in arguments.items():
            annotation = self.types.get(name, Any)
            if annotation is Any:
                converted[name] = value
                continue
            try:
                converted[name] = JSON_CONVERTER.structure(value, annotation)
            except Exception as exc:
                problems.extend(_conversion_problems(exc, name, annotation))
        if problems:
            raise ConversionProblem(problems)
        return converted


def _format(exc: BaseException, target: Any) -> str:
    detail = str(exc).strip() or type(exc).__name__
    if isinstance(exc, KeyError):
        return "is missing a required field"
    if is_validation_error(exc):
        return f"is not valid: {short_text(exc)}"
    if target is None:
        return f"is not valid ({detail})"
    return f"is not a valid {_type_name(target)} ({detail})"


def _type_name(target: Any) -> str:
    if get_origin(target) in (Union, types.UnionType):
        members = [_type_name(m) for m in get_args(target) if m is not type(None)]
        return " or ".join(members)
    if isinstance(target, type):
        return target.__name__
    return repr(target).replace("typing.", "")


def _conversion_problems(exc: BaseException, name: str, target: Any) -> list[str]:
    if is_validation_error(exc):
        return validation_problems(exc, name)
    if isinstance(exc, cattrs.BaseValidationError):
        lines = cattrs.transform_error(exc, path=name, format_exception=_format)
    else:
        lines = [f"{_format(exc, target)} @ {name}"]
    problems = []
    for line in lines:
        text, _, where = line.rpartition(" @ ")
        problems.append(f"argument '{where}' {text}")
    return problems


def _is_context(annotation: Any) -> bool:
    base, _ = strip_annotated(annotation)
    if get_origin(base) in (Union, types.UnionType):
        members = [m for m in get_args(base) if m is not type(None)]
        return len(members) == 1 and _is_context(members[0])
    return isinstance(base, type) and issubclass(base, ToolCallContext)


def _type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    target: Any = fn
    while isinstance(target, functools.partial):
        target = target.func
    if not (inspect.isroutine(target) or inspect.isclass(target)):
        target = type(target).__call__  # a callable object
    return typing.get_type_hints(target, include_extras=True)


def _describe_callable(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__qualname__", None) or repr(fn))


def bind_signature(
    fn: Callable[..., Any], *, where: str = "", schema: Mapping[str, Any] | None = None
) -> SignatureBinding:
    """Derive the input schema of ``fn`` from its signature (or check ``schema`` against it).

    Parameters annotated :class:`ToolCallContext` are injected, never shown; parameters
    with a default are optional; the description of a parameter comes from
    ``Annotated[T, Param("...")]`` or else the docstring's ``Args:`` section.

    >>> def search(q: str, n: int = 5) -> str:
    ...     '''Search.
    ...
    ...     Args:
    ...         q: Words to look for.
    ...     '''
    >>> bind_signature(search).schema["properties"]
    {'q': {'type': 'string', 'description': 'Words to look for.'}, 'n': {'type': 'integer', 'default': 5}}
    """  # noqa: E501
    if not callable(fn):
        raise DefinitionError(f"a tool handler must be callable, got {fn!r}", path=where or None)
    try:
        signature = inspect.signature(fn)
        hints = _type_hints(fn)
    except Exception as exc:
        raise DefinitionError(
            f"cannot read the signature of {_describe_callable(fn)}: {exc}",
            path=where or None,
            hint="make every annotation importable, or give the tool an explicit schema",
        ) from exc
    documented = {} if schema is not None else parameter_descriptions(fn, signature.parameters)
    properties: dict[str, JsonSchema] = {}
    required: list[str] = []
    conversions: dict[str, Any] = {}
    contexts: list[str] = []
    any_keywords = False
    for name, parameter in signature.parameters.items():
        annotation = hints.get(name, Any)
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            any_keywords = True
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if _is_context(annotation):
            contexts.append(name)
            continue
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise DefinitionError(
                f"parameter '{name}' of {_describe_callable(fn)} is positional-only",
                path=where or None,
                hint="tools are called with keyword arguments; remove the '/' from the signature",
            )
        conversions[name] = strip_annotated(annotation)[0]
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        if schema is not None:
            continue
        prop = type_schema(annotation, where=f"{where}.{name}" if where else name)
        if "description" not in prop and name in documented:
            prop = {**prop, "description": documented[name]}
        if parameter.default is not inspect.Parameter.empty:
            shown, value = json_default(parameter.default)
            if shown:
                prop = {**prop, "default": value}
        properties[name] = prop
    if schema is None:
        derived: JsonSchema = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": any_keywords,
        }
    else:
        derived = dict(schema)
        _check_schema_fits(derived, conversions, required, any_keywords, fn, where)
    return SignatureBinding(
        schema=derived,
        types=conversions,
        context_parameters=tuple(contexts),
        accepts_any_keywords=any_keywords,
    )


def _check_schema_fits(
    schema: JsonSchema,
    parameters: Mapping[str, Any],
    required: list[str],
    any_keywords: bool,
    fn: Callable[..., Any],
    where: str,
) -> None:
    """An explicit schema must only send arguments the handler accepts, and all it needs."""
    properties = schema.get("properties")
    names = list(properties) if isinstance(properties, Mapping) else []
    listed = schema.get("required")
    schema_required = set(listed) if isinstance(listed, list) else set()
    unknown = [n for n in names if n not in parameters] if not any_keywords else []
    if unknown:
        raise DefinitionError(
            f"the schema has properties the handler does not accept: {', '.join(unknown)}",
            path=where or None,
            hint=f"add these parameters to {_describe_callable(fn)}, or **kwargs",
        )
    missing = [n for n in required if n not in schema_required]
    if missing:
        raise DefinitionError(
            f"the handler needs arguments the schema does not require: {', '.join(missing)}",
            path=where or None,
            hint="list them under 'required' in the schema, or give them defaults",
        )
