"""What every bridge shares: one run's scheduler, and the answer to each tool call.

A framework asks :class:`BridgeRun` which tools to offer before each model request
(:meth:`BridgeRun.offer`) and hands it every tool call the model makes
(:meth:`BridgeRun.answer`). A call of a locked or unknown tool never runs: its answer
is the guidance text our own loop gives (what to call first). A call runs within its
tool's timeout, else the run's ``tool_timeout``, as in our loop
(:mod:`~statetools.integrations.bridge_calls`). A call that ran is recorded, and its
answer carries the announcement line of what it unlocked.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import attrs

from statetools.engine.answers import Refusal, settle, timeout_of
from statetools.engine.graph import DisclosureGraph, disclosure_graph
from statetools.engine.nested import admit_call
from statetools.engine.scheduler import Changes, Scheduler
from statetools.engine.state import DisclosureState
from statetools.engine.visible_tools import Shown
from statetools.errors import DefinitionError
from statetools.integrations.bridge_calls import (
    InThread,
    SharedLoop,
    call_async,
    call_sync,
    threaded,
)
from statetools.messages import ToolCall
from statetools.tools.calling import ToolResult
from statetools.tools.tool import BaseTool, Tool, check_timeout

__all__ = [
    "Answer",
    "BridgeRun",
    "Converted",
    "InThread",
    "SharedLoop",
    "compile_items",
    "registered_tools",
]
# InThread and SharedLoop live in bridge_calls (how a call runs); named here too

T = TypeVar("T")


def compile_items(items: Sequence[Any] | DisclosureGraph) -> DisclosureGraph:
    """The graph of a bridge's items, compiled once (a prebuilt graph is used as is).

    >>> from statetools.tools.tool import Tool
    >>> list(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]).entries)
    ['ping']
    """
    if isinstance(items, DisclosureGraph):
        return items
    if len(items) == 1 and isinstance(items[0], DisclosureGraph):
        return items[0]
    if not items:
        raise DefinitionError(
            "a bridge needs at least one tool",
            path="items",
            hint="pass the tools and definitions as one list: StatetoolsCapability([...])",
        )
    return disclosure_graph(*items)


def registered_tools(graph: DisclosureGraph) -> list[BaseTool]:
    """Every tool the graph registers, in registration order (facades included): what a
    framework must know so that a call of a hidden one still reaches the bridge.

    >>> from statetools.tools.tool import Tool
    >>> [t.name for t in registered_tools(compile_items([Tool.create("a", "A.", lambda: "")]))]
    ['a']
    """
    return [entry.tool for entry in graph.entries.values()]


class Converted(Generic[T]):
    """A framework's form of each tool, made once and shared by every run.

    Tools added during runs (discovery, chaining) may reuse a name with another
    description or schema: the form is made again then. Added tools are kept up to
    ``limit`` (the least recently used go first); registered tools are always kept.
    Runs in several threads may share it.

    >>> from statetools.tools.tool import Tool
    >>> forms = Converted(lambda tool: tool.name.upper())
    >>> forms.get(Tool.create("ping", "Ping.", lambda: "pong"))
    'PING'
    """

    def __init__(self, convert: Callable[[BaseTool], T], *, limit: int = 1024) -> None:
        self._convert = convert
        self._limit = limit
        self._registered: dict[str, tuple[BaseTool, T]] = {}
        self._added: OrderedDict[str, tuple[BaseTool, T]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, tool: BaseTool, *, registered: bool = False) -> T:
        """The converted form of ``tool`` (``registered``: one of the graph's own)."""
        with self._lock:  # another thread may evict the entry this one is checking
            return self._get(tool, registered)

    def _get(self, tool: BaseTool, registered: bool) -> T:
        store = self._registered if registered else self._added
        cached = store.get(tool.name)
        if cached is not None and (cached[0] is tool or cached[0].definition == tool.definition):
            if not registered:
                self._added.move_to_end(tool.name)
            return cached[1]
        made = self._convert(tool)
        store[tool.name] = (tool, made)
        if not registered:  # made again for a changed tool: the most recently used too
            self._added.move_to_end(tool.name)
            if len(self._added) > self._limit:
                self._added.popitem(last=False)
        return made

    def __contains__(self, name: object) -> bool:
        return name in self._registered or name in self._added


@attrs.frozen
class Answer:
    """What a bridge tells the model about one call: ``text`` (with the announcement
    line when the call unlocked something), whether it is an error, whether the tool
    ran, and what changed.

    >>> from statetools.definitions.playbook import PlaybookTool
    >>> from statetools.tools.tool import Tool
    >>> search = Tool.create("search", "Search.", lambda: "found")
    >>> analyze = Tool.create("analyze", "Analyze.", lambda: "ok")
    >>> research = PlaybookTool("r", "Research").with_tool(search).with_tool(analyze)
    >>> run = BridgeRun(compile_items([research.unlocked_by(search)]))
    >>> locked = asyncio.run(run.answer(ToolCall("c1", "analyze")))
    >>> locked.is_error, locked.ran, locked.blocked
    (True, False, "Tool 'analyze' is locked. Call first: search.")
    >>> found = asyncio.run(run.answer(ToolCall("c2", "search")))
    >>> found.text, found.ran, found.changes.unlocked
    ('found\\n[now available: analyze]', True, ('analyze',))
    """

    text: str
    is_error: bool
    ran: bool
    changes: Changes = attrs.field(factory=Changes)
    blocked: str | None = None
    """The guidance text when the tool exists but may not run now."""


class BridgeRun:
    """One run's disclosure inside another framework (never shared between runs).

    >>> from statetools.definitions.playbook import PlaybookTool
    >>> from statetools.tools.tool import Tool
    >>> search = Tool.create("search", "Search.", lambda: "found")
    >>> analyze = Tool.create("analyze", "Analyze.", lambda: "ok")
    >>> research = PlaybookTool("r", "Research").with_tool(search).with_tool(analyze)
    >>> run = BridgeRun(compile_items([research.unlocked_by(search)]))
    >>> run.offer()
    ('search',)
    >>> asyncio.run(run.answer(ToolCall("c1", "analyze"))).text
    "Tool 'analyze' is locked. Call first: search."
    >>> asyncio.run(run.answer(ToolCall("c2", "search"))).text
    'found\\n[now available: analyze]'

    ``tool_timeout``: seconds a call may take when its tool has no timeout of its own
    (None: no limit); past it the answer is ``Tool 'name' timed out after N s.``

    >>> BridgeRun(compile_items([search]), tool_timeout=30).tool_timeout
    30.0
    """

    def __init__(
        self,
        graph: DisclosureGraph,
        state: DisclosureState | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        in_thread: InThread | None = None,
        tool_timeout: float | None = None,
    ) -> None:
        self.graph = graph
        self.scheduler = Scheduler(graph, state)
        self.context: Mapping[str, Any] = context or {}
        self.in_thread = in_thread
        """Runs a tool with a synchronous handler in a worker thread (the framework's own
        way of doing it, when it has a cheaper one than ``asyncio.to_thread``), for calls
        without a timeout."""
        self.tool_timeout = check_timeout(tool_timeout, "BridgeRun(tool_timeout=...)")
        """Seconds a call may take when its tool has no timeout of its own (None: no
        limit); past it the model is told ``Tool 'name' timed out after N s.``"""
        self.version = 0
        """Counts the calls recorded; a saved copy of the state says which one it is."""
        self._turn = asyncio.Lock()
        self._turn_loop: asyncio.AbstractEventLoop | None = None
        """The event loop :attr:`_turn` belongs to (a run may go on in another loop)."""
        self._sync_turn = threading.Lock()
        self._shown: Shown | None = None
        self._names: frozenset[str] = frozenset()
        self._begun_at: int | None = None
        """The version when :meth:`begin` re-checked the turn's conditions (None once
        :meth:`offer` has started that request)."""
        self.offered_at = 0
        """The version when the last model request was offered its tools: the calls of
        that response all start from it."""
        self.memo: Any = None
        """What a bridge built for this run's last request, to reuse while the run's
        visible tools stay the same object (kept per run: never another run's)."""

    def begin(self) -> None:
        """Re-check the turn's conditions ahead of :meth:`offer` (a framework that lists
        its tools before the request): ``offer`` then does not check them again unless
        a call was recorded in between.

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> run.begin(); run.offer()
        ('ping',)
        """
        self.scheduler.begin_turn()
        self._begun_at = self.version

    def offer(self) -> tuple[str, ...]:
        """Start a model request: re-check the turn's conditions (unless :meth:`begin`
        just did) and return the names of the tools to offer, in order.

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> run.offer(), run.scheduler.iteration
        (('ping',), 1)
        """
        if self._begun_at != self.version:
            self.scheduler.begin_turn()
        self._begun_at = None
        self.scheduler.iteration += 1
        self.offered_at = self.version
        return self.scheduler.shown().names

    def tool(self, name: str) -> BaseTool | None:
        """The statetools tool of that name, visible or not (None if unknown).

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> run.tool("ping").name, run.tool("pong")
        ('ping', None)
        """
        entry = self.graph.entries.get(name)
        if entry is not None:
            return entry.tool
        resolved = self.scheduler.resolve(name)
        return resolved if isinstance(resolved, BaseTool) else None

    def enabled(self, name: str) -> bool:
        """Whether ``name`` is visible now.

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> run.enabled("ping"), run.enabled("pong")
        (True, False)
        """
        return name in self.visible_names()

    def visible_names(self) -> frozenset[str]:
        """The names of the tools visible now (the same set while they do not change).

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> run.visible_names(), run.visible_names() is run.visible_names()
        (frozenset({'ping'}), True)
        """
        shown = self.scheduler.shown()
        if shown is not self._shown:
            self._shown, self._names = shown, frozenset(shown.names)
        return self._names

    async def answer(self, call: ToolCall) -> Answer:
        """Run ``call`` if it may run now, record it, and say what the model is told.

        Calls of one run are answered one at a time, in the order they arrive (as our
        own loop does): a call made locked by the one before it is refused.

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> answer = asyncio.run(run.answer(ToolCall("c1", "ping")))
        >>> answer.text, answer.ran, run.version
        ('pong', True, 1)
        """
        loop = asyncio.get_running_loop()
        if loop is not self._turn_loop:  # a lock serves one loop: the run goes on in this one
            self._turn_loop, self._turn = loop, asyncio.Lock()
        async with self._turn:
            return await self._answer(call)

    def answer_sync(self, call: ToolCall, runner: SharedLoop | None = None) -> Answer:
        """:meth:`answer` for synchronous frameworks (not inside a running event loop).
        Calls of one run are answered one at a time (a thread waits for the call another
        is answering; the caller puts them in order). A tool with a synchronous handler
        runs right here, in the caller's thread, or, when it has a timeout (its own or
        :attr:`tool_timeout`), in a worker thread waited for at most that long (see
        :func:`~statetools.integrations.bridge_calls.call_sync`: a handler past it runs
        on in the background, its result dropped); any other tool runs on ``runner``'s
        event loop (one loop for every call), or on a loop of its own without one, and
        is cancelled at its timeout.

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> run.answer_sync(ToolCall("c1", "pong")).text
        "Tool 'pong' does not exist. Did you mean 'ping'? Available tools: ping."
        """
        with self._sync_turn:
            resolved = self._runnable(call)
            if isinstance(resolved, Answer):
                return resolved
            if isinstance(resolved, Tool) and not inspect.iscoroutinefunction(resolved.handler):
                return self._ran(call, call_sync(resolved, call, self.context, self.tool_timeout))
            running = call_async(resolved, call, self.context, self.tool_timeout)
            result = asyncio.run(running) if runner is None else runner.run(running)
            return self._ran(call, result)

    async def _answer(self, call: ToolCall) -> Answer:
        resolved = self._runnable(call)
        if isinstance(resolved, Answer):
            return resolved
        timeout = self.tool_timeout  # a call with a timeout runs as the loop runs it
        if self.in_thread is not None and threaded(resolved) and not timeout_of(resolved, timeout):
            return self._ran(call, await self.in_thread(call_sync, resolved, call, self.context))
        return self._ran(call, await call_async(resolved, call, self.context, timeout))

    def _runnable(self, call: ToolCall) -> BaseTool | Answer:
        """The tool to run for ``call``, or the refusal when it may not run now."""
        admitted = admit_call(self.scheduler, call, self.context)
        if isinstance(admitted, Refusal):
            blocked = admitted.text if admitted.blocked else None
            return Answer(admitted.text, True, False, blocked=blocked)
        return admitted

    def _ran(self, call: ToolCall, result: ToolResult) -> Answer:
        """Record ``call`` that ran with ``result``; the answer carries the announcement."""
        settled = settle(self.scheduler, call, result)
        self.version += 1
        return Answer(settled.text, result.is_error, True, settled.changes)

    def snapshot(self) -> DisclosureState:
        """The run's disclosure state, serializable (``.to_json()``).

        >>> run = BridgeRun(compile_items([Tool.create("ping", "Ping.", lambda: "pong")]))
        >>> _ = run.answer_sync(ToolCall("c1", "ping"))
        >>> dict(run.snapshot().call_counts)
        {'ping': 1}
        """
        return self.scheduler.snapshot()
