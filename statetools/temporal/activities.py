"""The session's activities: one model call, one tool call. They run on the worker,
where the I/O is; Temporal retries them and times them out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError

from statetools.blackboard import Blackboard
from statetools.engine import Call
from statetools.engine.facades import FacadeRecall, unfolded_value
from statetools.engine.scheduler import Scheduler
from statetools.engine.state import DisclosureState
from statetools.errors import StatetoolsError
from statetools.loop.host import run_call
from statetools.messages import messages_from_json, messages_to_json
from statetools.models.base import Model, ModelRequest, ToolDefinition
from statetools.temporal.designs import LoadedDesign, read_output
from statetools.temporal.driver import call_of
from statetools.temporal.payloads import (
    ModelAnswer,
    ModelCall,
    OutputCheck,
    OutputReading,
    ToolOutcome,
    ToolRun,
)
from statetools.temporal.script_steps import run_script_step
from statetools.temporal.unfolds import describe, json_value
from statetools.tools.context import RUN_ID_KEY, ToolCallContext
from statetools.tools.tool import BaseTool

MODEL_ACTIVITY = "statetools.model"
TOOL_ACTIVITY = "statetools.tool"
OUTPUT_ACTIVITY = "statetools.output"
T = TypeVar("T")


class SessionActivities:
    """The activities of a worker: its designs and its model.

    >>> from statetools.temporal import Designs, ScriptByRequest
    >>> activities = SessionActivities(Designs([]), ScriptByRequest(["Hi"]))
    >>> [function.__name__ for function in activities.all()]
    ['call_model', 'call_tool', 'read_output', 'run_script_step']
    """

    def __init__(self, designs: Mapping[str, LoadedDesign], model: Model) -> None:
        self.designs = designs
        self.model = model

    def all(self) -> list[Any]:
        """The activity functions to register with a worker.

        >>> from statetools.temporal import Designs, ScriptByRequest
        >>> activities = SessionActivities(Designs([]), ScriptByRequest(["Hi"]))
        >>> [function.__name__ for function in activities.all()]
        ['call_model', 'call_tool', 'read_output', 'run_script_step']
        """
        return [self.call_model, self.call_tool, self.read_output, run_script_step]

    @activity.defn(name=MODEL_ACTIVITY)
    async def call_model(self, call: ModelCall) -> ModelAnswer:
        """Ask the model; a failure raises (and Temporal retries it).

        >>> import asyncio
        >>> from temporalio.testing import ActivityEnvironment
        >>> from statetools.temporal import Designs, ScriptByRequest
        >>> activities = SessionActivities(Designs([]), ScriptByRequest(["Hello!"]))
        >>> call = ModelCall("desk", [{"role": "user", "content": "Hi"}], [])
        >>> asyncio.run(ActivityEnvironment().run(activities.call_model, call)).message
        {'content': 'Hello!', 'tool_calls': [], 'role': 'assistant'}
        """
        request = ModelRequest(
            tuple(messages_from_json(call.messages)),
            tuple(
                ToolDefinition(t["name"], t["description"], t["input_schema"]) for t in call.tools
            ),
        )
        response = await _beating(self.model.complete(request))
        usage = response.usage
        return ModelAnswer(
            messages_to_json([response.message])[0],
            response.stop_reason,
            [usage.input_tokens, usage.output_tokens, usage.cached_input_tokens],
        )

    @activity.defn(name=TOOL_ACTIVITY)
    async def call_tool(self, run: ToolRun) -> ToolOutcome:
        """Run one tool call in the disclosure state the workflow had when it resolved
        it; a handler's failure or timeout is a result the model sees. A facade's call
        runs here too; what it opened goes back as JSON for the workflow's scheduler.

        >>> import asyncio
        >>> from temporalio.testing import ActivityEnvironment
        >>> from statetools.temporal import Designs, ScriptByRequest
        >>> from statetools.temporal.driver import call_payload
        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> designs = Designs([LoadedDesign("net", (ping,), disclosure_graph(ping))])
        >>> activities = SessionActivities(designs, ScriptByRequest([]))
        >>> call = call_payload(ToolCall("c1", "ping", {}))
        >>> run = ToolRun("net", "s1", call, DisclosureState().to_json(), None)
        >>> outcome = asyncio.run(ActivityEnvironment().run(activities.call_tool, run))
        >>> outcome.content, outcome.is_error
        ('pong', False)
        """
        loaded = self.designs[run.design]
        context = (
            ToolCallContext(loaded.context())
            .merge({RUN_ID_KEY: run.session})
            .with_blackboard(Blackboard())
        )
        scheduler = Scheduler(loaded.graph, DisclosureState.from_json(run.state), context=context)
        call = call_of(run.call)
        tool = scheduler.resolve(call.name)
        if not isinstance(tool, BaseTool):
            raise ApplicationError(
                f"tool {call.name!r} is not available in the state the workflow sent",
                type="StatetoolsError",
                non_retryable=True,
            )
        started = time.monotonic()
        result = await _beating(run_call(Call(call, tool), context, run.tool_timeout))
        duration = time.monotonic() - started
        unfolded = unfolded_value(result)
        if unfolded is not None:
            opened = describe(unfolded, loaded.graph, recall=isinstance(tool, FacadeRecall))
            return ToolOutcome(
                result.content,
                result.is_error,
                result.has_value,
                None,
                result.kind,
                duration,
                opened,
            )
        has_value, value = json_value(result)
        return ToolOutcome(result.content, result.is_error, has_value, value, result.kind, duration)

    @activity.defn(name=OUTPUT_ACTIVITY)
    async def read_output(self, check: OutputCheck) -> OutputReading:
        """Read a final answer as the session's output type; an output type no
        import finds fails the session (retrying would not help).

        >>> import asyncio
        >>> from temporalio.testing import ActivityEnvironment
        >>> from statetools.temporal import Designs, ScriptByRequest
        >>> activities = SessionActivities(Designs([]), ScriptByRequest([]))
        >>> check = OutputCheck("builtins:int", "42")
        >>> asyncio.run(ActivityEnvironment().run(activities.read_output, check)).value
        42
        """
        try:
            return read_output(check)
        except StatetoolsError as error:
            raise ApplicationError(
                str(error), type=type(error).__name__, non_retryable=True
            ) from None


async def _beating(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work``, heartbeating meanwhile, so that Temporal notices a lost worker
    long before the call's own timeout."""
    timeout = activity.info().heartbeat_timeout
    task = asyncio.ensure_future(work)
    if not timeout:
        return await task
    interval = timeout.total_seconds() / 3
    while True:
        done, _ = await asyncio.wait({task}, timeout=interval)
        if done:
            return task.result()
        activity.heartbeat()
