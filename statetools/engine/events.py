"""Events a run emits, to listeners and into ``result.trace``.

Every event is a frozen attrs class with a ``type`` tag, so a trace is plain JSON::

    result = loop.run("hi", tools=tools)
    data = result.trace.to_json()
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import attrs
from cattrs.gen import make_dict_unstructure_fn, override

from statetools.errors import SpecError
from statetools.tools.calling import OutcomeKind
from statetools.tools.convert import make_json_converter


@attrs.frozen
class RunStarted:
    """A run began. ``tools`` are the names visible at the start."""

    run_id: str
    at: float
    tools: tuple[str, ...]
    type: Literal["run_started"] = "run_started"


@attrs.frozen
class IterationStarted:
    """The loop is about to call the model (``iteration`` counts from 1)."""

    iteration: int
    tools: tuple[str, ...]
    type: Literal["iteration_started"] = "iteration_started"


@attrs.frozen
class ModelResponded:
    """The model answered: text and the names of the tools it called."""

    iteration: int
    text: str
    tool_calls: tuple[str, ...]
    stop_reason: str
    type: Literal["model_responded"] = "model_responded"


@attrs.frozen
class ToolStarted:
    """A tool is about to run (its call was neither blocked nor unknown). ``ToolCalled``
    follows once it returned; a run stopped while the tool runs (cancelled,
    interrupted) answers the call without one.

    >>> ToolStarted(1, "call_1", "search").name
    'search'
    """

    iteration: int
    call_id: str
    name: str
    type: Literal["tool_started"] = "tool_started"


@attrs.frozen
class ToolCalled:
    """A tool ran. ``outcome`` is text, artifact or error; ``duration`` in seconds."""

    iteration: int
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    outcome: OutcomeKind
    duration: float
    type: Literal["tool_called"] = "tool_called"


@attrs.frozen
class ToolAnswered:
    """The answer to one tool call was added to the history: exactly what the model
    reads (``text``), whether the call ran, was blocked or named no tool."""

    iteration: int
    call_id: str
    name: str
    text: str
    is_error: bool
    type: Literal["tool_answered"] = "tool_answered"


@attrs.frozen
class ToolNotFound:
    """The model called a name that is not a tool of this run."""

    iteration: int
    call_id: str
    name: str
    type: Literal["tool_not_found"] = "tool_not_found"


@attrs.frozen
class CallBlocked:
    """The model called a tool that exists but is not available now; it did not run."""

    iteration: int
    call_id: str
    name: str
    reason: str
    type: Literal["call_blocked"] = "call_blocked"


@attrs.frozen
class ToolsInjected:
    """Tools were added to the visible set."""

    iteration: int
    names: tuple[str, ...]
    source: str
    type: Literal["tools_injected"] = "tools_injected"


@attrs.frozen
class ToolsRemoved:
    """Tools were removed from the visible set."""

    iteration: int
    names: tuple[str, ...]
    source: str
    type: Literal["tools_removed"] = "tools_removed"


@attrs.frozen
class InjectionSkipped:
    """An injected tool was not added: a tool of that name is already there, the
    ``@tool_provider`` object that offers it has no id (``name`` is then the template,
    ``order_<number>_cancel``, and ``reason`` says what was wrong with the id), or that
    object was found past the depth limit of nested providers."""

    iteration: int
    name: str
    reason: str
    type: Literal["injection_skipped"] = "injection_skipped"


@attrs.frozen
class InjectionLimitReached:
    """Entity discovery reached the run's limit of discovered tools (``limit``); the
    tools in ``names`` were not added."""

    iteration: int
    limit: int
    names: tuple[str, ...]
    source: str
    type: Literal["injection_limit_reached"] = "injection_limit_reached"


@attrs.frozen
class ToolsUnlocked:
    """Tools became available because a condition now holds."""

    iteration: int
    names: tuple[str, ...]
    type: Literal["tools_unlocked"] = "tools_unlocked"


@attrs.frozen
class ToolsHidden:
    """Tools stopped being available (their state was left, or a condition stopped holding)."""

    iteration: int
    names: tuple[str, ...]
    type: Literal["tools_hidden"] = "tools_hidden"


@attrs.frozen
class StateEntered:
    """A state machine moved to ``state``; ``final`` when that ends its work."""

    iteration: int
    machine: str
    state: str
    previous: str
    final: bool
    type: Literal["state_entered"] = "state_entered"


@attrs.frozen
class ConversationRestarted:
    """The tool set changed and the model cannot take new tools mid-conversation, so the
    loop started conversation number ``conversation`` with ``tools``."""

    iteration: int
    conversation: int
    tools: tuple[str, ...]
    type: Literal["conversation_restarted"] = "conversation_restarted"


@attrs.frozen
class OutputRejected:
    """The final answer could not be read as the output type; the model was told why."""

    iteration: int
    message: str
    type: Literal["output_rejected"] = "output_rejected"


@attrs.frozen
class RunFinished:
    """A run ended; ``outcome`` is ``answer``, ``return_direct``, ``final_state``,
    ``refusal``, ``cancelled``, ``interrupted`` or the name of the error that ended it.
    ``error`` says what stopped a run that did not end normally (the error's text, or
    the exception that cancelled or interrupted it); None otherwise, and then it is left
    out of :meth:`Trace.to_json`. Every run reports exactly one, however it ends.

    >>> RunFinished(1.5, 3, "MaxIterationsExceeded", "ToolLoop: no final answer ...").error
    'ToolLoop: no final answer ...'
    """

    at: float
    iterations: int
    outcome: str
    error: str | None = None
    type: Literal["run_finished"] = "run_finished"


@attrs.frozen
class NestedEvent:
    """An event of a nested run (the loop an agentic tool runs its task in), as the
    outer run's listeners hear it: ``path`` names the agentic tools from the outer run
    inward (``depth`` is its length), ``event`` is the nested run's own event. The outer
    trace does not keep it: the nested run's trace is the call's result value.

    >>> nested = NestedEvent(("planner", "researcher"), RunFinished(2.0, 1, "answer"))
    >>> nested.depth, nested.event.outcome
    (2, 'answer')
    """

    path: tuple[str, ...]
    event: Event
    type: Literal["nested"] = "nested"

    @property
    def depth(self) -> int:
        """How deep the nested run is: 1 for an agentic tool the outer run called.

        >>> NestedEvent(("researcher",), RunFinished(1.0, 1, "answer")).depth
        1
        """
        return len(self.path)


Event = (
    RunStarted
    | IterationStarted
    | ModelResponded
    | ToolStarted
    | ToolCalled
    | ToolAnswered
    | ToolNotFound
    | CallBlocked
    | ToolsInjected
    | ToolsRemoved
    | InjectionSkipped
    | InjectionLimitReached
    | ToolsUnlocked
    | ToolsHidden
    | StateEntered
    | ConversationRestarted
    | OutputRejected
    | RunFinished
    | NestedEvent
)
"""Any event of a run; ``event.type`` tells which.

>>> model = st.models.ScriptedModel(["Hello."])
>>> [event.type for event in ToolLoop(model).run("Hi", tools=[]).trace]
['run_started', 'iteration_started', 'model_responded', 'run_finished']
"""

Listener = Callable[[Event], None]
"""A function called with every event as it happens (``ToolLoop(listeners=...)``).

>>> seen: list[str] = []
>>> def record(event: Event) -> None:
...     seen.append(event.type)
>>> listener: Listener = record
>>> _ = ToolLoop(st.models.ScriptedModel(["Hello."]), listeners=[listener]).run("Hi", tools=[])
>>> seen[0], seen[-1]
('run_started', 'run_finished')
"""


_EVENT_TYPES: dict[str, type[Any]] = {
    cls.__attrs_attrs__.type.default: cls for cls in Event.__args__
}

_converter = make_json_converter(forbid_extra_keys=True)
_converter.register_structure_hook(
    Event,
    lambda data, _: _converter.structure(data, _EVENT_TYPES[data["type"]]),
)
_converter.register_unstructure_hook(
    RunFinished,
    make_dict_unstructure_fn(RunFinished, _converter, error=override(omit_if_default=True)),
)


@attrs.frozen
class Trace(Sequence[Event]):
    """The events of a run, in order. Serializes to JSON and back.

    >>> Trace.from_json(Trace(()).to_json()) == Trace(())
    True
    """

    events: tuple[Event, ...] = ()

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, index: Any) -> Any:
        return self.events[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def of_type(self, event_type: type[Any]) -> list[Any]:
        """The events that are instances of ``event_type``.

        >>> trace = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[]).trace
        >>> [event.outcome for event in trace.of_type(RunFinished)]
        ['answer']
        """
        return [event for event in self.events if isinstance(event, event_type)]

    def to_json(self) -> list[dict[str, Any]]:
        """The events as JSON-compatible dicts.

        >>> trace = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[]).trace
        >>> [event["type"] for event in trace.to_json()]
        ['run_started', 'iteration_started', 'model_responded', 'run_finished']
        """
        return [_converter.unstructure(event) for event in self.events]

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> Trace:
        """The inverse of :meth:`to_json`. Data that is not a trace raises SpecError.

        >>> trace = ToolLoop(st.models.ScriptedModel(["Hello!"])).run("Hi", tools=[]).trace
        >>> Trace.from_json(trace.to_json()) == trace
        True
        """
        events = []
        for index, item in enumerate(data if isinstance(data, list) else [data]):
            kind = item.get("type") if isinstance(item, dict) else None
            if kind not in _EVENT_TYPES:
                raise SpecError(
                    f"not a trace event: {str(item)[:80]}",
                    path=f"trace[{index}]",
                    hint=f"events have a 'type': {', '.join(sorted(_EVENT_TYPES))}",
                )
            try:
                events.append(_converter.structure(item, _EVENT_TYPES[kind]))
            except Exception as exc:
                raise SpecError(
                    f"invalid {kind} event: {exc}",
                    path=f"trace[{index}]",
                    hint="pass the list from result.trace.to_json()",
                ) from exc
        return cls(tuple(events))
