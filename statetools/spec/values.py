"""The converter's base: strict plain values, and lists, mappings and forms that say
what they expected instead of failing deep inside.

YAML is generous with types (``on`` is a boolean, ``1.0`` a number); the format is
not: text must be text, a whole number a whole number, a list a list. Every hook here
raises :class:`~statetools.spec.problems.Invalid` with a message that names what was
expected and what was found.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, get_origin

import attrs
import cattrs
from cattrs.cols import homogenous_tuple_structure_factory, mapping_structure_factory
from cattrs.gen import make_dict_structure_fn

from statetools.spec.problems import Invalid

converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
"""Structures the YAML/dict format: unknown keys are errors, and every problem of a
file is collected in one error tree (see :mod:`statetools.spec.converter`)."""


def describe_value(value: Any) -> str:
    """How a YAML reader would name the value it wrote: ``a list``, ``true``, ``42``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


_QUOTE_HINT = "YAML reads yes/no/on/off/true/false and numbers as such; quote text: 'on'"


def text_value(value: Any, _: Any = None) -> str:
    """``value`` if it is text, else :class:`Invalid`."""
    if isinstance(value, str):
        return value
    hint = _QUOTE_HINT if isinstance(value, bool | int | float) else None
    if isinstance(value, dict):  # `description: {Use this}` is a mapping in YAML
        hint = "in YAML, {...} makes a mapping: to mean text, put it in quotes, '{...}'"
    raise Invalid(f"expected text, got {describe_value(value)}", hint=hint)


def _integer(value: Any, _: Any = None) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        hint = f"write the number without quotes: {value.strip()}"
    else:
        hint = "write a whole number, e.g. 10"
    raise Invalid(f"expected a whole number, got {describe_value(value)}", hint=hint)


def _boolean(value: Any, _: Any = None) -> bool:
    if isinstance(value, bool):
        return value
    raise Invalid(
        f"expected true or false, got {describe_value(value)}",
        hint="write true or false, without quotes",
    )


def list_hint(value: Any) -> str:
    """How to write ``value`` as the list YAML expected."""
    if isinstance(value, str) and "\n" not in value and len(value) <= 40:
        return f"write a list: [{value}]"
    if isinstance(value, bool | int | float):
        return f"write a list: [{describe_value(value)}]"
    return "write a list: [a, b] or one '- item' per line"


def _mapping_hint(value: Any) -> str | None:
    """How to write ``value`` as the mapping YAML expected."""
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        keys = ", ".join(f"{v}: {{}}" for v in value[:3])
        return f"write a mapping with one key per item: {{{keys}}}"
    return "write 'key: value' pairs, one per line"


def _is_homogenous_tuple(kind: Any) -> bool:
    args: tuple[Any, ...] = getattr(kind, "__args__", ())
    return get_origin(kind) is tuple and len(args) == 2 and args[1] is Ellipsis


def list_factory(kind: Any, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
    """The hook for a ``tuple[X, ...]`` field: a YAML list, each item structured as
    ``X``; anything else is a problem with a hint."""
    inner = homogenous_tuple_structure_factory(kind, converter)

    def structure(value: Any, _: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise Invalid(f"expected a list, got {describe_value(value)}", hint=list_hint(value))
        return inner(value, kind)

    return structure


def _is_dict(kind: Any) -> bool:
    return get_origin(kind) is dict


def _dict_factory(kind: Any, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
    inner = mapping_structure_factory(kind, converter)

    def structure(value: Any, _: Any) -> Any:
        if not isinstance(value, Mapping):
            raise Invalid(
                f"expected a mapping, got {describe_value(value)}", hint=_mapping_hint(value)
            )
        return inner(value, kind)

    return structure


def _is_form(kind: Any) -> bool:
    return isinstance(kind, type) and attrs.has(kind)


def form_factory(kind: Any, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
    """The hook for an attrs form: a YAML mapping of its fields; anything else is a
    problem with a hint."""
    inner = make_dict_structure_fn(kind, converter)

    def structure(value: Any, _: Any) -> Any:
        if not isinstance(value, Mapping):
            raise Invalid(
                f"expected a mapping, got {describe_value(value)}", hint=_mapping_hint(value)
            )
        return inner(value, kind)

    return structure


converter.register_structure_hook(str, text_value)
converter.register_structure_hook(int, _integer)
converter.register_structure_hook(bool, _boolean)
converter.register_structure_hook_factory(_is_homogenous_tuple, list_factory)
converter.register_structure_hook_factory(_is_dict, _dict_factory)
converter.register_structure_hook_factory(_is_form, form_factory)


@functools.cache
def fields_of(form: type) -> Callable[[Any, Any], Any]:
    """The generated function that structures a form's own keys (made on first use,
    when every hook its fields need is registered)."""
    return form_factory(form, converter)
