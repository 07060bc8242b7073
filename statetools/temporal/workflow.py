"""The session workflow: the scheduler runs here, deterministically; the model and
the tools are activities; a long session continues as new carrying its state."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as ActivityTimeout

from statetools import errors
from statetools.code.mode import HostedCode
from statetools.engine import Call
from statetools.engine.answers import timeout_of
from statetools.errors import ProviderError, RunAborted, RunError, StatetoolsError
from statetools.messages import ToolCall
from statetools.temporal.activities import MODEL_ACTIVITY, OUTPUT_ACTIVITY, TOOL_ACTIVITY
from statetools.temporal.designs import loaded_design
from statetools.temporal.driver import SessionDriver, call_payload, session_wording
from statetools.temporal.payloads import (
    ModelAnswer,
    OutputCheck,
    OutputReading,
    ScriptPaused,
    ScriptStep,
    SessionInput,
    SessionResult,
    ToolOutcome,
    ToolRun,
)
from statetools.temporal.script_steps import SCRIPT_ACTIVITY, drive_script
from statetools.tools.calling import ToolResult
from statetools.tools.tool import BaseTool

WORKFLOW_NAME = "statetools.Session"
STEP_MARGIN = 60.0
"""Seconds a script step's activity may take beyond the script's own time limit (the
sandbox's worker process starting, the script's state loaded)."""
NO_TOOL_TIMEOUT = 3600.0
"""The activity timeout of a tool call without any timeout."""


def _model_failure(exc: ActivityError) -> tuple[str, str] | None:
    """The error a model call that failed every try ends the session with, named as a
    local run names it: a statetools error as it is, anything else a ``ProviderError``;
    None when the call did not fail (it was cancelled)."""
    cause = exc.cause
    if isinstance(cause, ApplicationError) and cause.type:
        kind, text = cause.type, cause.message
    elif isinstance(cause, ActivityTimeout):
        kind, text = type(cause).__name__, str(cause)
    else:
        return None
    known = getattr(errors, kind, None)
    if isinstance(known, type) and issubclass(known, StatetoolsError):
        return kind, text
    error = ProviderError(
        f"the model failed: {kind}: {text}",
        path=f"{MODEL_ACTIVITY} activity",
        hint="the workflow's history has each try's failure",
    )
    return type(error).__name__, str(error)


def _failed(error: StatetoolsError) -> ApplicationError:
    return ApplicationError(str(error), type=type(error).__name__, non_retryable=True)


@workflow.defn(name=WORKFLOW_NAME, sandboxed=False)
class SessionWorkflow:
    """A statetools session as a workflow (register it with :func:`session_worker`).

    Signals: ``send`` (a user message), ``end`` (no more messages). Queries:
    ``visible_tools``, ``state`` (DisclosureState JSON), ``answers``, ``messages``,
    ``trace``.

    >>> Worker(client, task_queue="q", workflows=[SessionWorkflow], ...)  # doctest: +SKIP
    """

    @workflow.init
    def __init__(self, session: SessionInput) -> None:
        self.session = session
        self.driver: SessionDriver | None = None
        self.turns = 0

    @workflow.run
    async def run(self, session: SessionInput) -> SessionResult:
        """Run the session: answer its prompt and the user messages signalled to it,
        until it ends (continuing as new every ``turns_per_run`` model calls).
        ``start_session`` starts it:

        >>> handle = await start_session(  # doctest: +SKIP
        ...     client, "playbooks/research.yaml", "Why tides?", id="s1", task_queue="desk"
        ... )
        >>> (await end_session(handle)).output  # doctest: +SKIP
        'Tides follow the moon.'
        """
        session = self.session
        try:
            self.driver = SessionDriver(
                loaded_design(session.design),
                session,
                run_id=workflow.info().workflow_id,
                clock=lambda: workflow.now().timestamp(),
            )
        except StatetoolsError as error:
            raise _failed(error) from None
        if session.prompt is not None and not session.messages:
            session.pending.insert(0, session.prompt)
        while True:
            if session.pending:
                await self._answer_next(session, self.driver)
                continue
            if not session.wait_for_messages or session.ended:
                break
            await workflow.wait_condition(lambda: bool(session.pending) or session.ended)
        return self._result(session, self.driver)

    async def _answer_next(self, session: SessionInput, driver: SessionDriver) -> None:
        if session.iterations_this_message == 0:
            driver.add_user_message(session.pending[0])
        conversation = driver.conversation
        while not conversation.finished:
            try:
                await self._turn(session, driver)
            except RunError as error:  # the conversation ended the run with it
                if isinstance(error, RunAborted) and error.__cause__ is not None:
                    raise error.__cause__ from None  # a bug: the workflow task fails, as before
                raise ApplicationError(
                    session_wording(error), type=type(error).__name__, non_retryable=True
                ) from None
            session.iterations_this_message = conversation.asked
            self.turns += 1
            if not conversation.finished:
                self._maybe_continue(session, driver)
        result = conversation.result
        session.pending.pop(0)
        session.answers.append(result.output)
        session.iterations_this_message = 0
        self._maybe_continue(session, driver)

    async def _turn(self, session: SessionInput, driver: SessionDriver) -> None:
        """One model call and its tool calls; the conversation decides what follows
        (another turn, or the end of the run)."""
        settings = session.settings
        request = driver.request()
        try:
            reply: ModelAnswer = await workflow.execute_activity(
                MODEL_ACTIVITY,
                request,
                result_type=ModelAnswer,
                start_to_close_timeout=timedelta(seconds=settings.model_timeout),
                heartbeat_timeout=timedelta(seconds=settings.heartbeat_timeout),
                retry_policy=RetryPolicy(maximum_attempts=settings.model_attempts),
            )
        except ActivityError as exc:  # every try failed: the session fails, as a run does
            failed = _model_failure(exc)
            if failed is None:
                raise
            raise self._ending(driver, *failed) from None
        calls = driver.take(reply)
        session.usage = [a + b for a, b in zip(session.usage, reply.usage, strict=True)]
        for call in calls:
            await self._call(session, driver, call)
        answer = driver.conversation.unread_answer
        if answer is not None:
            driver.read(await self._read_output(session, driver, answer))

    async def _read_output(
        self, session: SessionInput, driver: SessionDriver, text: str
    ) -> OutputReading:
        """The final answer read as the session's output type, in the output activity
        (on the worker, where the type can be imported)."""
        assert session.output_type is not None
        try:
            reading: OutputReading = await workflow.execute_activity(
                OUTPUT_ACTIVITY,
                OutputCheck(session.output_type, text),
                result_type=OutputReading,
                start_to_close_timeout=timedelta(seconds=session.settings.model_timeout),
                retry_policy=RetryPolicy(maximum_attempts=session.settings.tool_attempts),
            )
        except ActivityError as exc:  # no such type on the worker: the session fails
            cause = exc.cause
            if not isinstance(cause, ApplicationError):
                raise
            raise self._ending(driver, cause.type or "StatetoolsError", cause.message) from None
        return reading

    @staticmethod
    def _ending(driver: SessionDriver, kind: str, message: str) -> ApplicationError:
        """The error (raised on a worker) that fails the session, noted in its trace first."""
        driver.fail(kind, message)
        return ApplicationError(message, type=kind, non_retryable=True)

    async def _call(self, session: SessionInput, driver: SessionDriver, call: Call) -> None:
        """Run one call the conversation handed out: in the workflow, or in the tool
        activity; a code-mode script as a chain of script activities, its tool calls
        each in the tool activity (see :mod:`~statetools.temporal.script_steps`)."""
        tool = call.tool
        if isinstance(tool, HostedCode) and not driver.runs_here(call):
            settings = session.settings

            async def step(payload: ScriptStep) -> ScriptPaused:
                seconds = tool.script.limits.seconds + STEP_MARGIN
                paused: ScriptPaused = await workflow.execute_activity(
                    SCRIPT_ACTIVITY,
                    payload,
                    result_type=ScriptPaused,
                    start_to_close_timeout=timedelta(seconds=seconds),
                    retry_policy=RetryPolicy(maximum_attempts=settings.tool_attempts),
                )
                return paused

            async def run(inner: BaseTool, nested: ToolCall, _context: Any) -> ToolResult:
                return driver.result_of(await self._outcome(session, driver, Call(nested, inner)))

            driver.answer(call, await drive_script(tool, call.call, step, run))
            return
        driver.answer(call, await self._outcome(session, driver, call))

    async def _outcome(
        self, session: SessionInput, driver: SessionDriver, call: Call
    ) -> ToolOutcome | ToolResult:
        """Run one call: in the workflow (bookkeeping), else in the tool activity."""
        if driver.runs_here(call):
            return await driver.run_here(call)
        settings = session.settings
        seconds = timeout_of(call.tool, settings.tool_timeout)
        limit = NO_TOOL_TIMEOUT if seconds is None else seconds + settings.heartbeat_timeout
        outcome: ToolOutcome = await workflow.execute_activity(
            TOOL_ACTIVITY,
            ToolRun(
                session.design,
                workflow.info().workflow_id,
                call_payload(call.call),
                driver.state().to_json(),
                settings.tool_timeout,
            ),
            result_type=ToolOutcome,
            start_to_close_timeout=timedelta(seconds=limit),
            heartbeat_timeout=timedelta(seconds=settings.heartbeat_timeout),
            retry_policy=RetryPolicy(maximum_attempts=settings.tool_attempts),
        )
        return outcome

    def _maybe_continue(self, session: SessionInput, driver: SessionDriver) -> None:
        limit = session.settings.turns_per_run
        if self.turns < limit and not workflow.info().is_continue_as_new_suggested():
            return
        if not workflow.all_handlers_finished():
            return
        workflow.continue_as_new(
            SessionInput(
                session.design,
                session.prompt,
                session.settings,
                session.wait_for_messages,
                driver.messages_json(),
                driver.state().to_json(),
                list(session.pending),
                list(session.answers),
                session.iterations_this_message,
                list(session.usage),
                session.ended,
                session.runs + 1,
                driver.trace_json(),
                driver.unfolds.saved(),
                session.output_type,
            )
        )

    def _result(self, session: SessionInput, driver: SessionDriver) -> SessionResult:
        return SessionResult(
            session.answers[-1] if session.answers else None,
            list(session.answers),
            driver.messages_json(),
            driver.state().to_json(),
            driver.conversation.record.iterations,
            session.runs,
            list(session.usage),
            driver.trace_json(),
        )

    @workflow.signal(name="send")
    def send(self, text: str) -> None:
        """A user message: answered after the ones before it (``send_message`` sends it).

        >>> handle = session(client, "s1")  # doctest: +SKIP
        >>> await handle.signal(SessionWorkflow.send, "And the spring tides?")  # doctest: +SKIP
        """
        self.session.pending.append(text)

    @workflow.signal(name="end")
    def end(self) -> None:
        """No more messages: the session finishes once the pending ones are answered
        (``end_session`` sends it and waits for the result).

        >>> handle = session(client, "s1")  # doctest: +SKIP
        >>> await handle.signal(SessionWorkflow.end)  # doctest: +SKIP
        """
        self.session.ended = True

    @workflow.query(name="visible_tools")
    def visible_tools(self) -> list[str]:
        """The tools the model would see now.

        >>> handle = session(client, "s1")  # doctest: +SKIP
        >>> await handle.query(SessionWorkflow.visible_tools)  # doctest: +SKIP
        ['search', 'analyze']
        """
        return self.driver.visible() if self.driver is not None else []

    @workflow.query(name="state")
    def state(self) -> str:
        """The DisclosureState now, as JSON (``disclosure_state`` reads it).

        >>> handle = session(client, "s1")  # doctest: +SKIP
        >>> DisclosureState.from_json(await handle.query(SessionWorkflow.state))  # doctest: +SKIP
        """
        return self.driver.state().to_json() if self.driver is not None else "{}"

    @workflow.query(name="answers")
    def answers(self) -> list[Any]:
        """The answers so far, one per user message.

        >>> handle = session(client, "s1")  # doctest: +SKIP
        >>> await handle.query(SessionWorkflow.answers)  # doctest: +SKIP
        ['Tides follow the moon.']
        """
        return list(self.session.answers)

    @workflow.query(name="trace")
    def trace(self) -> list[dict[str, Any]]:
        """The trace so far, as JSON (``statetools.Trace.from_json`` reads it).

        >>> handle = session(client, "s1")  # doctest: +SKIP
        >>> Trace.from_json(await handle.query(SessionWorkflow.trace))  # doctest: +SKIP
        """
        return self.driver.trace_json() if self.driver is not None else []

    @workflow.query(name="messages")
    def messages(self) -> list[dict[str, Any]]:
        """The history so far, as JSON (``statetools.messages_from_json`` reads it).

        >>> handle = session(client, "s1")  # doctest: +SKIP
        >>> messages_from_json(await handle.query(SessionWorkflow.messages))  # doctest: +SKIP
        """
        return self.driver.messages_json() if self.driver is not None else []
