"""State enums for machines defined in YAML, which have no Python enum of their own.

Two enums made from the same YAML are equal (same name, same members in the same
order), so a machine loaded twice, or dumped and loaded again, equals the first.

>>> a = state_enum("order", ["DRAFT", "DONE"])
>>> b = state_enum("order", ["DRAFT", "DONE"])
>>> a == b, a is b, [m.name for m in a]
(True, False, ['DRAFT', 'DONE'])
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from typing import Any, cast

STATE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
"""What a state name may look like (a Python identifier without leading underscore)."""


class _StateEnumType(enum.EnumType):
    """Enum classes compared by name and members, not identity."""

    def _signature(cls) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """Name and members, worked out once (an enum's members never change)."""
        signature: tuple[str, tuple[tuple[str, Any], ...]] | None = cls.__dict__.get(
            "_state_signature"
        )
        if signature is None:
            members = tuple((member.name, member.value) for member in cls)  # type: ignore[var-annotated]
            signature = (cls.__name__, members)
            type.__setattr__(cls, "_state_signature", signature)
        return signature

    def __eq__(cls, other: object) -> bool:
        if cls is other:
            return True
        if isinstance(other, _StateEnumType):
            return cls._signature() == other._signature()
        return NotImplemented

    def __hash__(cls) -> int:
        cached: int | None = cls.__dict__.get("_state_hash")
        if cached is None:  # worked out once: hashing every member each time is slow
            cached = hash(cls._signature())
            type.__setattr__(cls, "_state_hash", cached)
        return cached


class StateEnum(enum.Enum, metaclass=_StateEnumType):
    """Base of the state enums made for YAML machines (each member's value is its name)."""


def enum_name(machine: str) -> str:
    """The class name of a machine's state enum: ``order_flow`` -> ``OrderFlowState``.

    >>> enum_name("order-flow")
    'OrderFlowState'
    """
    words = re.split(r"[^A-Za-z0-9]+", machine)
    name = "".join(word[:1].upper() + word[1:] for word in words if word) or "Machine"
    if not name[0].isalpha():
        name = f"M{name}"
    return f"{name}State"


def state_enum(machine: str, states: Sequence[str]) -> type[enum.Enum]:
    """A new state enum for ``machine`` with these members (values equal names)."""
    functional: Any = StateEnum  # the functional API: StateEnum(name, members)
    made = functional(enum_name(machine), [(name, name) for name in states], module=__name__)
    return cast(type[enum.Enum], made)


def is_yaml_enum(states: type[enum.Enum]) -> bool:
    """Whether ``states`` was made by :func:`state_enum` (rather than written in Python)."""
    return isinstance(states, _StateEnumType) and states is not StateEnum
