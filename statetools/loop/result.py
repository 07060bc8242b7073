"""Kept for imports written before the engine: see :mod:`statetools.engine.result`."""

from statetools.engine.result import (
    LoopResult,
)

__all__ = [
    "LoopResult",
]
