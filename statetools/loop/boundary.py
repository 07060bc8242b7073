"""Kept for imports written before the engine: see :mod:`statetools.engine.boundary`."""

from statetools.engine.boundary import (
    REPLACEMENT,
    clean_message,
    clean_text,
    clean_value,
)

__all__ = [
    "REPLACEMENT",
    "clean_message",
    "clean_text",
    "clean_value",
]
