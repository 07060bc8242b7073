"""One script in the Monty sandbox: started, paused at each tool call, resumed with
the call's answer (:class:`Sandbox`).

``pydantic_monty`` is imported here, when a script first runs (``import statetools``
never loads it). The script runs in a Monty worker process with the limits of a
:class:`Limits`; each call of a tool function pauses it (a :class:`Pause`), and the
host answers (an :class:`Answer`): the tool's value, or an exception raised inside the
script. What the script prints, then the value of its last expression, is the result,
cut at the limit. A paused script can be dumped to bytes and loaded again in another
process (the Temporal workflow resumes it in a later activity).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from types import TracebackType
from typing import Any, Literal

import attrs

from statetools.tools.calling import ToolResult
from statetools.wording import counted

__all__ = [
    "LIMIT_HINTS",
    "Answer",
    "Limits",
    "Output",
    "Pause",
    "Sandbox",
    "limit_problem",
    "opened_line",
]


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

    >>> limit_problem("calls", "many"), limit_problem("memory", True), limit_problem("seconds", 0.5)
    ("invalid calls 'many'", 'invalid memory true', None)
    """
    shown = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"invalid {limit} {shown}"
    if limit != "seconds" and not isinstance(value, int):
        return f"invalid {limit} {shown}"
    if not (value > 0 and value < float("inf")):  # nan fails too
        return f"invalid {limit} {shown}"
    return None


class Output:
    """What a script printed, kept up to ``limit`` characters (the rest is counted).

    >>> out = Output(5)
    >>> out.write("stdout", "hello world")
    >>> out.text("")
    'hello\\n[output cut: 6 more characters]'
    """

    def __init__(self, limit: int, kept: str = "", dropped: int = 0) -> None:
        self.limit = limit
        self._parts: list[str] = [kept] if kept else []
        self._kept = len(kept)
        self._dropped = dropped

    def saved(self) -> tuple[str, int]:
        """What was printed so far: the text kept and how many characters were cut
        (``Output(limit, *saved)`` goes on from there).

        >>> out = Output(5)
        >>> out.write("stdout", "hello world")
        >>> out.saved(), Output(5, *out.saved()).text("")
        (('hello', 6), 'hello\\n[output cut: 6 more characters]')
        """
        return "".join(self._parts), self._dropped

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


@attrs.frozen
class Pause:
    """A script waiting for the answer to its call of tool function ``function``.

    >>> Pause("search", ("tides",), {}).function
    'search'
    """

    function: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = attrs.field(factory=dict)


ERRORS: dict[str, type[Exception]] = {
    "PermissionError": PermissionError,
    "RuntimeError": RuntimeError,
    "NameError": NameError,
    "TypeError": TypeError,
}
"""The exceptions an answer may raise inside a script, by name."""


@attrs.frozen
class Answer:
    """What a paused script gets: ``value`` returned by the call, or the exception
    ``error`` (its name in :data:`ERRORS`, and its text) raised by it; or ``stop``, the
    reason the script is stopped instead.

    >>> Answer(error=("PermissionError", "Tool 'refund' is locked.")).error[0]
    'PermissionError'
    """

    value: Any = None
    error: tuple[str, str] | None = None
    stop: str | None = None


class _Stop(Exception):
    """The script is stopped (not resumed); the message says why."""


def _function(name: str) -> Any:
    """A stand-in for tool function ``name`` (its calls are answered by the host)."""

    def function(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("tool functions are answered by the host")  # pragma: no cover

    function.__name__ = function.__qualname__ = name
    return function


class Sandbox:
    """One script in a Monty worker, for ``tool`` (the script tool's name, in messages),
    within ``limits``; ``output`` collects what it prints, and ``used`` is the sandbox
    time its earlier steps took (a script resumed in another process keeps its budget).
    Use it as ``async with``; :meth:`start` (or :meth:`load`) and :meth:`resume` give
    the next :class:`Pause`, or the script's result.

    >>> Sandbox("run_code", Limits(), Output(100)).used
    0.0
    """

    def __init__(self, tool: str, limits: Limits, output: Output, used: float = 0.0) -> None:
        self.tool = tool
        self.limits = limits
        self.output = output
        self.used = used
        self._snapshot: Any = None
        self._pool: Any = None
        self._session: Any = None

    async def __aenter__(self) -> Sandbox:
        import pydantic_monty as monty

        limits = self.limits
        pool = monty.AsyncMonty(min_processes=1, max_processes=1)
        await pool.__aenter__()
        try:
            checkout = pool.checkout(
                script_name="script.py",
                limits={
                    "max_feed_duration_secs": max(limits.seconds - self.used, 0.001),
                    "max_memory": limits.memory,
                    "max_recursion_depth": limits.depth,
                    "max_suspensions": 2 * limits.calls + 20,
                    "max_total_sleep_secs": 0.0,
                },
                os_policy={"sleep": "zero"},
            )
            self._session = await checkout.__aenter__()
        except BaseException:
            await pool.__aexit__(None, None, None)
            raise
        self._pool, self._checkout = pool, checkout
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            await self._checkout.__aexit__(kind, error, traceback)
        finally:
            await self._pool.__aexit__(kind, error, traceback)

    async def start(self, code: str, names: Collection[str]) -> Pause | ToolResult:
        """Run ``code`` until it calls one of the tool functions ``names`` (or ends)."""
        lookup = {name: _function(name) for name in names}
        return await self._step(
            lambda: self._session.feed_start(
                code, external_lookup=lookup, print_callback=self.output.write
            ),
            names,
        )

    async def load(self, state: bytes, names: Collection[str]) -> Pause | ToolResult:
        """Load a paused script :meth:`dump` wrote (its :class:`Pause` again)."""
        lookup = {name: _function(name) for name in names}
        return await self._step(
            lambda: self._session.load_snapshot(
                state, external_lookup=lookup, print_callback=self.output.write
            ),
            names,
        )

    async def resume(self, answer: Answer, names: Collection[str]) -> Pause | ToolResult:
        """Answer the pending call and run on to the next call (or the end)."""
        if answer.stop is not None:
            return ToolResult.error(self.output.failed(answer.stop))
        snapshot = self._snapshot
        if answer.error is not None:
            kind, text = answer.error
            resumed: dict[str, Any] = {"exception": ERRORS.get(kind, RuntimeError)(text)}
        else:
            resumed = {"return_value": answer.value}
        return await self._step(lambda: snapshot.resume(resumed), names)

    def dump(self) -> bytes:
        """The paused script as bytes, for :meth:`load` (in this process or another)."""
        data: bytes = self._snapshot.dump()
        return data

    async def _step(self, go: Any, names: Collection[str]) -> Pause | ToolResult:
        import pydantic_monty as monty

        tool, started = self.tool, time.monotonic()
        try:
            snapshot = await go()
            while not isinstance(snapshot, monty.MontyComplete):
                if isinstance(snapshot, monty.AsyncNameLookupSnapshot):
                    looked_up = str(snapshot.variable_name)
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
                self._snapshot = snapshot
                return Pause(name, tuple(snapshot.args), dict(snapshot.kwargs))
            value = snapshot.output
        except _Stop as stop:
            return ToolResult.error(self.output.failed(str(stop)))
        except monty.MontySyntaxError as exc:
            return ToolResult.error(f"{tool}: the script is not valid Python.\n{exc.display()}")
        except monty.MontyRuntimeError as exc:
            return ToolResult.error(self.output.failed(_failure(exc, tool, self.limits)))
        except monty.MontyError as exc:
            return ToolResult.error(
                self.output.failed(f"{tool}: the sandbox stopped the script: {exc}")
            )
        finally:
            self.used += time.monotonic() - started
        return ToolResult.text(self.output.text("" if value is None else _shown(value)))


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
