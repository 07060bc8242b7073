"""The session's bookkeeping inside the workflow: history, scheduler and counters.

Everything here is deterministic (no I/O; the clock is the workflow's): a workflow
replays it exactly.
The model and the tools run elsewhere, as activities; the driver says what to ask
them and folds their answers into the history and the disclosure state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from statetools.disclosure.prompt_part import prompt_text
from statetools.disclosure.scheduler import Scheduler
from statetools.disclosure.state import DisclosureState
from statetools.engine import Call, RunRecord
from statetools.engine.boundary import clean_message
from statetools.engine.events import RunFinished, RunStarted, Trace
from statetools.engine.record import disclosure_only
from statetools.engine.steps import begin_turn, close_call, open_call, reject_output, responded
from statetools.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    UserMessage,
    messages_from_json,
    messages_to_json,
)
from statetools.models.base import ModelResponse, StopReason, Usage
from statetools.temporal.designs import LoadedDesign
from statetools.temporal.payloads import ModelAnswer, ModelCall, SessionInput, ToolOutcome
from statetools.temporal.unfolds import UnfoldBook, unfolds_in_workflow
from statetools.tools.calling import failure
from statetools.tools.context import ToolCallContext
from statetools.tools.result import OutcomeKind, ToolResult
from statetools.tools.tool import BaseTool


class SessionDriver:
    """One session's history, scheduler and trace, rebuilt from a :class:`SessionInput`.

    ``run_id`` names the session in its trace; ``clock`` gives the times of its
    ``RunStarted`` and ``RunFinished`` events (the workflow's clock).

    >>> driver = SessionDriver(loaded, SessionInput("desk.yaml", "Hi"))  # doctest: +SKIP
    >>> driver.visible()  # doctest: +SKIP
    ['find_customer_by_email', 'find_customer_by_name_zip']
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
        state = DisclosureState.from_json(session.state) if session.state else None
        self.context = ToolCallContext(loaded.context())
        self.unfolds = UnfoldBook(loaded.graph, session.unfolds)
        scheduler = Scheduler(
            loaded.graph,
            disclosure_only(state) if state is not None else None,
            visibility="declared" if session.settings.visibility == "declared" else "hidden",
            context=self.context,
            replay=self.unfolds.replay,
        )
        self.run = RunRecord(
            messages_from_json(session.messages),
            scheduler,
            state=state,
            events=Trace.from_json(session.trace).events,
            clock=clock,
        )
        """The session's history, trace and counters, written by the engine's steps."""
        design = loaded.design
        self.system_prompt = session.settings.system_prompt or (
            design.system_prompt if design is not None else None
        )
        self.run_id = run_id
        self.end_on_final_state = session.settings.end_on_final_state

    def add_user_message(self, text: str) -> None:
        """Start on a user message: a new run in the trace. The session's first
        message comes after the system prompt and the text of its sections or skills
        (as a local run places them).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Is the host up?")
        >>> [m.role for m in driver.run.messages], driver.run.events[-1].tools
        (['user'], ('ping',))
        """
        record = self.run
        if not record.messages:
            if self.system_prompt:
                record.messages.append(clean_message(SystemMessage(self.system_prompt)))
            scheduler = record.scheduler
            sections = prompt_text(scheduler.graph, scheduler.snapshot().unfolds)
            if sections is not None:
                record.messages.append(SystemMessage(sections))
        record.messages.append(clean_message(UserMessage(text)))
        record.emit(RunStarted(self.run_id, record.clock(), record.scheduler.shown().names))

    def finish(self, outcome: str, error: str | None = None) -> None:
        """The run of the current user message ended with ``outcome`` (and ``error``,
        the text of the error that ended it, if one did).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Hi")
        >>> driver.finish("answered")
        >>> driver.run.events[-1].outcome
        'answered'
        """
        record = self.run
        record.emit(RunFinished(record.clock(), record.iterations, outcome, error))

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
        tools = [
            {"name": d.name, "description": d.description, "input_schema": dict(d.input_schema)}
            for d in begin_turn(self.run).definitions
        ]
        return ModelCall(self.design, messages_to_json(self.run.messages), tools)

    def take(self, answer: ModelAnswer) -> AssistantMessage:
        """Add the model's answer to the history.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Hi")
        >>> answer = ModelAnswer({"role": "assistant", "content": "Hello!"}, "end_turn", [0, 0, 0])
        >>> driver.take(answer).content, driver.run.iterations
        ('Hello!', 1)
        """
        (message,) = messages_from_json([answer.message])
        assert isinstance(message, AssistantMessage)
        stop = cast(StopReason, answer.stop_reason)
        return responded(self.run, ModelResponse(message, Usage(*answer.usage), stop))

    def resolve(self, call: ToolCall) -> BaseTool | None:
        """The tool to run for ``call`` (it runs next: the trace says it started, as a
        local run's does); None when ``call`` is answered already (an unknown name, or
        a tool that is locked now).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.resolve(ToolCall("c1", "ping", {})).name
        'ping'
        >>> driver.resolve(ToolCall("c2", "pong", {})) is None  # answered already
        True
        >>> driver.run.messages[-1].content
        "Tool 'pong' does not exist. Did you mean 'ping'? Available tools: ping."
        """
        opened = open_call(self.run, call)
        return None if opened is None else opened.tool

    def answer(self, call: ToolCall, text: str, is_error: bool) -> None:
        """Answer ``call`` with ``text``.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.answer(ToolCall("c1", "ping", {}), "pong", False)
        >>> driver.run.messages[-1].content, driver.run.messages[-1].tool_call_id
        ('pong', 'c1')
        """
        self.run.reply(call, text, is_error)

    def runs_here(self, call: ToolCall, tool: BaseTool) -> bool:
        """Whether ``call`` is answered in the workflow: arguments that are not JSON,
        or pure bookkeeping (see :func:`~statetools.temporal.unfolds.unfolds_in_workflow`).
        Every other call runs in the tool activity.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.runs_here(ToolCall("c1", "ping", {}), ping)
        False
        """
        return call.invalid_arguments is not None or unfolds_in_workflow(
            tool, call, self.run.scheduler.graph
        )

    async def run_here(self, call: ToolCall, tool: BaseTool) -> ToolResult:
        """Answer a call :meth:`runs_here`; a failure is a result.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> import asyncio
        >>> call = ToolCall("c1", "ping", {}, invalid_arguments="arguments are not JSON")
        >>> asyncio.run(driver.run_here(call, ping)).text
        'arguments are not JSON'
        """
        if call.invalid_arguments is not None:
            return ToolResult.error(call.invalid_arguments)
        try:
            return await tool.acall(dict(call.arguments), self.context)
        except Exception as exc:
            return failure(call.name, exc)

    def record(
        self, call: ToolCall, tool: BaseTool, outcome: ToolOutcome | ToolResult
    ) -> ToolResult:
        """Answer ``call`` (a call of ``tool``) with the tool's outcome and let the
        scheduler see it; a ``return_direct`` result or a final state reached (with
        ``end_on_final_state``) ends the turn once every call is answered.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> call = ToolCall("c1", "ping", {})
        >>> driver.record(call, ping, ToolOutcome("pong", is_error=False)).text
        'pong'
        >>> driver.run.messages[-1].content, dict(driver.state().call_counts)
        ('pong', {'ping': 1})
        """
        if isinstance(outcome, ToolResult):
            result, kind, duration = outcome, outcome.kind, 0.0
        else:
            unfolded = outcome.unfolded
            result = ToolResult(
                outcome.content,
                outcome.value if unfolded is None else self.unfolds.rebuild(unfolded),
                is_error=outcome.is_error,
                has_value=outcome.has_value,
            )
            kind, duration = cast(OutcomeKind, outcome.kind), outcome.duration
        close_call(
            self.run,
            Call(call, tool),
            result,
            duration=duration,
            kind=kind,
            end_on_final_state=self.end_on_final_state,
        )
        return result

    def correct(self, text: str) -> None:
        """The final answer did not fit the output type: tell the model ``text``.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.correct("Answer with a number.")
        >>> driver.run.output_corrected, driver.run.messages[-1].content
        (True, 'Answer with a number.')
        """
        reject_output(self.run, text)

    def state(self) -> DisclosureState:
        """The disclosure state now, the loop's counters included.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.state().iteration, driver.state().unknown_calls_in_a_row
        (0, 0)
        """
        return self.run.state()

    def visible(self) -> list[str]:
        """The names of the tools the model would see now.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.visible()
        ['ping']
        """
        return list(self.run.scheduler.shown().names)

    def messages_json(self) -> list[dict[str, Any]]:
        """The history as JSON.

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Hi")
        >>> driver.messages_json()
        [{'content': 'Hi', 'role': 'user'}]
        """
        return messages_to_json(self.run.messages)

    def trace_json(self) -> list[dict[str, Any]]:
        """The trace as JSON (``statetools.Trace.from_json`` reads it).

        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> loaded = LoadedDesign("net", (ping,), disclosure_graph(ping))
        >>> driver = SessionDriver(loaded, SessionInput("net"))
        >>> driver.add_user_message("Hi")
        >>> [event["type"] for event in driver.trace_json()]
        ['run_started']
        """
        return Trace(tuple(self.run.events)).to_json()


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
