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
from statetools.engine.answers import timeout_of
from statetools.engine.steps import answer_unrun
from statetools.errors import ProviderError, StatetoolsError
from statetools.loop.toolloop import MAX_MISSES_IN_A_ROW
from statetools.messages import ToolCall
from statetools.temporal.activities import MODEL_ACTIVITY, OUTPUT_ACTIVITY, TOOL_ACTIVITY
from statetools.temporal.designs import loaded_design
from statetools.temporal.driver import SessionDriver, call_payload
from statetools.temporal.payloads import (
    ModelAnswer,
    OutputCheck,
    OutputReading,
    SessionInput,
    SessionResult,
    ToolOutcome,
    ToolRun,
)
from statetools.wording import counted

WORKFLOW_NAME = "statetools.Session"
NO_TOOL_TIMEOUT = 3600.0
"""The activity timeout of a tool call without any timeout."""
TEXT_OUTPUT = "builtins:str"
"""The reference of ``str`` as an output type: answers are text, as with none."""


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
        ended: tuple[Any, str] | None = None
        while ended is None:
            if session.iterations_this_message >= session.settings.max_iterations:
                raise self._ending(
                    driver,
                    "MaxIterationsExceeded",
                    "no final answer after "
                    f"{counted(session.settings.max_iterations, 'model call')}",
                )
            ended = await self._turn(session, driver)
            session.iterations_this_message += 1
            self.turns += 1
            if ended is None:
                self._maybe_continue(session, driver)
        answer, outcome = ended
        driver.finish(outcome)
        session.pending.pop(0)
        session.answers.append(answer)
        session.iterations_this_message = 0
        self._maybe_continue(session, driver)

    async def _turn(self, session: SessionInput, driver: SessionDriver) -> tuple[Any, str] | None:
        """One model call and its tool calls; the answer (or output) and the outcome (as
        ``RunFinished`` names it), if it was one."""
        settings = session.settings
        try:
            reply: ModelAnswer = await workflow.execute_activity(
                MODEL_ACTIVITY,
                driver.request(),
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
        message = driver.take(reply)
        session.usage = [a + b for a, b in zip(session.usage, reply.usage, strict=True)]
        if reply.stop_reason == "refusal":
            answer_unrun(driver.run, message.tool_calls, "refusal")
            plain = session.output_type in (None, TEXT_OUTPUT)  # as ToolLoop's refusal
            return message.content if plain else None, "refusal"
        if reply.stop_reason == "max_tokens" and message.tool_calls:
            answer_unrun(driver.run, message.tool_calls, "max_tokens")
            return None
        if not message.tool_calls:
            return await self._final_answer(session, driver, message.content)
        for call in message.tool_calls:
            await self._call(session, driver, call)
        if driver.run.misses >= MAX_MISSES_IN_A_ROW:
            raise self._ending(
                driver,
                "ToolNotFoundError",
                f"the model called tools that do not exist {driver.run.misses} times in a row",
            )
        if driver.run.ending is None:
            return None
        outcome, output = driver.run.ending
        return output, outcome

    async def _final_answer(
        self, session: SessionInput, driver: SessionDriver, text: str
    ) -> tuple[Any, str] | None:
        """The answer as the session's output type, read in the output activity; a
        first answer that does not fit is corrected (the model is asked again), a
        second fails the session, as in a local run."""
        if session.output_type is None:
            return text, "answer"
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
        if reading.ok:
            return reading.value, "answer"
        if driver.run.output_corrected:
            raise self._ending(driver, "OutputValidationError", reading.error)
        driver.correct(reading.correction)
        return None

    @staticmethod
    def _ending(driver: SessionDriver, kind: str, message: str) -> ApplicationError:
        """The error that fails the session, noted in its trace first."""
        driver.finish(kind, message)
        return ApplicationError(message, type=kind, non_retryable=True)

    async def _call(self, session: SessionInput, driver: SessionDriver, call: ToolCall) -> None:
        """Answer one call: in the workflow, or in the tool activity."""
        tool = driver.resolve(call)
        if tool is None:
            return
        if driver.runs_here(call, tool):
            driver.record(call, tool, await driver.run_here(call, tool))
            return
        settings = session.settings
        seconds = timeout_of(tool, settings.tool_timeout)
        limit = NO_TOOL_TIMEOUT if seconds is None else seconds + settings.heartbeat_timeout
        outcome: ToolOutcome = await workflow.execute_activity(
            TOOL_ACTIVITY,
            ToolRun(
                session.design,
                workflow.info().workflow_id,
                call_payload(call),
                driver.state().to_json(),
                settings.tool_timeout,
            ),
            result_type=ToolOutcome,
            start_to_close_timeout=timedelta(seconds=limit),
            heartbeat_timeout=timedelta(seconds=settings.heartbeat_timeout),
            retry_policy=RetryPolicy(maximum_attempts=settings.tool_attempts),
        )
        driver.record(call, tool, outcome)

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
            driver.run.iterations,
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
