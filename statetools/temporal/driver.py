"""The session's bookkeeping inside the workflow: history, scheduler and counters.

Everything here is deterministic (no I/O, no clock): a workflow replays it exactly.
The model and the tools run elsewhere, as activities; the driver says what to ask
them and folds their answers into the history and the disclosure state.
"""

from __future__ import annotations

from typing import Any

import attrs

from statetools.disclosure.outcomes import Blocked
from statetools.disclosure.scheduler import Scheduler
from statetools.disclosure.state import DisclosureState
from statetools.loop.boundary import clean_message, clean_text
from statetools.loop.run import unknown_tool_message
from statetools.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    messages_from_json,
    messages_to_json,
)
from statetools.temporal.designs import LoadedDesign
from statetools.temporal.payloads import ModelAnswer, ModelCall, SessionInput, ToolOutcome
from statetools.tools.calling import failure
from statetools.tools.context import ToolCallContext
from statetools.tools.result import ToolResult
from statetools.tools.tool import BaseTool


class SessionDriver:
    """One session's history and scheduler, rebuilt from a :class:`SessionInput`.

    >>> driver = SessionDriver(loaded, SessionInput("desk.yaml", "Hi"))  # doctest: +SKIP
    >>> driver.visible()  # doctest: +SKIP
    ['find_customer_by_email', 'find_customer_by_name_zip']
    """

    def __init__(self, loaded: LoadedDesign, session: SessionInput) -> None:
        self.design = loaded.reference
        state = DisclosureState.from_json(session.state) if session.state else None
        self.messages = messages_from_json(session.messages)
        self.misses = state.unknown_calls_in_a_row if state is not None else 0
        self.iterations = state.iteration if state is not None else 0
        if state is not None:
            state = attrs.evolve(state, unknown_calls_in_a_row=0)
        self.context = ToolCallContext(loaded.context())
        self.scheduler = Scheduler(
            loaded.graph,
            state,
            visibility="declared" if session.settings.visibility == "declared" else "hidden",
            context=self.context,
        )
        self.system_prompt = session.settings.system_prompt

    def add_user_message(self, text: str) -> None:
        """Start on a user message (the system prompt goes first, once)."""
        if self.system_prompt and not any(isinstance(m, SystemMessage) for m in self.messages):
            self.messages.insert(0, SystemMessage(self.system_prompt))
        self.messages.append(clean_message(UserMessage(text)))

    def request(self) -> ModelCall:
        """The next model call: the history and the tools visible this turn."""
        self.scheduler.begin_turn()
        shown = self.scheduler.shown()
        tools = [
            {"name": d.name, "description": d.description, "input_schema": dict(d.input_schema)}
            for d in shown.definitions
        ]
        return ModelCall(self.design, messages_to_json(self.messages), tools)

    def take(self, answer: ModelAnswer) -> AssistantMessage:
        """Add the model's answer to the history."""
        self.iterations += 1
        (message,) = messages_from_json([answer.message])
        message = clean_message(message)
        assert isinstance(message, AssistantMessage)
        self.messages.append(message)
        return message

    def resolve(self, call: ToolCall) -> BaseTool | str:
        """The tool to run for ``call``, or the text that answers it instead (an
        unknown name, or a tool that is locked now)."""
        resolved = self.scheduler.resolve(call.name)
        if resolved is None:
            self.misses += 1
            return unknown_tool_message(call.name, self.scheduler.shown().names)
        self.misses = 0
        if isinstance(resolved, Blocked):
            return resolved.reason
        if call.invalid_arguments is not None:
            return call.invalid_arguments
        return resolved

    def answer(self, call: ToolCall, text: str, is_error: bool) -> None:
        """Answer ``call`` without running it."""
        self.messages.append(ToolMessage(call.id, call.name, clean_text(text), is_error))

    def runs_here(self, call: ToolCall) -> bool:
        """Whether ``call`` runs in the workflow: a facade's call only computes which
        tools it opens (no I/O), and what it opens is tools, which only the workflow's
        scheduler can take in."""
        return call.name in self.scheduler.graph.facades

    async def run_here(self, call: ToolCall, tool: BaseTool) -> ToolResult:
        """Run a facade's call (see :meth:`runs_here`); a failure is a result."""
        try:
            return await tool.acall(dict(call.arguments), self.context)
        except Exception as exc:
            return failure(call.name, exc)

    def record(self, call: ToolCall, outcome: ToolOutcome | ToolResult) -> ToolResult:
        """Answer ``call`` with the tool's outcome and let the scheduler see it."""
        result = (
            outcome
            if isinstance(outcome, ToolResult)
            else ToolResult(
                outcome.content,
                outcome.value,
                is_error=outcome.is_error,
                has_value=outcome.has_value,
            )
        )
        changes = self.scheduler.record(call, result)
        text = result.text
        if changes.announcement:
            text = f"{text}\n{changes.announcement}"
        self.answer(call, text, result.is_error)
        return result

    def state(self) -> DisclosureState:
        """The disclosure state now, the loop's counters included."""
        self.scheduler.iteration = self.iterations
        return attrs.evolve(self.scheduler.snapshot(), unknown_calls_in_a_row=self.misses)

    def visible(self) -> list[str]:
        """The names of the tools the model would see now."""
        return list(self.scheduler.shown().names)

    def messages_json(self) -> list[dict[str, Any]]:
        """The history as JSON."""
        return messages_to_json(self.messages)


def call_payload(call: ToolCall) -> dict[str, Any]:
    """``call`` as JSON (the one tool call of an assistant message)."""
    return messages_to_json([AssistantMessage(tool_calls=(call,))])[0]


def call_of(payload: dict[str, Any]) -> ToolCall:
    """The tool call :func:`call_payload` wrote."""
    (message,) = messages_from_json([payload])
    assert isinstance(message, AssistantMessage)
    return message.tool_calls[0]
