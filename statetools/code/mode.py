"""``st.CodeMode``: the model writes one script that calls the visible tools.

A :class:`CodeMode` goes in ``tools=[...]`` like any item. Its tools are registered as
usual, so their conditions, states and facades hold as anywhere, but the model is shown
one tool in their place (``run_code``), taking Python source; its description lists
the tools visible now as typed Python functions. Every call a script makes is checked
and recorded as a direct call (see :mod:`statetools.engine.nested`): a tool that is
locked now raises ``PermissionError`` in the script with the usual guidance, and a call
that opens tools makes them callable later in the same script.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import attrs

from statetools.code.sandbox import LIMIT_HINTS, Limits, limit_problem
from statetools.code.scripts import ALLOWED_MODULES, run_script, script_code, with_opened
from statetools.code.stubs import function_names, stub
from statetools.engine.code_view import HostedScript, ScriptTool
from statetools.engine.nested import ScriptCalls
from statetools.errors import DefinitionError
from statetools.tools.calling import Arguments, Context, ToolResult
from statetools.tools.tool import BaseTool

__all__ = ["CodeMode", "CodeModeTool", "HostedCode", "code_description"]

_DEFAULT = Limits()

_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {
            "type": "string",
            "description": "Python source. Call the functions listed in the description.",
        }
    },
    "required": ["code"],
}

_INTRO = (
    "Run a Python script that calls the tools below as functions, to do several steps "
    "in one go. The result is what the script prints, then the value of its last "
    "expression. A tool returns its result (data, or the text it answers). A call of a "
    "tool that is locked now raises PermissionError saying what to call first; a tool "
    "that fails raises RuntimeError. Calls may make more tools callable, later in the "
    "same script. No files, network or imports other than {modules}."
)


def code_description(tools: Sequence[BaseTool]) -> str:
    """The description of a code-mode tool while ``tools`` may be called: what a script
    does, then the tools as Python function stubs.

    >>> ping = Tool.create("ping", "Ping the host.", lambda: "pong")
    >>> print(code_description([ping]).split("```python")[1])
    <BLANKLINE>
    def ping() -> Any:
        \"\"\"Ping the host.\"\"\"
    ```
    """
    intro = _INTRO.format(modules=", ".join(ALLOWED_MODULES))
    names = function_names(tool.name for tool in tools)
    by_tool = {tool: python for python, tool in names.items()}
    stubs = [stub(tool.definition, by_tool[tool.name]) for tool in tools if tool.name in by_tool]
    if not stubs:
        return f"{intro}\n\nNo tool may be called now."
    return f"{intro}\n\n```python\n" + "\n\n".join(stubs) + "\n```"


@attrs.frozen(kw_only=True)
class CodeModeTool(ScriptTool):
    """The tool code mode shows the model: it runs a script whose tool calls the run
    checks and records. Run by a conversation (``ToolLoop``, ``Conversation``), which
    hands it the run's calls; called on its own it says so.

    >>> tool = CodeMode(Tool.create("ping", "Ping.", lambda: "pong")).tool
    >>> tool.call({"code": "1"}).text
    'run_code runs scripts inside a run: pass the CodeMode item in tools=[...] of a ToolLoop or Conversation.'
    """  # noqa: E501

    limits: Limits = _DEFAULT

    def showing(self, tools: Sequence[BaseTool]) -> CodeModeTool:
        """This tool with a description listing ``tools`` as functions.

        >>> tool = CodeMode(name="run_code").tool
        >>> tool.showing([]).description.endswith("No tool may be called now.")
        True
        """
        return attrs.evolve(self, description=code_description(tools))

    def hosted(self, calls: ScriptCalls) -> HostedScript:
        """The tool that runs one script with ``calls`` (what the conversation does).

        >>> from statetools.engine import Conversation
        >>> from statetools.engine.nested import ScriptCalls
        >>> from statetools.messages import ToolCall
        >>> mode = CodeMode(Tool.create("ping", "Ping.", lambda: "pong"))
        >>> conv = Conversation([mode], "Hi", run_id="r1")
        >>> calls = ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code")
        >>> mode.tool.hosted(calls).call({"code": "ping()"}).text
        'pong'
        """
        return HostedCode(name=self.name, description=self.description, script=self, calls=calls)

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Outside a run there is no scheduler to check the calls: an error result."""
        return ToolResult.error(
            f"{self.name} runs scripts inside a run: pass the CodeMode item in tools=[...] "
            "of a ToolLoop or Conversation."
        )


@attrs.frozen(kw_only=True)
class HostedCode(HostedScript):
    """A code-mode tool bound to the calls of one run (what :meth:`CodeModeTool.hosted`
    gives): running it runs one script, in one sandbox. The Temporal workflow reads
    ``script`` (name, limits) and runs the same steps, one activity each.

    >>> mode = CodeMode(Tool.create("ping", "Ping.", lambda: "pong"))
    >>> from statetools.engine.nested import admit_call
    >>> from statetools.engine.scheduler import Scheduler
    >>> from statetools.messages import ToolCall
    >>> hosted = admit_call(Scheduler.for_items([mode]), ToolCall("c1", "run_code"))
    >>> hosted.script.limits.calls, hosted.call({"code": "ping()"}).text
    (50, 'pong')
    """

    script: CodeModeTool

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Run the script in ``arguments["code"]``."""
        code = script_code(arguments, self.name)
        if isinstance(code, ToolResult):
            return code
        before = dict.fromkeys(self.calls.callable_now())
        result = await run_script(code, self.calls, tool=self.name, limits=self.script.limits)
        return with_opened(result, before, self.calls)


@attrs.frozen(init=False)
class CodeMode:
    """An item for ``tools=[...]``: the model gets one tool, ``name``, that runs a
    Python script calling ``items``' tools (those visible now are listed in its
    description as typed functions). Locks hold inside the script, call by call.
    Needs the ``code`` extra (``pip install 'statetools[code]'``, the Monty sandbox).

    ``seconds``, ``memory`` (bytes), ``calls``, ``depth`` and ``output`` (characters)
    limit each script (see :class:`~statetools.code.sandbox.Limits`); a value that
    cannot be one is a :class:`~statetools.DefinitionError`.

    >>> search = Tool.create("search", "Search the notes.", lambda query: "2 notes")
    >>> mode = CodeMode(search, name="run_code")
    >>> mode.tool.name, [t.name for t in mode.code_mode_items]
    ('run_code', ['search'])
    """

    code_mode_items: tuple[Any, ...]
    tool: CodeModeTool

    def __init__(
        self,
        *items: Any,
        name: str = "run_code",
        seconds: float = _DEFAULT.seconds,
        memory: int = _DEFAULT.memory,
        calls: int = _DEFAULT.calls,
        depth: int = _DEFAULT.depth,
        output: int = _DEFAULT.output,
    ) -> None:
        if importlib.util.find_spec("pydantic_monty") is None:
            raise DefinitionError(
                "code mode needs the Monty sandbox (pydantic-monty), which is not installed",
                path=f"CodeMode({name!r})",
                hint="pip install 'statetools[code]'",
            )
        given = {
            "seconds": seconds,
            "memory": memory,
            "calls": calls,
            "depth": depth,
            "output": output,
        }
        for limit, value in given.items():
            problem = limit_problem(limit, value)
            if problem is not None:
                raise DefinitionError(
                    problem, path=f"CodeMode({name!r}).{limit}", hint=LIMIT_HINTS[limit]
                )
        limits = Limits(seconds, memory, calls, depth, output)
        tool = CodeModeTool(
            name=name, description=code_description(()), input_schema=_SCHEMA, limits=limits
        )
        self.__attrs_init__(tuple(items), tool)

    def with_items(self, *items: Any) -> CodeMode:
        """The same code mode (name, limits) over other ``items``.

        >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
        >>> mode = CodeMode(ping, name="script", calls=3).with_items()
        >>> mode.tool.name, mode.tool.limits.calls, mode.code_mode_items
        ('script', 3, ())
        """
        return CodeMode(*items, name=self.tool.name, **attrs.asdict(self.tool.limits))
