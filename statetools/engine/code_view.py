"""Tools reached through a script: what code mode changes in what the model is shown.

A code-mode item (``st.CodeMode``, :mod:`statetools.code`) registers its tools as
usual (their conditions, states and facades hold as anywhere) plus one tool that runs
a script, a :class:`ScriptTool`. The model is shown the script tool in place of its
tools: :func:`through_scripts` turns what the scheduler would show into that, the
script tool describing the tools visible now. The engine hands a script tool the
run's :class:`~statetools.engine.nested.ScriptCalls` (:meth:`ScriptTool.hosted`), so
every call from a script is checked and recorded like a direct call.

Tools added at run time (a chained object's methods, a discovered entity's tools)
belong to the script tool whose call returned their object: they come wrapped as a
:class:`ScriptMember`, and are reached through the script like its registered tools.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from statetools.engine.visible_tools import Shown
from statetools.messages import ToolCall
from statetools.tools.calling import Context, ToolResult
from statetools.tools.tool import BaseTool
from statetools.tools.wrappers import WrapperTool

if TYPE_CHECKING:
    from statetools.engine.nested import ScriptCalls

__all__ = [
    "HostedScript",
    "ScriptMember",
    "ScriptTool",
    "ToolRunner",
    "member_script",
    "through_scripts",
]

ToolRunner = Callable[[BaseTool, ToolCall, Context], Awaitable[ToolResult]]
"""How a host runs one admitted call of a script: ``run(tool, call, context)`` -> the
result (within the tool's timeout; a failure is an error result, never an exception)."""


@attrs.frozen(kw_only=True)
class ScriptTool(BaseTool):
    """A tool that runs a script calling other tools of the run (code mode).

    Subclasses say how the tools visible now are described (:meth:`showing`) and run a
    script with the calls a host gives them (:meth:`hosted`).

    >>> issubclass(ScriptTool, BaseTool)
    True
    """

    reached: tuple[BaseTool, ...] = attrs.field(default=(), eq=False, repr=False)
    """The tools this script tool was last shown with (:func:`through_scripts` fills it):
    among them the tools added at run time that its scripts may call."""

    @abc.abstractmethod
    def showing(self, tools: Sequence[BaseTool]) -> ScriptTool:
        """This tool as shown while ``tools`` (its own, visible now) may be called."""

    @abc.abstractmethod
    def hosted(self, calls: ScriptCalls) -> HostedScript:
        """The tool to run for one call: scripts call tools through ``calls``."""


@attrs.frozen(kw_only=True)
class ScriptMember(WrapperTool):
    """A tool added at run time that is reached through the script tool ``script``:
    its object came from a call made by one of that script tool's scripts (or by another
    such tool). The model is not shown it directly; scripts call it.

    >>> from statetools.tools.tool import Tool
    >>> star = ScriptMember.around(Tool.create("star", "Star.", lambda: "ok"), script="run_code")
    >>> star.name, star.script, star.call().text
    ('star', 'run_code', 'ok')
    """

    script: str


def member_script(tool: BaseTool) -> str | None:
    """The script tool that ``tool``, added at run time, is reached through (None when
    the model calls it directly).

    >>> from statetools.tools.tool import Tool
    >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
    >>> member_script(ping), member_script(ScriptMember.around(ping, script="run_code"))
    (None, 'run_code')
    """
    return tool.script if isinstance(tool, ScriptMember) else None


@attrs.frozen(kw_only=True)
class HostedScript(BaseTool):
    """A script tool bound to one run's calls (what :meth:`ScriptTool.hosted` gives):
    running it runs one script. It has no timeout from the host (a tool's own
    ``metadata.timeout`` still holds): the script runs within its own limits, and each
    call it makes within the timeout of the tool called.

    >>> issubclass(HostedScript, BaseTool)
    True
    """

    calls: ScriptCalls = attrs.field(eq=False, repr=False)

    def running(self, run: ToolRunner) -> HostedScript:
        """This tool, the calls of its script run by ``run`` (how the host runs a call).

        >>> from statetools.code import CodeMode
        >>> from statetools.engine.nested import admit_call
        >>> from statetools.engine.scheduler import Scheduler
        >>> from statetools.tools.tool import Tool
        >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
        >>> hosted = admit_call(Scheduler.for_items([CodeMode(ping)]), ToolCall("c1", "run_code"))
        >>> async def loud(tool, call, context):
        ...     return ToolResult.text((await tool.acall(call.arguments, context)).text.upper())
        >>> hosted.running(loud).call({"code": "ping()"}).text
        'PONG'
        """
        return attrs.evolve(self, calls=self.calls.running(run))


def through_scripts(
    shown: Shown, modes: Mapping[str, frozenset[str]], member_of: Mapping[str, str]
) -> Shown:
    """``shown`` as the model sees it with code mode: the tools of each code-mode item
    (``member_of``: tool -> script tool; a :class:`ScriptMember` names its own) are
    left out, and each script tool describes its tools that are visible now.

    >>> from statetools.tools.tool import Tool
    >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
    >>> through_scripts(Shown.of([ping]), {}, {}).names
    ('ping',)
    """
    if not modes:
        return shown
    tools: list[BaseTool] = []
    own: dict[str, list[BaseTool]] = {name: [] for name in modes}
    for tool in shown.tools:
        script = member_of.get(tool.name) or member_script(tool)
        if script is not None and script in own:
            own[script].append(tool)
        else:
            tools.append(tool)
    return Shown.of(
        attrs.evolve(tool.showing(own[tool.name]), reached=tuple(own[tool.name]))
        if tool.name in modes and isinstance(tool, ScriptTool)
        else tool
        for tool in tools
    )
