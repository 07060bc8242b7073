"""statetools disclosure inside a pydantic-ai agent (``pip install 'statetools[pydantic-ai]'``).

One capability is the whole setup::

    from pydantic_ai import Agent
    from statetools.integrations.pydantic_ai import StatetoolsCapability

    agent = Agent(model, capabilities=[StatetoolsCapability([research_playbook])])

The capability contributes a toolset with every tool of the definition, so a call of a
hidden tool reaches statetools (and gets "locked ... Call first: ...") instead of
pydantic-ai's unknown-tool answer; ``before_model_request`` narrows each request to
the tools visible now. Each run of the agent gets its own disclosure state
(``for_run``), so concurrent runs of one agent never share it. A run continued from
an earlier run's messages (``message_history=...``) continues its disclosure: each run
leaves its state in the metadata of its last response
(:mod:`~statetools.integrations.pydantic_ai_history`).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from anyio import to_thread
from pydantic_ai import AgentRunResult, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, CombinedToolset, ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from statetools.engine.graph import DisclosureGraph
from statetools.engine.state import DisclosureState
from statetools.engine.visible_tools import Shown
from statetools.integrations.bridge import BridgeRun, Converted, compile_items, registered_tools
from statetools.integrations.pydantic_ai_history import save_state, saved_state
from statetools.messages import ToolCall
from statetools.tools.tool import BaseTool, check_timeout

__all__ = ["StatetoolsCapability", "StatetoolsToolset"]

KEPT_RUNS = 256
"""Runs a toolset keeps when pydantic-ai reaches it without asking for one per run."""
_ANY_ARGUMENTS = SchemaValidator(core_schema.dict_schema(core_schema.str_schema()))
"""Arguments reach statetools as the model sent them: a tool validates its own (and a
locked tool answers with its guidance text whatever the arguments)."""


def new_run(
    graph: DisclosureGraph,
    state: DisclosureState | None = None,
    *,
    tool_timeout: float | None = None,
) -> BridgeRun:
    """One run's disclosure (from ``state``, a saved one, if given); synchronous
    handlers without a timeout run in anyio's worker threads, as pydantic-ai runs its
    own; a call with a timeout runs as the loop runs it.

    >>> from statetools.integrations.bridge import compile_items
    >>> run = new_run(compile_items([Tool.create("search", "Search.", lambda: "found")]))
    >>> run.offer(), run.in_thread is to_thread.run_sync
    (('search',), True)
    """
    return BridgeRun(graph, state, in_thread=to_thread.run_sync, tool_timeout=tool_timeout)


class StatetoolsToolset(AbstractToolset[Any]):
    """A pydantic-ai toolset with every tool of a statetools definition.

    Each run gets its own disclosure state. Calls are enforced (a locked tool never
    runs; the model gets the guidance text) and recorded (unlocks, state changes,
    facades); the answer carries the announcement line. On its own it lists every
    tool; :class:`StatetoolsCapability` adds the per-request filtering.

    ``tool_timeout`` is the seconds a call may take when its tool has no timeout of its
    own (``metadata.timeout``, which always holds); past it the model is told
    ``Tool 'name' timed out after N s.`` and the run goes on. None: no limit.

    >>> from pydantic_ai import Agent
    >>> from pydantic_ai.models.test import TestModel
    >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
    >>> agent = Agent(TestModel(), toolsets=[StatetoolsToolset([ping])])
    >>> agent.run_sync("go").output
    '{"ping":"pong"}'
    >>> import time
    >>> slow = Tool.create("slow", "Wait.", lambda: time.sleep(0.2) or "late")
    >>> toolset = StatetoolsToolset([slow], tool_timeout=0.05)
    >>> print(Agent(TestModel(), toolsets=[toolset]).run_sync("go").output)
    {"slow":"Tool 'slow' timed out after 0.05 s."}
    """

    def __init__(
        self,
        items: Sequence[Any] | DisclosureGraph,
        *,
        id: str | None = None,
        max_retries: int = 1,
        run: BridgeRun | None = None,
        tool_timeout: float | None = None,
    ) -> None:
        self.graph = compile_items(items)
        self._id = id
        self.max_retries = max_retries
        self.tool_timeout = check_timeout(tool_timeout, "StatetoolsToolset(tool_timeout=...)")
        """Seconds a call may take when its tool has no timeout of its own (None: none)."""
        self.run = run
        """This run's disclosure (None on the toolset given to the agent)."""
        self._tools: Converted[ToolsetTool[Any]] = Converted(self._toolset_tool)
        """Converted tools, shared by every run."""
        self._registered: dict[str, ToolsetTool[Any]] = {}
        self._shown: Shown | None = None
        self._listed: dict[str, ToolsetTool[Any]] = {}
        """What :meth:`get_tools` gave for the visible tools :attr:`_shown` (this run's)."""
        self._added: frozenset[str] = frozenset()
        """The names in :attr:`_listed` of tools added during this run."""
        self._step: int | None = None
        """The run step whose conditions were last re-checked."""
        self._runs: OrderedDict[str, StatetoolsToolset] = OrderedDict()
        """This toolset for each run that reached it without :meth:`for_run`, by run id
        (the most recent kept)."""
        self._outside: BridgeRun | None = None
        """The run of calls made outside any agent run."""

    @property
    def id(self) -> str | None:
        """The ``id=`` given (pydantic-ai names the toolset by it in its messages)."""
        return self._id

    def bound(self, run: BridgeRun) -> StatetoolsToolset:
        """This toolset for one run (the tool definitions are shared)."""
        toolset = StatetoolsToolset(
            self.graph,
            id=self._id,
            max_retries=self.max_retries,
            run=run,
            tool_timeout=self.tool_timeout,
        )
        toolset._tools = self._tools
        toolset._registered = self._registered
        return toolset

    def new_run(self, state: DisclosureState | None = None) -> BridgeRun:
        """A disclosure of its own for one run (from ``state``, a saved one, if given),
        with this toolset's ``tool_timeout``.

        >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
        >>> StatetoolsToolset([ping], tool_timeout=5).new_run().tool_timeout
        5.0
        """
        return new_run(self.graph, state, tool_timeout=self.tool_timeout)

    async def for_run(self, ctx: RunContext[Any]) -> AbstractToolset[Any]:
        """This toolset bound to a disclosure of its own for the agent run starting
        (itself when it is bound already)."""
        return self if self.run is not None else self.bound(self.new_run())

    def _toolset_tool(self, tool: BaseTool) -> ToolsetTool[Any]:
        definition = tool.definition
        return ToolsetTool(
            toolset=self,
            tool_def=ToolDefinition(
                name=definition.name,
                description=definition.description,
                parameters_json_schema=dict(definition.input_schema),
            ),
            max_retries=self.max_retries,
            args_validator=_ANY_ARGUMENTS,
        )

    @property
    def added(self) -> frozenset[str]:
        """The names of the tools added during this run (built by a facade, discovered,
        chained) that :meth:`get_tools` listed last; never those of another run."""
        return self._added

    def owns(self, name: str) -> bool:
        """Whether ``name`` is one of this toolset's tools in this run: registered, or
        added during this run and listed now (a name another run added is not)."""
        return name in self.graph.entries or name in self._added

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """Every tool: the registered ones and, in a run, those the run added (a call of
        a hidden one reaches :meth:`call_tool`, which answers with our text)."""
        registered = self._registered
        if not registered:
            registered.update(
                (tool.name, self._tools.get(tool, registered=True))
                for tool in registered_tools(self.graph)
            )
        run = self.run
        if run is None:
            bound = self._bound_for(ctx)
            return dict(registered) if bound is None else await bound.get_tools(ctx)
        if ctx.run_step != self._step:  # a new step: its conditions first, then the list
            self._step = ctx.run_step  # (a tool added in the run may be back, or hidden)
            run.begin()
        shown = run.scheduler.shown()
        if shown is not self._shown:  # tools built or discovered during the run
            entries = self.graph.entries
            added = [tool for tool in shown.tools if tool.name not in entries]
            listed = dict(registered)
            listed.update((tool.name, self._tools.get(tool)) for tool in added)
            self._shown, self._listed = shown, listed
            self._added = frozenset(tool.name for tool in added)
        return dict(self._listed)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """Run the call if it may run now and record it; returns what the model is told
        (for a locked tool, what to call first)."""
        run = self.run
        if run is None:
            bound = self._bound_for(ctx)
            if bound is not None:
                return await bound.call_tool(name, tool_args, ctx, tool)
            if self._outside is None:  # called outside any agent run: a run of its own
                self._outside = self.new_run()
            run = self._outside
        answer = await run.answer(ToolCall(ctx.tool_call_id or name, name, tool_args))
        return answer.text

    def _bound_for(self, ctx: RunContext[Any]) -> StatetoolsToolset | None:
        """This toolset for the run of ``ctx`` when pydantic-ai did not ask for one
        (``for_run``), as when a toolset factory returns it: kept by run id, so runs
        never share a state (None outside an agent run)."""
        key = ctx.run_id
        if key is None:
            return None
        runs = self._runs
        bound = runs.get(key)
        if bound is None:
            bound = runs[key] = self.bound(self.new_run())
            if len(runs) > KEPT_RUNS:
                runs.popitem(last=False)
        else:
            runs.move_to_end(key)
        return bound


class StatetoolsCapability(AbstractCapability[Any]):
    """statetools disclosure for a pydantic-ai agent: ``Agent(model, capabilities=[cap])``.

    Contributes a :class:`StatetoolsToolset` (every tool, enforced and recorded) and
    narrows each model request to the tools visible now; the agent's own tools are
    left as they are. Each run gets its own state.

    >>> from pydantic_ai import Agent
    >>> from pydantic_ai.models.function import AgentInfo, FunctionModel
    >>> from pydantic_ai.messages import ModelResponse, TextPart
    >>> seen = []
    >>> def model(messages, info: AgentInfo) -> ModelResponse:
    ...     seen.append([t.name for t in info.function_tools])
    ...     return ModelResponse(parts=[TextPart("done")])
    >>> search = Tool.create("search", "Search.", lambda: "found")
    >>> analyze = Tool.create("analyze", "Analyze.", lambda: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(
    ...     analyze).unlocked_by(search)
    >>> agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability([research])])
    >>> agent.run_sync("go").output, seen
    ('done', [['search']])

    ``tool_timeout`` is the seconds a call may take when its tool has no timeout of its
    own (a tool's ``metadata.timeout`` always holds); past it the model is told
    ``Tool 'name' timed out after N s.`` and the run goes on. None (the default): no
    limit but the tools' own.

    >>> StatetoolsCapability([research], tool_timeout=30).toolset.tool_timeout
    30.0
    """

    def __init__(
        self,
        items: Sequence[Any] | DisclosureGraph,
        *,
        id: str | None = None,
        max_retries: int = 1,
        toolset: StatetoolsToolset | None = None,
        tool_timeout: float | None = None,
    ) -> None:
        seconds = check_timeout(tool_timeout, "StatetoolsCapability(tool_timeout=...)")
        self.toolset = toolset or StatetoolsToolset(
            items, id=id, max_retries=max_retries, tool_timeout=seconds
        )
        self.graph = self.toolset.graph
        self._visible: tuple[str, ...] | None = None
        self._place: dict[str, int] = {}
        """Where each visible tool goes in the request (for :attr:`_visible`)."""

    @property
    def run(self) -> BridgeRun | None:
        """This run's disclosure (None on the capability given to the agent)."""
        return self.toolset.run

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        """This capability with its toolset bound to a disclosure of its own for the
        agent run starting (itself when it is bound already). A run continued from a
        message history starts from the state its last run saved there; raises
        :class:`~statetools.SpecError` when that state is not one of this design."""
        if self.toolset.run is not None:
            return self
        state = saved_state(ctx.messages, self.graph) if ctx.messages else None
        bound = self.toolset.bound(self.toolset.new_run(state))
        return StatetoolsCapability(self.graph, toolset=bound)

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        """Leave the run's disclosure state in the metadata of its last response (key
        ``statetools``), where a run continued from these messages finds it."""
        run = self.toolset.run
        if run is not None:
            save_state(result.all_messages(), ctx.run_id, run.snapshot())
        return result

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
        """The agent's toolset with this design's toolset beside it (every tool).

        Contributed here rather than through ``get_toolset``: pydantic-ai copies each
        tool a capability contributes that way, twice, at every step, which made a
        request with 2,000 registered tools five times slower. A tool name the agent
        already has is refused by pydantic-ai, as for any two toolsets. The agent's
        ``prepare_tools`` hooks do not see the design's tools: the design decides which
        of them are shown.
        """
        return CombinedToolset([toolset, self.toolset])

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """The request with only the tools visible now among ours (the agent's own tools
        keep their places; ours follow in the scheduler's order)."""
        run = self.toolset.run
        if run is None:
            return request_context
        visible = run.offer()
        if visible is not self._visible:
            self._visible, self._place = visible, {name: i for i, name in enumerate(visible)}
        # ours: registered, or added in this run (what this run's toolset listed); a
        # name only another run added is the agent's own tool here
        place, entries, added = self._place, self.graph.entries, self.toolset.added
        parameters = request_context.model_request_parameters
        picked: list[ToolDefinition | None] = [None] * len(visible)
        tools: list[ToolDefinition] = []
        for tool in parameters.function_tools:  # the agent's own tools keep their place
            index = place.get(tool.name)
            if index is not None:
                picked[index] = tool
            elif tool.name not in entries and tool.name not in added:
                tools.append(tool)
        tools.extend(tool for tool in picked if tool is not None)
        # the hook may change the request's parameters in place; the list is a new one,
        # so the parameters are too (whoever else holds them keeps every tool)
        request_context.model_request_parameters = dataclasses.replace(
            parameters, function_tools=tools
        )
        return request_context
