"""The disclosure state a pydantic-ai conversation carries in its message history.

At the end of each run the pydantic-ai bridge puts the run's
:class:`~statetools.DisclosureState` (its JSON text) under the ``statetools`` key of the
``metadata`` of the run's last ``ModelResponse`` (metadata is never sent to the model,
and it survives ``ModelMessagesTypeAdapter`` JSON round trips). A run continued from
that history (``message_history=...``) starts where it left off: :func:`saved_state`
finds the state again.

A history without the key starts afresh. A value that is no state of this design
(another design's, a newer format, an edited one) is an error, never a silent fresh
start; so are calls of this design's tools made after the saved state (a run that
could not save it, such as ``run_stream``, or an edited history): the state would
not count them.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)

from statetools.engine.graph import DisclosureGraph
from statetools.engine.state import DisclosureState
from statetools.errors import SpecError

__all__ = ["KEY", "save_state", "saved_state"]

KEY = "statetools"
"""The key of the state in a ``ModelResponse``'s ``metadata``."""
_FRESH = "remove the 'statetools' key from that message's metadata to start the disclosure afresh"


def save_state(
    messages: Sequence[ModelMessage], run_id: str | None, state: DisclosureState
) -> bool:
    """Put ``state`` on the last ``ModelResponse`` of run ``run_id`` among ``messages``
    (the metadata's other keys stay). False when the run made no response.

    >>> from pydantic_ai.messages import TextPart
    >>> history = [ModelResponse(parts=[TextPart("hi")], run_id="r1", metadata={"mine": 1})]
    >>> save_state(history, "r1", DisclosureState(call_counts={"search": 1}))
    True
    >>> history[0].metadata
    {'mine': 1, 'statetools': '{"artifacts": [], ...'}
    """
    for message in reversed(messages):
        if isinstance(message, ModelResponse) and message.run_id == run_id:
            message.metadata = {**(message.metadata or {}), KEY: state.to_json()}
            return True
    return False


def saved_state(messages: Sequence[ModelMessage], graph: DisclosureGraph) -> DisclosureState | None:
    """The disclosure state of the last ``ModelResponse`` in ``messages`` that has one
    (None when none has: the run starts afresh).

    Raises :class:`~statetools.SpecError` (with the message's path) when that state is
    not one of ``graph``'s, or when calls of ``graph``'s tools were answered after it.

    >>> from statetools.engine.graph import disclosure_graph
    >>> from statetools.tools.tool import Tool
    >>> graph = disclosure_graph(Tool.create("search", "Search.", lambda: "found"))
    >>> saved_state([ModelResponse(parts=[])], graph) is None
    True
    >>> saved_state([ModelResponse(parts=[], metadata={"statetools": "{}"})], graph)
    DisclosureState(call_counts=mappingproxy({}), ...)
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, ModelResponse) and message.metadata and KEY in message.metadata:
            path = f"message_history[{index}].metadata['{KEY}']"
            state = _read(message.metadata[KEY], path, graph)
            _refuse_later_calls(messages, index, path, graph, state)
            return state
    return None


def _read(value: object, path: str, graph: DisclosureGraph) -> DisclosureState:
    """The state ``value`` holds, if it is one of ``graph``'s."""
    if not isinstance(value, str):
        raise SpecError(
            f"expected the text of a disclosure state, got {type(value).__name__}",
            path=path,
            hint=_FRESH,
        )
    try:
        state = DisclosureState.from_json(value)
    except SpecError as error:
        raise SpecError(
            f"not a disclosure state this statetools can read ({error.message})",
            path=f"{path}: {error.path}",
            hint=f"it was saved by another statetools version or edited; {_FRESH}",
            problems=error.problems,
        ) from error
    for name, current in state.machine_states.items():
        machine = graph.machines.get(name)
        if machine is None:
            raise _other_design(f"state machine '{name}'", path)
        if current not in machine.state_names:
            raise SpecError(
                f"machine '{name}' has no state {current!r}",
                path=f"{path}: state.machine_states.{name}",
                hint=f"its states are {', '.join(machine.state_names)}; {_FRESH}",
            )
    for facade, _ in state.unfolds:
        if facade not in graph.facades:
            raise _other_design(f"facade '{facade}'", path)
    return state


def _other_design(what: str, path: str) -> SpecError:
    return SpecError(
        f"the saved disclosure state is of another design: it has a {what}, "
        "which this agent's design does not",
        path=path,
        hint=f"continue the conversation with the agent that had that design, or {_FRESH}",
    )


def _refuse_later_calls(
    messages: Sequence[ModelMessage],
    saved_at: int,
    path: str,
    graph: DisclosureGraph,
    state: DisclosureState,
) -> None:
    """Refuse calls of the design's tools that later responses made and that were
    answered: the saved state does not count them. (The calls of the saved response
    itself ran in the run that saved it, or were never run: the state counts them.)"""
    later = {
        part.tool_call_id: part.tool_name
        for message in messages[saved_at + 1 :]
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart) and _ours(part.tool_name, graph, state)
    }
    if not later:
        return
    answered = [
        later[part.tool_call_id]
        for message in messages[saved_at + 1 :]
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_call_id in later
    ]
    if answered:
        names = ", ".join(dict.fromkeys(answered))
        raise SpecError(
            f"the history has calls of {names} after the saved disclosure state, "
            "which does not count them",
            path=path,
            hint="runs of this agent save the state when they end (agent.run, run_sync, iter; "
            "not run_stream); continue from a history whose last run saved it, or "
            f"{_FRESH}",
        )


def _ours(name: str, graph: DisclosureGraph, state: DisclosureState) -> bool:
    """Whether ``name`` is a tool of the design or one the saved run added."""
    return name in graph.entries or name in state.call_counts or name in state.visible_order
