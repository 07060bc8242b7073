"""Running a script: refused before it runs if it tries what it may not, then its tool
calls answered by the host, call by call.

:func:`answer` turns a script's :class:`~statetools.code.sandbox.Pause` into the
:class:`~statetools.code.sandbox.Answer` it gets, through the host's
:class:`~statetools.engine.nested.ScriptCalls` (checked, run and recorded as a
direct call): the tool's value, ``PermissionError`` with the guidance for a tool that
is locked now, ``RuntimeError`` with a failed tool's error text, ``NameError`` or
``TypeError`` for a name that is no tool or arguments that do not fit. :func:`run_script`
runs a whole script in one sandbox (``ToolLoop``, ``Conversation`` and the one-call
hosts); the Temporal workflow drives the same steps, one activity each.

What a script may not do is refused before it runs (:func:`refusal`), with a message
that says why. The sandbox itself (Monty) has no file system, network or processes;
these checks make the common attempts fail early and clearly: an import of a module
outside :data:`ALLOWED_MODULES`, the builtins that reach outside the script or run other
code (``open``, ``__import__``, ``eval``, ...), and dunder attributes. A script that
Python's own parser cannot read is left to the sandbox, which reports the syntax error.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from typing import Any

from statetools.code.sandbox import Answer, Limits, Output, Pause, Sandbox, opened_line
from statetools.code.stubs import function_names, keyword_arguments
from statetools.engine.nested import ScriptCalls
from statetools.errors import StatetoolsError
from statetools.tools.calling import Arguments, ToolResult
from statetools.tools.fields import ToolDefinition
from statetools.wording import counted

__all__ = [
    "ALLOWED_MODULES",
    "FORBIDDEN_NAMES",
    "ScriptCallsMade",
    "answer",
    "refusal",
    "run_script",
    "script_code",
    "with_opened",
]

ALLOWED_MODULES = (
    "base64",
    "binascii",
    "bisect",
    "collections",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "functools",
    "hashlib",
    "itertools",
    "json",
    "math",
    "random",
    "re",
    "tomllib",
    "typing",
)
"""The modules a script may import (all pure computation)."""

FORBIDDEN_NAMES = (
    "__import__",
    "breakpoint",
    "compile",
    "eval",
    "exec",
    "globals",
    "input",
    "locals",
    "open",
    "vars",
)
"""Builtins a script may not use: they reach files, the console or other code."""


def refusal(code: str, tool: str) -> str | None:
    """Why ``code`` may not run in ``tool`` (the first reason found), or None.

    >>> refusal("import os", "run_code")
    "run_code: 'import os' is not allowed (line 1): scripts have no file system, network or processes. Modules a script may import: base64, binascii, bisect, collections, copy, csv, dataclasses, datetime, decimal, functools, hashlib, itertools, json, math, random, re, tomllib, typing."
    >>> refusal("import json", "run_code") is None
    True
    """  # noqa: E501
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None  # the sandbox reports it
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.partition(".")[0] not in ALLOWED_MODULES:
                    return _module(tool, f"import {alias.name}", line)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.partition(".")[0] not in ALLOWED_MODULES:
                return _module(tool, f"from {'.' * node.level}{module} import ...", line)
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            return (
                f"{tool}: '{node.id}' is not available (line {line}): scripts have no file "
                "system, network or processes, and run no other code."
            )
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            return f"{tool}: the attribute '{node.attr}' is not available (line {line})."
    return None


def _module(tool: str, statement: str, line: int) -> str:
    return (
        f"{tool}: '{statement}' is not allowed (line {line}): scripts have no file system, "
        f"network or processes. Modules a script may import: {', '.join(ALLOWED_MODULES)}."
    )


class ScriptCallsMade:
    """What one script may call (Python name -> tool) and how many calls it made; the
    names are read again when the script names a function it does not know yet (a
    call may have added tools).

    >>> from statetools.engine import Conversation
    >>> from statetools.engine.nested import ScriptCalls
    >>> from statetools.messages import ToolCall
    >>> conv = Conversation([], "Hi", run_id="r1")
    >>> ScriptCallsMade(ScriptCalls(conv.record, ToolCall("c1", "run_code"), "run_code")).names
    {}
    """

    def __init__(self, calls: ScriptCalls) -> None:
        self.calls = calls
        self.made = 0
        self.definitions: Mapping[str, ToolDefinition] = {}
        self.names: dict[str, str] = {}
        self.refresh()

    def refresh(self) -> None:
        """Read the script's tools again."""
        self.definitions = self.calls.tools()
        self.names = function_names(self.definitions)


def _plain(value: Any) -> bool:
    """Whether ``value`` crosses into the sandbox as it is (JSON-like data)."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list | tuple):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _value(result: ToolResult) -> Any:
    """What a tool call returns to the script: its value when that is plain data, else
    the text the model would read."""
    if result.has_value and _plain(result.value):
        return result.value
    return result.text


async def answer(pause: Pause, made: ScriptCallsMade, *, tool: str, limits: Limits) -> Answer:
    """The answer to a script's call: the call checked, run and recorded through
    ``made.calls`` (``tool`` is the script tool, for the message of the call limit)."""
    name = pause.function
    if name not in made.names:  # a tool a call of this script added?
        made.refresh()
    target = made.names.get(name)
    if target is None:
        return Answer(error=("NameError", f"name '{name}' is not defined"))
    made.made += 1
    if made.made > limits.calls:
        return Answer(
            stop=f"{tool}: stopped at tool call {made.made}: a script may make "
            f"{counted(limits.calls, 'tool call')}."
        )
    try:
        arguments = keyword_arguments(
            made.definitions[target].input_schema, pause.args, pause.kwargs
        )
    except TypeError as exc:
        return Answer(error=("TypeError", f"{name}() {exc}"))
    result = await made.calls.call(target, arguments)
    if isinstance(result, str):
        return Answer(error=("PermissionError", result))
    if result.is_error:
        return Answer(error=("RuntimeError", result.text))
    return Answer(_value(result))


def script_code(arguments: Arguments, tool: str) -> str | ToolResult:
    """The source a call of script tool ``tool`` carries, or the error result that
    answers it (no code, or code a script may not run).

    >>> script_code({"code": "import os"}, "run_code").text.startswith("run_code: 'import os'")
    True
    """
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = None
    code = arguments.get("code") if isinstance(arguments, Mapping) else None
    if not isinstance(code, str) or not code.strip():
        return ToolResult.error(f"{tool} needs 'code': the Python source to run.")
    refused = refusal(code, tool)
    return ToolResult.error(refused) if refused is not None else code


def with_opened(result: ToolResult, before: Mapping[str, Any], calls: ScriptCalls) -> ToolResult:
    """``result`` with the line naming the tools the script made callable (none: as is).

    >>> with_opened(ToolResult.text("done"), {}, _Nothing()).text
    'done'
    """
    opened = opened_line(before, calls.callable_now())
    return result.with_text(f"{result.text}\n{opened}".strip("\n")) if opened else result


class _Nothing:
    """No tools (for the examples)."""

    def tools(self) -> Mapping[str, ToolDefinition]:
        return {}

    def callable_now(self) -> list[str]:
        return []


def could_not_run(tool: str, exc: RuntimeError) -> ToolResult:
    """The result of a script whose sandbox could not start (binary missing, no
    processes).

    >>> could_not_run("run_code", RuntimeError("no worker")).text
    'run_code: the sandbox could not run the script: no worker'
    """
    return ToolResult.error(f"{tool}: the sandbox could not run the script: {exc}")


async def run_script(code: str, calls: ScriptCalls, *, tool: str, limits: Limits) -> ToolResult:
    """Run ``code`` (the source the model sent to ``tool``, read and checked by
    :func:`script_code`) in one sandbox, ``calls`` answering its tool calls; the result
    the model reads."""
    made = ScriptCallsMade(calls)
    try:
        async with Sandbox(tool, limits, Output(limits.output)) as sandbox:
            step = await sandbox.start(code, made.names)
            while isinstance(step, Pause):
                reply = await answer(step, made, tool=tool, limits=limits)
                step = await sandbox.resume(reply, made.names)
            return step
    except RuntimeError as exc:
        if isinstance(exc, StatetoolsError):
            raise
        return could_not_run(tool, exc)
