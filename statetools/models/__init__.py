"""Model adapters: the Model protocol, ScriptedModel, and provider adapters.

The OpenAI and Anthropic SDKs are optional; they are imported when an adapter is made::

    model = statetools.models.resolve("openai:gpt-4o-mini")

Offline, a :class:`ScriptedModel` plays the model's part:

>>> from statetools.models import ScriptedModel
>>> st.ToolLoop(ScriptedModel(["Hello!"])).run("Hi").output
'Hello!'
"""

from statetools.models.anthropic_messages import AnthropicModel
from statetools.models.base import (
    Model,
    ModelCapabilities,
    ModelRequest,
    ModelResponse,
    StopReason,
    StreamingModel,
    StreamSink,
    ToolCatalogue,
    ToolChange,
    ToolDefinition,
    Usage,
)
from statetools.models.model_strings import resolve
from statetools.models.openai_chat import OpenAIChatModel
from statetools.models.openai_responses import OpenAIResponsesModel
from statetools.models.scripted import ScriptedModel

__all__ = [
    "AnthropicModel",
    "Model",
    "ModelCapabilities",
    "ModelRequest",
    "ModelResponse",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "ScriptedModel",
    "StopReason",
    "StreamSink",
    "StreamingModel",
    "ToolCatalogue",
    "ToolChange",
    "ToolDefinition",
    "Usage",
    "resolve",
]
