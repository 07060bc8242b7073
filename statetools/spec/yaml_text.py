"""How written definitions look as YAML: block style, lists indented under their key,
multi-line text as ``|`` blocks, no anchors or aliases.

>>> print(yaml_text(plain({"name": "p", "tools": ("search",), "notes": "one\\ntwo"})), end="")
name: p
tools:
  - search
notes: |-
  one
  two
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import yaml

__all__ = ["plain", "yaml_text"]


def plain(value: Any) -> Any:
    """JSON-like data without tuples or enum members, for the safe YAML dumper.

    >>> plain({"states": ("A", "B"), 1: {"n": 2}})
    {'states': ['A', 'B'], '1': {'n': 2}}
    """
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return plain(value.value)
    return value


class _Dumper(yaml.SafeDumper):
    """Block style, lists indented under their key, multi-line text as ``|`` blocks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def yaml_text(data: Any) -> str:
    """``data`` (plain data, see :func:`plain`) as YAML text in this style.

    >>> print(yaml_text({"tools": ["search"]}), end="")
    tools:
      - search
    """
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=88)
