"""Kept for imports written before the engine: see :mod:`statetools.engine.answers`."""

from statetools.engine.answers import (
    NOT_RUN,
    RUNNING,
    change_events,
    injection_events,
    tools_digest,
    unknown_tool_message,
)

__all__ = [
    "NOT_RUN",
    "RUNNING",
    "change_events",
    "injection_events",
    "tools_digest",
    "unknown_tool_message",
]
