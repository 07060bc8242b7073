"""The one cattrs converter statetools uses to turn values into JSON and back."""

from __future__ import annotations

import enum
import json
from typing import Any

import cattrs
from cattrs.preconf.json import make_converter

from statetools.tools import pydantic_models


def make_json_converter(*, forbid_extra_keys: bool = False) -> cattrs.Converter:
    """A cattrs converter for JSON-compatible data (enums by value, attrs/dataclasses as
    dicts, pydantic models through pydantic's own validation and dump)."""
    converter = make_converter(forbid_extra_keys=forbid_extra_keys)
    converter.register_structure_hook_func(
        pydantic_models.is_pydantic_model, pydantic_models.validate
    )
    converter.register_unstructure_hook_func(
        lambda cls: pydantic_models.is_pydantic_model(cls), pydantic_models.dump
    )
    return converter


JSON_CONVERTER = make_json_converter()
"""Converter for tool arguments and results. It holds no run state, only hooks."""


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (dicts, lists, strings, numbers, booleans, None)."""
    return JSON_CONVERTER.unstructure(value)


def to_json_text(value: Any) -> str:
    """``value`` as compact JSON text; objects cattrs cannot describe fall back to ``str``."""
    return json.dumps(to_jsonable(value), ensure_ascii=False, default=_fallback)


def _fallback(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return str(value)
