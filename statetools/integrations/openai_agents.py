"""statetools disclosure inside an openai-agents run (``pip install 'statetools[openai-agents]'``).

::

    from agents import Agent, Runner
    from statetools.integrations.openai_agents import StatetoolsTools

    bridge = StatetoolsTools([research_playbook])
    agent = Agent(name="helper", tools=bridge.tools)
    result = await Runner.run(agent, "...", hooks=bridge.hooks, run_config=bridge.run_config)

``.tools`` are function tools, one per tool of the definition, whose ``is_enabled`` asks
the scheduler, so each request carries the tools visible now. Their calls go through
statetools: a tool that is locked when it runs (a call earlier in the same response
moved a state machine on) is refused by a tool input guardrail with the guidance text;
a call that runs is recorded and its answer carries the announcement line.
``.run_config`` makes a call of a hidden or unknown tool an answer to the model
("Tool 'x' is locked. Call first: ...") instead of an error ending the run, and
``.hooks`` end each turn (``When`` conditions and the blackboard are re-checked
before the next request, whether or not a tool ran). Each run has its own disclosure
state, kept with the run's context (the ``RunContextWrapper`` and the tool contexts
made from it share it).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from agents import (
    Agent,
    AgentBase,
    FunctionTool,
    ModelResponse,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)
from agents.run_config import ToolErrorFormatterArgs
from agents.tool import Tool
from agents.tool_context import ToolContext

from statetools.engine.answers import Refusal, admit
from statetools.engine.graph import DisclosureGraph
from statetools.integrations.bridge import BridgeRun, compile_items, registered_tools
from statetools.messages import ToolCall
from statetools.tools.calling import parse_arguments
from statetools.tools.tool import BaseTool, check_timeout

__all__ = ["StatetoolsTools"]

_ALLOW = ToolGuardrailFunctionOutput.allow()
"""The guardrail's answer to a call that may run (one shared value: nothing changes it)."""


class _Runs:
    """The disclosure of each live run, found from any of its contexts.

    A run's contexts (the wrapper and every tool context made from it) share one usage
    object; the run's disclosure lives as long as that object does.
    """

    def __init__(self, graph: DisclosureGraph, tool_timeout: float | None) -> None:
        self.graph = graph
        self.tool_timeout = tool_timeout
        self._runs: dict[int, tuple[BridgeRun, list[bool]]] = {}

    def of(self, context: RunContextWrapper[Any]) -> tuple[BridgeRun, list[bool]]:
        usage = context.usage
        found = self._runs.get(id(usage))
        if found is None:
            found = (BridgeRun(self.graph, tool_timeout=self.tool_timeout), [True])
            self._runs[id(usage)] = found
            weakref.finalize(usage, self._runs.pop, id(usage), None)
        return found

    def __len__(self) -> int:
        return len(self._runs)


class _Hooks(RunHooks[Any]):
    """Marks the end of each turn, so the next request starts a new one: when a tool of
    the model's response has run, or with the response itself when none of its calls
    runs (each refused as hidden or unknown, a handoff, or no call at all)."""

    def __init__(self, runs: _Runs, ended: Any, runs_tools: Any) -> None:
        self._runs = runs
        self._ended = ended
        self._runs_tools = runs_tools

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        # a call that runs is checked again against the request's tools before it runs
        # (the SDK asks is_enabled once more): the turn ends when it has run
        if not self._runs_tools(context, agent, response):
            self._end(context)

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool, result: object
    ) -> None:
        self._end(context)

    def _end(self, context: RunContextWrapper[Any]) -> None:
        self._runs.of(context)[1][0] = True
        self._ended()


class StatetoolsTools:
    """statetools disclosure for openai-agents: ``.tools``, ``.hooks`` and ``.run_config``.

    >>> bridge = StatetoolsTools([Tool.create("ping", "Ping.", lambda: "pong")])
    >>> [t.name for t in bridge.tools], bridge.run_config.tool_not_found_behavior
    (['ping'], 'return_error_to_model')

    ``tool_timeout`` is the seconds a call may take when its tool has no timeout of its
    own (a tool's ``metadata.timeout`` always holds); past it the model is told
    ``Tool 'name' timed out after N s.`` and the run goes on. None (the default): no
    limit but the tools' own.

    >>> StatetoolsTools(bridge.graph, tool_timeout=30).tool_timeout
    30.0
    """

    def __init__(
        self, items: Sequence[Any] | DisclosureGraph, *, tool_timeout: float | None = None
    ) -> None:
        self.tool_timeout = check_timeout(tool_timeout, "StatetoolsTools(tool_timeout=...)")
        """Seconds a call may take when its tool has no timeout of its own (None: none)."""
        self.graph = compile_items(items)
        self._runs = _Runs(self.graph, self.tool_timeout)
        self._last: tuple[RunContextWrapper[Any] | None, frozenset[str]] = (None, frozenset())
        """The context whose turn was last asked about, and the names visible in it:
        ``is_enabled`` is asked once per tool per request, from the same context."""
        self.guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(self._guard, name="statetools")
        """Refuses a call of a tool that may not run now, with the guidance text."""
        self.tools: list[FunctionTool] = [
            self._function_tool(t) for t in registered_tools(self.graph)
        ]
        """Every tool of the definition, for ``Agent(tools=...)``."""
        self.hooks = _Hooks(self._runs, self._forget, self._runs_tools)
        """Run hooks for ``Runner.run(hooks=...)``: they end each turn."""
        self.run_config = RunConfig(
            tool_not_found_behavior="return_error_to_model",
            tool_error_formatter=self._not_found,
        )
        """The run config for ``Runner.run(run_config=...)``: a call of a hidden or
        unknown tool is answered with our text (``dataclasses.replace`` it to add your
        own settings)."""

    def run_of(self, context: RunContextWrapper[Any]) -> BridgeRun:
        """The disclosure of the run ``context`` belongs to."""
        return self._runs.of(context)[0]

    def _enabled(self, name: str) -> Any:
        def is_enabled(context: RunContextWrapper[Any], agent: AgentBase[Any]) -> bool:
            last = self._last
            if last[0] is context:
                return name in last[1]
            return name in self._visible(context)

        return is_enabled

    def _visible(self, context: RunContextWrapper[Any]) -> frozenset[str]:
        """The names visible in ``context``'s run, starting its turn if it is the first
        question of one."""
        run, fresh = self._runs.of(context)
        if fresh[0]:
            fresh[0] = False
            run.offer()
        names = run.visible_names()
        self._last = (context, names)
        return names

    def _runs_tools(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> bool:
        """Whether a function call of ``response`` names a tool its request offered (a
        tool of ours visible now, as nothing ran since; or one of the agent's own)."""
        visible = None
        for item in response.output:
            if getattr(item, "type", None) != "function_call":
                continue
            name = item.name  # type: ignore[union-attr]
            if name in self.graph.entries:
                visible = visible or self.run_of(context).visible_names()
                if name in visible:
                    return True
            elif any(isinstance(t, FunctionTool) and t.name == name for t in agent.tools):
                return True
        return False

    def _forget(self) -> None:
        """A call ran (or a turn ended): the next question starts from the scheduler."""
        self._last = (None, frozenset())

    def _function_tool(self, tool: BaseTool) -> FunctionTool:
        name = tool.name

        async def invoke(context: ToolContext[Any], arguments: str) -> str:
            parsed = parse_arguments(name, arguments or "{}")
            call_id = context.tool_call_id
            if isinstance(parsed, str):  # arguments that are not a JSON object
                call = ToolCall(call_id, name, {}, invalid_arguments=parsed)
            else:
                call = ToolCall(call_id, name, parsed)
            self._forget()
            try:
                answer = await self.run_of(context).answer(call)
            finally:
                self._forget()
            return answer.text

        # the SDK reads these annotations on every call: real types, not strings to evaluate
        invoke.__annotations__ = {"context": ToolContext[Any], "arguments": str, "return": str}
        definition = tool.definition
        return FunctionTool(
            name=name,
            description=definition.description,
            params_json_schema=dict(definition.input_schema),
            on_invoke_tool=invoke,
            strict_json_schema=False,
            is_enabled=self._enabled(name),
            tool_input_guardrails=[self.guardrail],
        )

    def _guard(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        run = self.run_of(data.context)
        admitted = admit(run.scheduler, data.context.tool_name)
        if isinstance(admitted, Refusal) and admitted.blocked:
            return ToolGuardrailFunctionOutput.reject_content(admitted.text)
        return _ALLOW

    def _not_found(self, args: ToolErrorFormatterArgs[Any]) -> str | None:
        if args.kind != "tool_not_found":
            return None
        run = self.run_of(args.run_context)
        admitted = admit(run.scheduler, args.tool_name)
        if isinstance(admitted, Refusal):
            return admitted.text
        return f"Tool '{args.tool_name}' was not offered in this request; it is available now."
