"""Model adapters: the Model protocol, ScriptedModel, and provider adapters."""

from statetools.models.base import (
    Model,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    StopReason,
    ToolDefinition,
    Usage,
)
from statetools.models.scripted import ScriptedModel

__all__ = [
    "Model",
    "ModelCapabilities",
    "ModelRequest",
    "ModelResponse",
    "ScriptedModel",
    "StopReason",
    "ToolDefinition",
    "Usage",
]
