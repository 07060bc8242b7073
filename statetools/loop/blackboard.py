"""Where the blackboard used to live: :mod:`statetools.blackboard` holds it now (tools,
the scheduler and the loop share it). This module re-exports it for existing imports."""

from statetools.blackboard import Blackboard

__all__ = ["Blackboard"]
