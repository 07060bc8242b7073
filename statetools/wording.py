"""Counts in the text statetools writes: "1 tool", "2 tools"."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` (with thousands separators) and ``noun``, in the plural (``plural``, or
    ``noun`` + "s") unless ``count`` is 1.

    >>> counted(1, "tool"), counted(0, "model call"), counted(1_500, "state")
    ('1 tool', '0 model calls', '1,500 states')
    >>> counted(2, "entry", "entries")
    '2 entries'
    """
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
