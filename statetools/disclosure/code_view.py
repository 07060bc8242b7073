"""Tools reached through a script: what code mode changes in what the model is shown.

A code-mode item (``st.CodeMode``, :mod:`statetools.code`) registers its tools as
usual (their conditions, states and facades hold as anywhere) plus one tool that runs
a script, a :class:`ScriptTool`. The model is shown the script tool in place of its
tools: :func:`through_scripts` turns what the scheduler would show into that, the
script tool describing the tools visible now. The engine hands a script tool the
run's :class:`NestedCalls` (:meth:`ScriptTool.hosted`), so every call from a script is
checked and recorded like a direct call.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from statetools.disclosure.shown import Shown
from statetools.tools.definition import ToolDefinition
from statetools.tools.result import ToolResult
from statetools.tools.tool import BaseTool

__all__ = ["NestedCalls", "ScriptTool", "through_scripts"]


class NestedCalls(Protocol):
    """What a host gives a script tool: the tools it may call, and a way to call one
    exactly as if the model had called it directly (checked, run, recorded)."""

    def tools(self) -> Mapping[str, ToolDefinition]:
        """Every tool the script may name, visible now or not, by name."""
        ...

    def callable_now(self) -> list[str]:
        """The script's tools that may be called now."""
        ...

    async def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult | str:
        """Run a call of ``name``: its result, or the text of why it may not run now."""
        ...


@attrs.frozen(kw_only=True)
class ScriptTool(BaseTool):
    """A tool that runs a script calling other tools of the run (code mode).

    Subclasses say how the tools visible now are described (:meth:`showing`) and run a
    script with the calls a host gives them (:meth:`hosted`).

    >>> issubclass(ScriptTool, BaseTool)
    True
    """

    @abc.abstractmethod
    def showing(self, tools: Sequence[BaseTool]) -> ScriptTool:
        """This tool as shown while ``tools`` (its own, visible now) may be called."""

    @abc.abstractmethod
    def hosted(self, calls: NestedCalls) -> BaseTool:
        """The tool to run for one call: scripts call tools through ``calls``."""


def through_scripts(
    shown: Shown, modes: Mapping[str, frozenset[str]], member_of: Mapping[str, str]
) -> Shown:
    """``shown`` as the model sees it with code mode: the tools of each code-mode item
    (``member_of``: tool -> script tool) are left out, and each script tool describes
    its tools that are visible now.

    >>> from statetools.tools.tool import Tool
    >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
    >>> through_scripts(Shown.of([ping]), {}, {}).names
    ('ping',)
    """
    if not modes:
        return shown
    tools: list[BaseTool] = []
    for tool in shown.tools:
        if tool.name in member_of:
            continue
        if tool.name in modes and isinstance(tool, ScriptTool):
            own = [t for t in shown.tools if member_of.get(t.name) == tool.name]
            tool = tool.showing(own)
        tools.append(tool)
    return Shown.of(tools)
