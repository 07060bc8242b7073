"""Durable sessions on Temporal (the ``statetools[temporal]`` extra).

A session is a workflow: the scheduler runs inside it, deterministically; model
calls and tool calls are activities; a long session continues as new carrying its
DisclosureState and messages. Workers load designs by reference (a YAML path or
``module:attribute``) so every worker rebuilds the same definition. See docs/durable.md.

>>> from statetools.temporal import session_worker, start_session  # doctest: +SKIP
>>> worker = session_worker(client, "q", ["desk.yaml"], model)  # doctest: +SKIP
"""

from statetools.models.scripted import ScriptByRequest
from statetools.temporal.activities import SessionActivities
from statetools.temporal.client import (
    answers,
    ask,
    disclosure_state,
    end_session,
    send_message,
    session,
    start_session,
    trace,
    visible_tools,
)
from statetools.temporal.designs import (
    Designs,
    LoadedDesign,
    load_reference,
    loaded_design,
    output_value,
)
from statetools.temporal.driver import SessionDriver
from statetools.temporal.payloads import SessionInput, SessionResult, SessionSettings
from statetools.temporal.worker import session_worker
from statetools.temporal.workflow import SessionWorkflow

__all__ = [
    "Designs",
    "LoadedDesign",
    "ScriptByRequest",
    "SessionActivities",
    "SessionDriver",
    "SessionInput",
    "SessionResult",
    "SessionSettings",
    "SessionWorkflow",
    "answers",
    "ask",
    "disclosure_state",
    "end_session",
    "load_reference",
    "loaded_design",
    "output_value",
    "send_message",
    "session",
    "session_worker",
    "start_session",
    "trace",
    "visible_tools",
]
