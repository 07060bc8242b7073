"""The session inside the workflow: a :class:`~statetools.engine.Conversation` and the
JSON of the activities around it.

Everything here is deterministic (no I/O; the clock is the workflow's): a workflow
replays it exactly. The model and the tools run elsewhere, as activities; the
conversation says what to ask them and takes their answers, as it does for the
asyncio loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from statetools.engine import Call, Calls, Conversation
from statetools.engine.events import Trace
from statetools.engine.state import DisclosureState
from statetools.errors import OutputValidationError, RunError
from statetools.messages import (
    AssistantMessage,
    ToolCall,
    messages_from_json,
    messages_to_json,
)
from statetools.models.base import ModelResponse, StopReason, Usage
from statetools.temporal.designs import LoadedDesign
from statetools.temporal.payloads import (
    ModelAnswer,
    ModelCall,
    OutputReading,
    SessionInput,
    ToolOutcome,
)
from statetools.temporal.unfolds import UnfoldBook, unfolds_in_workflow
from statetools.tools.calling import OutcomeKind, ToolResult, failure

TEXT_OUTPUT = "builtins:str"
"""The reference of ``str`` as an output type: answers are text, as with none."""


def session_wording(error: RunError) -> str:
    """How a session names an error that ends it, in its trace and in the workflow's
    failure: by its message (the errors a worker reports come as their whole text).

    >>> from statetools.errors import MaxIterationsExceeded
    >>> session_wording(MaxIterationsExceeded("no final answer", path="ToolLoop"))
    'no final answer'
    """
    return error.message


class SessionDriver:
    """One session's :class:`~statetools.engine.Conversation`, rebuilt from a
    :class:`SessionInput`, and the JSON that crosses the activity boundary.

    The conversation decides everything (which calls run, what the model is told, how
    a turn and the run end); the driver turns its requests into activity payloads and
    the activities' answers back into responses and results. ``run_id`` names the
    session in its trace; ``clock`` gives the times of its events (the workflow's).

    >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
    >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
    >>> SessionDriver(loaded, SessionInput("net")).visible()
    ['ping']
    """

    def __init__(
        self,
        loaded: LoadedDesign,
        session: SessionInput,
        *,
        run_id: str = "",
        clock: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self.design = loaded.reference
        self.unfolds = UnfoldBook(loaded.graph, session.unfolds)
        design = loaded.design
        settings = session.settings
        output = session.output_type
        self.conversation = Conversation(
            [loaded.graph],
            messages_from_json(session.messages),
            state=DisclosureState.from_json(session.state) if session.state else None,
            output_type=str if output == TEXT_OUTPUT else output,
            reads_output=False,  # read on the worker, where the type can be imported
            system_prompt=settings.system_prompt
            or (design.system_prompt if design is not None else None),
            max_iterations=settings.max_iterations,
            visibility="declared" if settings.visibility == "declared" else "hidden",
            end_on_final_state=settings.end_on_final_state,
            context=loaded.context(),
            run_id=run_id,
            clock=clock,
            check_design=False,
            replay=self.unfolds.replay,
            start=False,
            asked=session.iterations_this_message,
            wording=session_wording,
            events=Trace.from_json(session.trace).events,
        )

    def add_user_message(self, text: str) -> None:
        """Start on a user message: a new run in the trace. The session's first
        message comes after the system prompt and the text of its sections or skills
        (as a local run places them).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Is the host up?")
        >>> [m.role for m in driver.conversation.messages], driver.conversation.events[-1].tools
        (['user'], ('ping',))
        """
        conversation = self.conversation
        conversation.add_user_message(text)
        if conversation.finished:
            conversation.restart()
        else:
            conversation.start()

    def request(self) -> ModelCall:
        """The next model call: the history and the tools visible this turn.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Is the host up?")
        >>> call = driver.request()
        >>> call.messages, [tool["name"] for tool in call.tools]
        ([{'content': 'Is the host up?', 'role': 'user'}], ['ping'])
        """
        request = self.conversation.next_request()
        tools = [
            {"name": d.name, "description": d.description, "input_schema": dict(d.input_schema)}
            for d in request.tools
        ]
        return ModelCall(self.design, messages_to_json(request.messages), tools)

    def take(self, answer: ModelAnswer) -> Calls:
        """Hand the model's answer to the conversation: the calls to run, in order
        (see :meth:`~statetools.engine.Conversation.take`).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Hi")
        >>> _ = driver.request()
        >>> answer = ModelAnswer({"role": "assistant", "content": "Hello!"}, "end_turn", [0, 0, 0])
        >>> list(driver.take(answer)), driver.conversation.result.output
        ([], 'Hello!')
        """
        (message,) = messages_from_json([answer.message])
        assert isinstance(message, AssistantMessage)
        stop = cast(StopReason, answer.stop_reason)
        return self.conversation.take(ModelResponse(message, Usage(*answer.usage), stop))

    def runs_here(self, call: Call) -> bool:
        """Whether ``call`` is answered in the workflow: arguments that are not JSON,
        or pure bookkeeping (see :func:`~statetools.temporal.unfolds.unfolds_in_workflow`).
        Every other call runs in the tool activity.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.runs_here(Call(ToolCall("c1", "ping", {}), ping))
        False
        """
        return call.invalid_arguments is not None or unfolds_in_workflow(
            call.tool, call.call, self.conversation.scheduler.graph
        )

    async def run_here(self, call: Call) -> ToolResult:
        """Answer a call :meth:`runs_here`; a failure is a result.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> import asyncio
        >>> bad = ToolCall("c1", "ping", {}, invalid_arguments="arguments are not JSON")
        >>> asyncio.run(driver.run_here(Call(bad, ping))).text
        'arguments are not JSON'
        """
        if call.invalid_arguments is not None:
            return ToolResult.error(call.invalid_arguments)
        try:
            return await call.tool.acall(dict(call.arguments), self.conversation.context)
        except Exception as exc:
            return failure(call.name, exc)

    def answer(self, call: Call, outcome: ToolOutcome | ToolResult) -> ToolResult:
        """Answer ``call`` with the tool's outcome (from the tool activity, or a result
        :meth:`run_here` gave); the conversation records it.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Is the host up?")
        >>> _ = driver.request()
        >>> message = {"role": "assistant", "content": "", "tool_calls": [
        ...     {"id": "c1", "name": "ping", "arguments": {}}]}
        >>> call = next(driver.take(ModelAnswer(message, "tool_use", [0, 0, 0])))
        >>> driver.answer(call, ToolOutcome("pong", is_error=False)).text
        'pong'
        >>> dict(driver.state().call_counts)
        {'ping': 1}
        """
        if isinstance(outcome, ToolResult):
            result, kind, duration = outcome, outcome.kind, 0.0
        else:
            result = self.result_of(outcome)
            kind, duration = cast(OutcomeKind, outcome.kind), outcome.duration
        self.conversation.answer(call, result, duration=duration, kind=kind)
        return result

    def result_of(self, outcome: ToolOutcome | ToolResult) -> ToolResult:
        """The result a tool activity's ``outcome`` stands for (a facade's unfold
        rebuilt from what it opened).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> driver = SessionDriver(LoadedDesign("net", (ping,), disclosure_graph(ping)),
        ...     SessionInput("net"))
        >>> driver.result_of(ToolOutcome("pong", is_error=False)).text
        'pong'
        """
        if isinstance(outcome, ToolResult):
            return outcome
        unfolded = outcome.unfolded
        return ToolResult(
            outcome.content,
            outcome.value if unfolded is None else self.unfolds.rebuild(unfolded),
            is_error=outcome.is_error,
            has_value=outcome.has_value,
        )

    def read(self, reading: OutputReading) -> None:
        """What the output activity read of the final answer: the run's output, or
        what to tell the model (a second answer that does not fit fails the run).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net", output_type="builtins:int"))
        >>> driver.add_user_message("How many?")
        >>> _ = driver.request()
        >>> answer = ModelAnswer({"role": "assistant", "content": "3"}, "end_turn", [0, 0, 0])
        >>> _ = driver.take(answer)
        >>> driver.read(OutputReading(True, 3))
        >>> driver.conversation.result.output
        3
        """
        if reading.ok:
            self.conversation.output_read(reading.value)
        else:
            error = OutputValidationError(reading.error)
            self.conversation.output_unreadable(reading.correction, error)

    def fail(self, kind: str, text: str) -> None:
        """The run ended with an error raised elsewhere (the model's activity), known
        by its name and text: the trace says so.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.fail("ProviderError", "the model failed")
        >>> driver.conversation.events[-1].outcome
        'ProviderError'
        """
        self.conversation.record.fail_elsewhere(kind, text)

    def state(self) -> DisclosureState:
        """The disclosure state now, the loop's counters included.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.state().iteration, driver.state().loop.unknown_calls_in_a_row
        (0, 0)
        """
        return self.conversation.record.state()

    def visible(self) -> list[str]:
        """The names of the tools the model would see now.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.visible()
        ['ping']
        """
        return list(self.conversation.scheduler.shown().names)

    def messages_json(self) -> list[dict[str, Any]]:
        """The history as JSON.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Hi")
        >>> driver.messages_json()
        [{'content': 'Hi', 'role': 'user'}]
        """
        return messages_to_json(self.conversation.messages)

    def trace_json(self) -> list[dict[str, Any]]:
        """The trace as JSON (``statetools.Trace.from_json`` reads it).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Hi")
        >>> [event["type"] for event in driver.trace_json()]
        ['run_started']
        """
        return Trace(tuple(self.conversation.events)).to_json()


def call_payload(call: ToolCall) -> dict[str, Any]:
    """``call`` as JSON (the one tool call of an assistant message).

    >>> call_payload(ToolCall("call_1", "search", {"q": "tides"}))["tool_calls"][0]["name"]
    'search'
    """
    return messages_to_json([AssistantMessage(tool_calls=(call,))])[0]


def call_of(payload: dict[str, Any]) -> ToolCall:
    """The tool call :func:`call_payload` wrote.

    >>> call_of(call_payload(ToolCall("call_1", "search", {"q": "tides"})))
    ToolCall(id='call_1', name='search', arguments={'q': 'tides'}, invalid_arguments=None)
    """
    (message,) = messages_from_json([payload])
    assert isinstance(message, AssistantMessage)
    return message.tool_calls[0]
