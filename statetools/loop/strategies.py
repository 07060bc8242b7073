"""Kept for imports written before the engine: see :mod:`statetools.engine.strategies`."""

from statetools.engine.strategies import (
    ChainedStrategy,
    Injection,
    InjectionContext,
    ToolInjectionStrategy,
    chain,
    restored_tool,
)

__all__ = [
    "ChainedStrategy",
    "Injection",
    "InjectionContext",
    "ToolInjectionStrategy",
    "chain",
    "restored_tool",
]
