"""Agentic tools: calling one runs a nested tool loop with its own model.

The loop sits a layer above; a run hands its loop factory down in the call's
:class:`~statetools.ToolCallContext` (``loop_factory``), and
:class:`statetools.SimpleAgenticTool` brings its own for calls outside a run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Self

import attrs

from statetools.definitions.chaining import Chaining
from statetools.definitions.shared_definition import (
    AgentOptions,
    SystemPrompt,
    agent_model,
    agent_schema,
)
from statetools.errors import DefinitionError, RunError
from statetools.tools.calling import ToolResult, failure, invalid_arguments
from statetools.tools.context import LoopFactory, ToolCallContext
from statetools.tools.schema import Parameter
from statetools.tools.tool import BaseTool, parse_arguments
from statetools.tools.validation import argument_problems, make_validator


@attrs.frozen(init=False)
class AgenticTool(BaseTool):
    """A tool that delegates its task to a nested loop over its own tools and model.

    The tools may include playbooks and state machines; they are disclosed inside the
    nested conversation by the same scheduler as at the top level. The nested run's
    :class:`~statetools.engine.run_result.LoopResult` is kept as the result's ``value``.
    The nested run shares the caller's blackboard (both ways), and its events reach the
    caller's listeners as :class:`~statetools.NestedEvent` (see docs/playbooks.md).

    The nested loop comes from :meth:`default_loop_factory` or, inside a run, from the
    run (``ToolCallContext.loop_factory``); :class:`statetools.SimpleAgenticTool` is the
    one to build by hand.

    >>> AgenticTool("researcher", "Researches a topic").call({"task": "tides"})
    Traceback (most recent call last):
    statetools.errors.DefinitionError: tool 'researcher': agentic tool 'researcher' has no model Hint: call .with_model(model)
    """  # noqa: E501

    items: tuple[Any, ...]
    agent: AgentOptions
    end_on_final_state: bool

    def __init__(
        self,
        name: str,
        description: str,
        items: tuple[Any, ...] = (),
        agent: AgentOptions | None = None,
        *,
        end_on_final_state: bool = True,
    ) -> None:
        agent = agent or AgentOptions()
        self.__attrs_init__(
            name=name,
            description=description,
            input_schema=agent_schema(agent.parameters),
            items=tuple(items),
            agent=agent,
            end_on_final_state=end_on_final_state,
        )

    def _evolve(self, **changes: Any) -> Self:
        values = {
            "name": self.name,
            "description": self.description,
            "items": self.items,
            "agent": self.agent,
            "end_on_final_state": self.end_on_final_state,
            **changes,
        }
        return type(self)(**values)

    def with_tools(self, *items: Any) -> Self:
        """Add tools, playbooks or state machines to the nested loop."""
        return self._evolve(items=(*self.items, *items))

    def with_tool_chaining_from(
        self,
        source: type,
        predicate: Callable[[Any], bool] | None = None,
        *,
        id_attribute: str = "id",
    ) -> Self:
        """In the nested loop, the ``@llm_tool`` methods of ``source`` are declared as
        tools and run on the latest ``source`` object a tool returned.

        >>> SimpleAgenticTool("a", "A").with_tool_chaining_from(dict).items
        (Chaining(source=<class 'dict'>, predicate=None, id_attribute='id'),)
        """
        return self.with_tools(Chaining.from_type(source, predicate, id_attribute=id_attribute))

    def with_tool_chaining_from_any(
        self, predicate: Callable[[Any], bool] | None = None, *, id_attribute: str = "id"
    ) -> Self:
        """In the nested loop, any returned object with ``@llm_tool`` methods lends them
        as tools (a newer object replaces the previous one's tools).

        >>> SimpleAgenticTool("a", "A").with_tool_chaining_from_any().items[0].source is None
        True
        """
        return self.with_tools(Chaining.any(predicate, id_attribute=id_attribute))

    def with_model(self, model: Any) -> Self:
        """The model of the nested loop: a Model or a string such as
        ``"openai:gpt-4o-mini"``."""
        return self._evolve(agent=attrs.evolve(self.agent, model=agent_model(model)))

    def with_system_prompt(self, prompt: SystemPrompt) -> Self:
        """The system prompt of the nested loop: text, or a function of the run context
        (a :class:`ToolCallContext`) called when the nested run starts.

        >>> from statetools.models import ScriptedModel
        >>> model = ScriptedModel(["Hello, Ann."])
        >>> greeter = SimpleAgenticTool("greeter", "Greets").with_model(model)
        >>> greeter = greeter.with_system_prompt(lambda ctx: f"The user is {ctx['user']}.")
        >>> greeter.call({"task": "Greet"}, {"user": "Ann"}).text
        'Hello, Ann.'
        >>> model.requests[0].messages[0].content
        'The user is Ann.'
        """
        return self._evolve(agent=attrs.evolve(self.agent, system_prompt=prompt))

    def with_max_iterations(self, max_iterations: int) -> Self:
        """The model-call limit of the nested loop."""
        return self._evolve(agent=attrs.evolve(self.agent, max_iterations=max_iterations))

    def with_parameter(self, parameter: Parameter) -> Self:
        """An input of the tool (default: one ``task`` string)."""
        return self._evolve(
            agent=attrs.evolve(self.agent, parameters=(*self.agent.parameters, parameter))
        )

    def with_description(self, description: str) -> Self:
        """The same tool with another description."""
        return self._evolve(description=description)

    def with_note(self, note: str) -> Self:
        """The same tool with ``". note"`` appended to its description."""
        return self._evolve(description=f"{self.description.rstrip().rstrip('.')}. {note}")

    def _system_prompt(
        self, context: ToolCallContext | Mapping[str, Any] | None
    ) -> str | ToolResult | None:
        """The nested run's system prompt; a function of the context is called now (its
        failure is the call's error result; a value that is not text is a mistake in
        the definition)."""
        prompt = self.agent.system_prompt
        if prompt is None or isinstance(prompt, str):
            return prompt
        run_context = context if isinstance(context, ToolCallContext) else None
        try:
            text = prompt(run_context or ToolCallContext(context or {}))
        except Exception as exc:
            return failure(self.name, exc)
        if not isinstance(text, str):
            raise DefinitionError(
                f"the system prompt function of agentic tool '{self.name}' returned "
                f"{type(text).__name__}, not text",
                path=f"tool '{self.name}'",
                hint="return the system prompt as a string",
            )
        return text

    def _prompt(self, arguments: Mapping[str, Any]) -> str:
        if not self.agent.parameters:
            return str(arguments["task"])
        return json.dumps(dict(arguments), ensure_ascii=False)

    async def acall(
        self,
        arguments: str | Mapping[str, Any] | None = None,
        context: ToolCallContext | Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Run the nested loop on the task and return its final answer."""
        if self.agent.model is None:
            raise DefinitionError(
                f"agentic tool '{self.name}' has no model",
                path=f"tool '{self.name}'",
                hint="call .with_model(model)",
            )
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        problems = argument_problems(make_validator(self.input_schema), parsed)
        if problems:
            return ToolResult.error(invalid_arguments(self.name, problems))
        system_prompt = self._system_prompt(context)
        if isinstance(system_prompt, ToolResult):
            return system_prompt
        loop = self._loop_factory(context)(
            self.agent.model,
            max_iterations=self.agent.max_iterations,
            system_prompt=system_prompt,
            end_on_final_state=self.end_on_final_state,
        )
        try:
            result = await loop.arun(
                self._prompt(parsed), tools=self.items, context=self._nested_context(context)
            )
        except RunError as error:
            return ToolResult(
                content=f"Tool '{self.name}' failed: {error.message}",
                value=error.result,
                is_error=True,
                has_value=error.result is not None,
            )
        return ToolResult(content=str(result.output), value=result, has_value=True)

    def _nested_context(
        self, context: ToolCallContext | Mapping[str, Any] | None
    ) -> ToolCallContext | Mapping[str, Any] | None:
        """The context of the nested run: the caller's entries and blackboard, and a
        relay that names this tool in front of the path of what it relays."""
        relay = context.relay if isinstance(context, ToolCallContext) else None
        if relay is None:
            return context
        assert isinstance(context, ToolCallContext)
        name = self.name

        def through_this_tool(path: tuple[str, ...], event: Any) -> None:
            relay((name, *path), event)

        return context.with_relay(through_this_tool)

    def default_loop_factory(self) -> LoopFactory | None:
        """The loop this tool runs in when it brings its own (None: the run's loop)."""
        return None

    def _loop_factory(self, context: ToolCallContext | Mapping[str, Any] | None) -> LoopFactory:
        factory = self.default_loop_factory()
        if factory is None and isinstance(context, ToolCallContext):
            factory = context.loop_factory
        if factory is None:
            raise DefinitionError(
                f"agentic tool '{self.name}' has no loop to run its task in",
                path=f"tool '{self.name}'",
                hint="call it inside a ToolLoop run, or build it as statetools.SimpleAgenticTool",
            )
        return factory


def agentic_from_definition(definition: Any) -> AgenticTool:
    """The agentic tool of a playbook or state machine that has a model (it runs in the
    loop of the run that calls it)."""
    inner = attrs.evolve(definition, agent=AgentOptions())
    return AgenticTool(definition.name, definition.description, (inner,), definition.agent)
