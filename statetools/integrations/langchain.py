"""statetools disclosure inside a LangChain 1.x agent (``pip install 'statetools[langchain]'``).

::

    from langchain.agents import create_agent
    from statetools.integrations.langchain import StatetoolsMiddleware

    middleware = StatetoolsMiddleware([research_playbook])
    agent = create_agent(model, tools=middleware.tools, middleware=[middleware])

``.tools`` holds every tool of the definition, so the agent knows them all; each model
call is narrowed to the tools visible now (``wrap_model_call``), and every call of one
of them goes through statetools (``wrap_tool_call``): a locked tool never runs, the
model gets the guidance text; a call that ran is recorded and its answer carries the
announcement line. The disclosure state lives in the graph state (key ``statetools``),
so a thread keeps it between invocations and a checkpointer saves it with the thread.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
from langchain.agents.middleware.types import ModelResponse
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool as LangChainTool
from langchain_core.tools import StructuredTool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from statetools.engine.graph import DisclosureGraph
from statetools.engine.state import DisclosureState
from statetools.errors import DefinitionError
from statetools.integrations.bridge import (
    Answer,
    BridgeRun,
    Converted,
    SharedLoop,
    compile_items,
    registered_tools,
)
from statetools.messages import ToolCall
from statetools.tools.tool import BaseTool, check_timeout

__all__ = ["StatetoolsMiddleware", "StatetoolsState"]

KEY = "statetools"
CACHED_RUNS = 256
"""Threads whose scheduler is kept in memory; others are rebuilt from the graph state."""
ARRIVAL_GRACE = 5.0
"""Seconds a synchronous call waits for an earlier call of its step that has not reached
the middleware at all (another middleware may have answered it), then runs anyway."""
REMEMBERED_CALLS = 4096
"""Tool call ids kept to order the synchronous calls of one step."""


def _latest(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    """Of two saved disclosure states, the one with more calls recorded (parallel tool
    calls of one step each report the state after their own call)."""
    if old is None or new is None:
        return new if new is not None else old
    if old.get("key") != new.get("key"):
        return new
    return new if new.get("version", 0) >= old.get("version", 0) else old


class StatetoolsState(AgentState[Any]):
    """The agent state with the run's disclosure: ``{"key", "version", "state"}``.

    >>> middleware = StatetoolsMiddleware([Tool.create("ping", "Ping.", lambda: "pong")])
    >>> state: StatetoolsState = {"messages": []}
    >>> update = middleware.before_agent(state, None)  # a new thread gets a fresh key
    >>> sorted(update["statetools"]), update["statetools"]["version"]
    (['key', 'state', 'version'], 0)
    """

    statetools: NotRequired[Annotated[dict[str, Any] | None, _latest]]


class StatetoolsMiddleware(AgentMiddleware[StatetoolsState, Any, Any]):
    """statetools disclosure as LangChain agent middleware.

    >>> from langchain.agents import create_agent
    >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
    >>> middleware = StatetoolsMiddleware([ping])
    >>> [t.name for t in middleware.tools]
    ['ping']

    ``tool_timeout`` is the seconds a call may take when its tool has no timeout of its
    own (a tool's ``metadata.timeout`` always holds); past it the model is told
    ``Tool 'name' timed out after N s.`` (an error tool message) and the agent goes on.
    In a synchronous agent, a synchronous handler with a timeout runs in a worker thread
    that cannot be stopped: past its timeout it runs on in the background, its result
    dropped. None (the default): no limit but the tools' own.

    >>> StatetoolsMiddleware([ping], tool_timeout=30).tool_timeout
    30.0
    """

    state_schema = StatetoolsState

    def __init__(
        self,
        items: Sequence[Any] | DisclosureGraph,
        *,
        name: str | None = None,
        tool_timeout: float | None = None,
    ) -> None:
        super().__init__()
        self.tool_timeout = check_timeout(tool_timeout, "StatetoolsMiddleware(tool_timeout=...)")
        """Seconds a call may take when its tool has no timeout of its own (None: none)."""
        self.graph = compile_items(items)
        self._name = name
        self.tools: list[LangChainTool] = [_as_langchain(t) for t in registered_tools(self.graph)]
        """Every tool of the definition, for ``create_agent(tools=...)``."""
        self._ours = {tool.name for tool in self.tools}
        self._added: Converted[LangChainTool] = Converted(_as_langchain)
        """Tools added during runs, converted once."""
        self._runs: OrderedDict[str, BridgeRun] = OrderedDict()
        self._lock = threading.Lock()
        """Held briefly (the runs kept, the calls arrived), never while a tool runs."""
        self._turn = threading.Condition(self._lock)
        self._arrived: OrderedDict[str, bool] = OrderedDict()
        """Tool call ids that reached :meth:`wrap_tool_call`: True once answered."""
        self._loop = SharedLoop()
        """The event loop the asynchronous tools of synchronous calls run on."""

    @property
    def name(self) -> str:
        """The middleware's name: ``name=`` if given, else the class name."""
        return self._name or type(self).__name__

    # state ------------------------------------------------------------------------

    def before_agent(self, state: StatetoolsState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Give a new thread its disclosure key in the graph state (a thread that has
        one keeps it)."""
        if state.get(KEY):
            return None
        return {KEY: {"key": uuid.uuid4().hex, "version": 0, "state": None}}

    async def abefore_agent(
        self, state: StatetoolsState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """:meth:`before_agent` for asynchronous agents."""
        return self.before_agent(state, runtime)

    def run_for(self, state: Any) -> BridgeRun:
        """The disclosure of the thread whose graph state is ``state``."""
        saved = state.get(KEY) if isinstance(state, dict) else getattr(state, KEY, None)
        if not saved:
            raise DefinitionError(
                "the agent state has no statetools disclosure",
                path="middleware",
                hint="pass the middleware to create_agent(middleware=[...]), not only its tools",
            )
        key, version = saved["key"], saved.get("version", 0)
        with self._lock:
            run = self._runs.get(key)
            # the calls of one step all start from the state of its model call
            if run is not None and version in (run.version, run.offered_at):
                self._runs.move_to_end(key)
                return run
            text = saved.get("state")
            state = DisclosureState.from_json(text) if text else None
            run = BridgeRun(self.graph, state, tool_timeout=self.tool_timeout)
            run.version = run.offered_at = version
            self._runs[key] = run
            if len(self._runs) > CACHED_RUNS:
                self._runs.popitem(last=False)
            return run

    # model calls ------------------------------------------------------------------

    def _narrowed(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        run = self.run_for(request.state)
        visible = run.offer()
        given = request.tools
        # this run's last call: the tools given (the agent's list is the same object at
        # every call), its visible names (the same object while this run's visible
        # tools do not change), their number, and what it was sent
        last = run.memo
        if last is not None and last[0] is given and last[1] is visible and last[2] == len(given):
            tools = last[3]
        else:
            tools = self._filter(given, visible, run)
            run.memo = (given, visible, len(given), tools)
        return request.override(tools=list(tools))

    def _filter(
        self,
        given: list[LangChainTool | dict[str, Any]],
        visible: tuple[str, ...],
        run: BridgeRun,
    ) -> list[LangChainTool | dict[str, Any]]:
        """The agent's own tools in their places, then the visible tools of ours in the
        scheduler's order (those added during the run converted once)."""
        place = {name: i for i, name in enumerate(visible)}
        picked: list[LangChainTool | None] = [None] * len(visible)
        tools: list[LangChainTool | dict[str, Any]] = []
        ours = self._ours
        for tool in given:
            if isinstance(tool, dict):  # a provider's built-in tool
                tools.append(tool)
                continue
            index = place.get(tool.name)
            if index is not None:
                picked[index] = tool
            elif tool.name not in ours:
                tools.append(tool)
        for index, found in enumerate(picked):
            if found is None:  # added during the run (a facade built it, discovery, chaining)
                found = self._converted(run.tool(visible[index]))
            if found is not None:
                tools.append(found)
        return tools

    def _converted(self, tool: BaseTool | None) -> LangChainTool | None:
        """The LangChain form of a tool added during a run (made once per tool)."""
        return None if tool is None else self._added.get(tool)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model with only the tools visible now among ours."""
        return handler(self._narrowed(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """:meth:`wrap_model_call` for asynchronous agents."""
        return await handler(self._narrowed(request))

    # tool calls -------------------------------------------------------------------

    def _handles(self, request: ToolCallRequest, run: BridgeRun) -> bool:
        return self._named_ours(request.tool_call["name"], run)

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Answer a call of one of our tools: run it if it may run now (in the order
        the model made the calls), record it, and save the disclosure state in the
        graph state; other tools' calls go to ``handler``."""
        run = self.run_for(request.state)
        if not self._handles(request, run):
            return handler(request)
        call_id = request.tool_call["id"] or ""
        with self._turn:  # parallel calls of one step run in threads: earlier ones first
            self._await_earlier(request, run, call_id)
        try:  # other threads' calls go on meanwhile
            answer = run.answer_sync(_call(request), self._loop)
        finally:
            with self._turn:
                self._arrived[_thread_key(request) + call_id] = True
                self._turn.notify_all()
        return self._command(request, run, answer)

    def _await_earlier(self, request: ToolCallRequest, run: BridgeRun, call_id: str) -> None:
        """Wait (holding :attr:`_turn` again when done) until the calls the model made
        before this one in the same response are answered: threads reach the lock in
        any order, and a call made locked by an earlier one must be refused."""
        thread = _thread_key(request)
        self._arrived[thread + call_id] = False
        while len(self._arrived) > REMEMBERED_CALLS:
            self._arrived.popitem(last=False)
        earlier = [thread + i for i in self._earlier_calls(request, run, call_id)]
        deadline = time.monotonic() + ARRIVAL_GRACE
        while True:
            left = deadline - time.monotonic()
            waiting = [
                i
                for i in earlier
                if self._arrived.get(i) is False or (i not in self._arrived and left > 0)
            ]
            if not waiting:
                return
            self._turn.wait(timeout=left if left > 0 else None)

    def _earlier_calls(self, request: ToolCallRequest, run: BridgeRun, call_id: str) -> list[str]:
        """The ids of the calls of ours before ``call_id`` in its model response that
        have no answer in the graph state yet."""
        messages = request.state.get("messages", []) if isinstance(request.state, dict) else []
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        for message in reversed(messages):
            calls = getattr(message, "tool_calls", None) or []
            ids = [c.get("id") for c in calls]
            if call_id not in ids:
                continue
            before = calls[: ids.index(call_id)]
            return [
                c["id"]
                for c in before
                if c.get("id") and c["id"] not in answered and self._named_ours(c["name"], run)
            ]
        return []

    def _named_ours(self, name: str, run: BridgeRun) -> bool:
        return name in self._ours or run.scheduler.resolve(name) is not None

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """:meth:`wrap_tool_call` for asynchronous agents."""
        run = self.run_for(request.state)
        if not self._handles(request, run):
            return await handler(request)
        answer = await run.answer(_call(request))
        return self._command(request, run, answer)

    def _command(self, request: ToolCallRequest, run: BridgeRun, answer: Answer) -> Command[Any]:
        call = request.tool_call
        message = ToolMessage(
            content=answer.text,
            tool_call_id=call["id"] or "",
            name=call["name"],
            status="error" if answer.is_error else "success",
        )
        saved = request.state.get(KEY) or {}
        update: dict[str, Any] = {"messages": [message]}
        if answer.ran:
            update[KEY] = {
                "key": saved.get("key"),
                "version": run.version,
                "state": run.snapshot().to_json(),
            }
        return Command(update=update)


def _thread_key(request: ToolCallRequest) -> str:
    """The disclosure key of the request's thread, as a prefix for its call ids."""
    saved = request.state.get(KEY) if isinstance(request.state, dict) else None
    return f"{saved.get('key') if saved else ''}:"


def _call(request: ToolCallRequest) -> ToolCall:
    call = request.tool_call
    return ToolCall(call["id"] or call["name"], call["name"], dict(call["args"]))


def _as_langchain(tool: BaseTool) -> LangChainTool:
    """A LangChain tool carrying a statetools tool's name, description and schema; the
    middleware answers its calls (on its own, outside the middleware, it refuses)."""

    def outside(**_: Any) -> str:
        raise DefinitionError(
            f"tool '{tool.name}' ran outside StatetoolsMiddleware",
            path=f"tools.{tool.name}",
            hint="pass the middleware too: create_agent(tools=m.tools, middleware=[m])",
        )

    definition = tool.definition
    return StructuredTool.from_function(
        func=outside,
        name=definition.name,
        description=definition.description,
        args_schema=dict(definition.input_schema),
    )
