"""The one cattrs converter statetools uses to turn values into JSON and back."""

from __future__ import annotations

import enum
import json
import reprlib
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
