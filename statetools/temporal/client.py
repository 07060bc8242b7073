"""Client helpers: start a session, send it a message, await the answer, ask it what
it shows."""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import Client, WorkflowHandle

from statetools.engine.events import Trace
from statetools.engine.state import DisclosureState
from statetools.temporal.designs import output_reference
from statetools.temporal.payloads import SessionInput, SessionResult, SessionSettings
from statetools.temporal.workflow import WORKFLOW_NAME


async def start_session(
    client: Client,
    design: str,
    prompt: str | None = None,
    *,
    id: str,
    task_queue: str,
    settings: SessionSettings | None = None,
    wait_for_messages: bool = False,
    output_type: str | type | None = None,
    **options: Any,
) -> WorkflowHandle[Any, SessionResult]:
    """Start a session of ``design`` (a reference the workers know) as workflow ``id``.

    Without ``wait_for_messages`` it ends after answering ``prompt``; with it, it
    waits for :func:`send_message` until :func:`end_session`. With ``output_type``
    (``module:Type``, or a class workers can import by its import path) each answer
    is read as that type, on the worker, as ``ToolLoop.run(output_type=...)`` reads
    it; the answers are its JSON (:func:`~statetools.temporal.designs.output_value`
    makes the typed value again).

    >>> handle = await start_session(client, "d.yaml", id="s", task_queue="q")  # doctest: +SKIP
    >>> (await handle.result()).output  # doctest: +SKIP
    'Hello!'
    """
    session = SessionInput(
        design,
        prompt,
        settings or SessionSettings(),
        wait_for_messages=wait_for_messages,
        output_type=None if output_type is None else output_reference(output_type),
    )
    handle: WorkflowHandle[Any, SessionResult] = await client.start_workflow(
        WORKFLOW_NAME,
        session,
        id=id,
        task_queue=task_queue,
        result_type=SessionResult,
        **options,
    )
    return handle


def session(client: Client, id: str) -> WorkflowHandle[Any, SessionResult]:
    """The handle of a running session (its latest run, after continue-as-new too).

    >>> handle = session(client, "s1")  # doctest: +SKIP
    """
    return client.get_workflow_handle(id, result_type=SessionResult)


async def send_message(handle: WorkflowHandle[Any, Any], text: str) -> None:
    """Send a user message (answered after the messages before it).

    >>> await send_message(handle, "And the second order?")  # doctest: +SKIP
    """
    await handle.signal("send", text)


async def answers(handle: WorkflowHandle[Any, Any]) -> list[Any]:
    """The session's answers so far, one per user message (a ``return_direct`` tool's
    JSON value where it gave one, as a local run's ``output`` is).

    >>> await answers(handle)  # doctest: +SKIP
    ['Hello!']
    """
    found: list[Any] = await handle.query("answers", result_type=list[Any])
    return found


async def ask(handle: WorkflowHandle[Any, Any], text: str, *, poll: float = 0.05) -> Any:
    """Send ``text`` and await its answer (assumes one sender per session).

    >>> await ask(handle, "Cancel W1001, please.")  # doctest: +SKIP
    'Order W1001 is cancelled.'
    """
    before = len(await answers(handle))
    await send_message(handle, text)
    while True:
        now = await answers(handle)
        if len(now) > before:
            return now[before]
        await asyncio.sleep(poll)


async def end_session(handle: WorkflowHandle[Any, SessionResult]) -> SessionResult:
    """Tell the session no more messages come; its result once the pending ones are answered.

    >>> (await end_session(handle)).answers  # doctest: +SKIP
    ['Hello!', 'Done.']
    """
    await handle.signal("end")
    return await handle.result()


async def visible_tools(handle: WorkflowHandle[Any, Any]) -> list[str]:
    """The tools the session's model would see now.

    >>> await visible_tools(handle)  # doctest: +SKIP
    ['find_customer_by_email']
    """
    names: list[str] = await handle.query("visible_tools", result_type=list[str])
    return names


async def disclosure_state(handle: WorkflowHandle[Any, Any]) -> DisclosureState:
    """The session's DisclosureState now.

    >>> (await disclosure_state(handle)).machine_states  # doctest: +SKIP
    {'support_desk': 'IDENTIFIED'}
    """
    text: str = await handle.query("state", result_type=str)
    return DisclosureState.from_json(text)


async def trace(handle: WorkflowHandle[Any, Any]) -> Trace:
    """The session's trace so far: the events a local run records, one run per user
    message (times are the workflow's; a tool call's duration is its activity's).

    >>> [event.type for event in await trace(handle)][:2]  # doctest: +SKIP
    ['run_started', 'iteration_started']
    """
    events: list[dict[str, Any]] = await handle.query("trace", result_type=list[dict[str, Any]])
    return Trace.from_json(events)
