"""What the model is shown at one moment: the visible tools, their names, definitions."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from statetools.tools.fields import ToolDefinition
from statetools.tools.tool import BaseTool

__all__ = ["Shown"]


@attrs.frozen(eq=False)
class Shown:
    """The visible tools, in order, with their names and definitions.

    The scheduler hands out the same object until the visible tools change, so a
    caller can tell "nothing changed" by identity (``is``) and reuse what it built.

    >>> from statetools.tools.tool import Tool
    >>> Shown.of([Tool.create("ping", "Ping.", lambda: "pong")]).names
    ('ping',)
    """

    tools: tuple[BaseTool, ...]
    names: tuple[str, ...]
    definitions: tuple[ToolDefinition, ...]

    @classmethod
    def of(cls, tools: Iterable[BaseTool]) -> Shown:
        """What ``tools`` show, in order."""
        listed = tuple(tools)
        return cls(listed, tuple(t.name for t in listed), tuple(t.definition for t in listed))
