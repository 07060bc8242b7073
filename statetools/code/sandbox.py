"""Run one script in the Monty sandbox, its tool calls answered by the host.

``pydantic_monty`` is imported here, when a script first runs (``import statetools``
never loads it). The script runs in a Monty worker process with the limits of a
:class:`Limits`; each call of a tool function suspends it, and the host's
:class:`~statetools.disclosure.code_view.NestedCalls` answers: the tool's value, or an
exception raised inside the script (``PermissionError`` with the guidance for a tool
that is locked now, ``RuntimeError`` with the tool's error text). What the script
prints, then the value of its last expression, is the result, cut at the limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from statetools.code.checks import refusal
from statetools.code.stubs import function_names, keyword_arguments
from statetools.disclosure.code_view import NestedCalls
from statetools.errors import StatetoolsError
from statetools.tools.definition import ToolDefinition
from statetools.tools.result import ToolResult
from statetools.wording import counted

__all__ = ["LIMIT_HINTS", "Limits", "Output", "limit_problem", "run_script"]


@attrs.frozen
class Limits:
    """How much one script may use: ``seconds`` of running time (time spent in tool
    calls not counted), ``memory`` bytes of heap, ``calls`` tool calls, ``depth``
    nested function calls, and ``output`` characters of result before it is cut.

    >>> Limits().calls
    50
    """

    seconds: float = 5.0
    memory: int = 64 * 1024 * 1024
    calls: int = 50
    depth: int = 200
    output: int = 20_000


LIMIT_HINTS = {
    "seconds": "give the seconds a script may run, a number greater than 0, e.g. 5",
    "memory": "give the bytes of memory a script may use, a whole number, e.g. 67108864",
    "calls": "give the tool calls a script may make, a whole number, e.g. 50",
    "depth": "give how deeply a script's function calls may nest, a whole number, e.g. 200",
    "output": "give the characters of result kept, a whole number, e.g. 20000",
}
"""Each limit of :class:`Limits`, with what a valid value is."""


def limit_problem(limit: str, value: Any) -> str | None:
    """Why ``value`` cannot be limit ``limit`` of a script (None when it can):
    ``seconds`` is a number greater than 0, the others whole numbers of at least 1.

    >>> limit_problem("calls", "many"), limit_problem("seconds", 0.5)
    ("invalid calls 'many'", None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"invalid {limit} {value!r}"
    if limit != "seconds" and not isinstance(value, int):
        return f"invalid {limit} {value!r}"
    if not (value > 0 and value < float("inf")):  # nan fails too
        return f"invalid {limit} {value!r}"
    return None


class Output:
    """What a script printed, kept up to ``limit`` characters (the rest is counted).

    >>> out = Output(5)
    >>> out.write("stdout", "hello world")
    >>> out.text("")
    'hello\\n[output cut: 6 more characters]'
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[str] = []
        self._kept = 0
        self._dropped = 0

    def write(self, stream: Literal["stdout", "stderr"], text: str) -> None:
        """Keep printed ``text`` (both streams, in order)."""
        room = self.limit - self._kept
        if room > 0:
            self._parts.append(text[:room])
            self._kept += min(room, len(text))
        self._dropped += max(0, len(text) - max(room, 0))

    def text(self, tail: str) -> str:
        """The printed text, then ``tail`` (the script's value), with the marker where
        the limit cut them."""
        self.write("stdout", tail)
        text = "".join(self._parts).rstrip("\n")
        if self._dropped:
            text += f"\n[output cut: {counted(self._dropped, 'more character')}]"
        return text

    def failed(self, error: str) -> str:
        """The printed text (cut at the limit), then ``error`` whole.

        >>> out = Output(5)
        >>> out.write("stdout", "hello world")
        >>> out.failed("boom")
        'hello\\n[output cut: 6 more characters]\\nboom'
        """
        return f"{self.text('')}\n{error}".lstrip("\n")


class _Stop(Exception):
    """The script is stopped (not resumed); the message says why."""


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


def _never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("tool functions are answered by the host")  # pragma: no cover


def _function(name: str) -> Any:
    """A stand-in for tool function ``name`` (its calls are answered by the host)."""

    def function(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("tool functions are answered by the host")  # pragma: no cover

    function.__name__ = function.__qualname__ = name
    return function


def _refreshed(calls: NestedCalls) -> tuple[Mapping[str, ToolDefinition], dict[str, str]]:
    """The script's tools and their Python names now (calls may have added tools)."""
    definitions = calls.tools()
    return definitions, function_names(definitions)


async def run_script(
    code: str,
    calls: NestedCalls,
    *,
    tool: str,
    limits: Limits,
) -> ToolResult:
    """Run ``code`` (the source the model sent to ``tool``) with ``calls`` answering
    its tool calls; the result the model reads."""
    refused = refusal(code, tool)
    if refused is not None:
        return ToolResult.error(refused)
    import pydantic_monty as monty

    definitions = calls.tools()
    names = function_names(definitions)
    output = Output(limits.output)
    made = 0
    try:
        async with (
            monty.AsyncMonty(min_processes=1, max_processes=1) as pool,
            pool.checkout(
                script_name="script.py",
                limits={
                    "max_feed_duration_secs": limits.seconds,
                    "max_memory": limits.memory,
                    "max_recursion_depth": limits.depth,
                    "max_suspensions": 2 * limits.calls + 20,
                    "max_total_sleep_secs": 0.0,
                },
                os_policy={"sleep": "zero"},
            ) as session,
        ):
            snapshot = await session.feed_start(
                code, external_lookup=dict.fromkeys(names, _never), print_callback=output.write
            )
            while not isinstance(snapshot, monty.MontyComplete):
                if isinstance(snapshot, monty.AsyncNameLookupSnapshot):
                    looked_up = str(snapshot.variable_name)
                    if looked_up not in names and snapshot.object_id is None:
                        definitions, names = _refreshed(calls)  # a tool added since?
                    if looked_up in names and snapshot.object_id is None:
                        snapshot = await snapshot.resume(value=_function(looked_up))
                    else:
                        snapshot = await snapshot.resume_auto()
                    continue
                if not isinstance(snapshot, monty.AsyncFunctionSnapshot):
                    raise _Stop(f"{tool}: scripts call tools one at a time (no await).")
                name = str(snapshot.function_name)
                if snapshot.is_os_function:
                    if name == "import":
                        snapshot = await snapshot.resume_not_handled()
                        continue
                    raise _Stop(f"{tool}: scripts have no file system or network ({name}).")
                if name not in names:  # a tool a call of this script added?
                    definitions, names = _refreshed(calls)
                target = names.get(name)
                if target is None:
                    error: BaseException = NameError(f"name '{name}' is not defined")
                    snapshot = await snapshot.resume({"exception": error})
                    continue
                made += 1
                if made > limits.calls:
                    raise _Stop(
                        f"{tool}: stopped at tool call {made}: a script may make "
                        f"{counted(limits.calls, 'tool call')}."
                    )
                try:
                    arguments = keyword_arguments(
                        definitions[target].input_schema, snapshot.args, snapshot.kwargs
                    )
                except TypeError as exc:
                    error = TypeError(f"{name}() {exc}")
                    snapshot = await snapshot.resume({"exception": error})
                    continue
                answer = await calls.call(target, arguments)
                if isinstance(answer, str):
                    snapshot = await snapshot.resume({"exception": PermissionError(answer)})
                elif answer.is_error:
                    snapshot = await snapshot.resume({"exception": RuntimeError(answer.text)})
                else:
                    snapshot = await snapshot.resume({"return_value": _value(answer)})
            value = snapshot.output
    except _Stop as stop:
        return ToolResult.error(output.failed(str(stop)))
    except monty.MontySyntaxError as exc:
        return ToolResult.error(f"{tool}: the script is not valid Python.\n{exc.display()}")
    except monty.MontyRuntimeError as exc:
        return ToolResult.error(output.failed(_failure(exc, tool, limits)))
    except monty.MontyError as exc:
        return ToolResult.error(output.failed(f"{tool}: the sandbox stopped the script: {exc}"))
    except RuntimeError as exc:  # the worker could not start (binary missing, no processes)
        if isinstance(exc, StatetoolsError):
            raise
        return ToolResult.error(f"{tool}: the sandbox could not run the script: {exc}")
    return ToolResult.text(output.text("" if value is None else _shown(value)))


def _failure(exc: Any, tool: str, limits: Limits) -> str:
    """What the model reads of a script that raised: a limit it ran into, in words; any
    other exception with its traceback."""
    inner, text = exc.exception(), str(exc)
    if isinstance(inner, TimeoutError) and "time limit exceeded" in text:
        return f"{tool}: the script was stopped: it ran longer than {limits.seconds} s."
    if isinstance(inner, MemoryError) and "memory limit exceeded" in text:
        return (
            f"{tool}: the script was stopped: it used more than {limits.memory:,} bytes of memory."
        )
    return f"{tool}: the script failed.\n{exc.display()}"


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def opened_line(before: Mapping[str, Any], after: list[str]) -> str:
    """The line telling which tools a script made callable (empty when none).

    >>> opened_line({"search": None}, ["search", "analyze"])
    '[now callable: analyze]'
    """
    new = [name for name in after if name not in before]
    return f"[now callable: {', '.join(new)}]" if new else ""
