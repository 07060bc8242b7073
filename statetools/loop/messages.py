"""Where the messages used to live: :mod:`statetools.messages` holds them now (they are
values every layer shares). This module re-exports them for existing imports."""

from statetools.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    messages_from_json,
    messages_to_json,
)

__all__ = [
    "AssistantMessage",
    "Message",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "messages_from_json",
    "messages_to_json",
]
