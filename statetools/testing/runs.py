"""Scripted runs for tests: :func:`run_scripted` runs a definition against a script in
one line, and :func:`format_trace` writes a run's trace as readable, deterministic text
(what ``trace_snapshot`` stores).

One line per thing that happened, grouped by turn::

    turn 1 | visible: search
      call analyze {} -> blocked: Tool 'analyze' is locked. Call first: search.
    turn 2 | visible: search
      call search {"query": "tides"} -> text
      unlocked: analyze
    ...
    finished: answer after 6 iterations

Nothing that varies between identical runs is written: no timestamps, durations, run
ids or call ids. Tool names in a set are sorted, arguments are JSON with sorted keys, so
the text does not depend on dict or set ordering either.
"""

from __future__ import annotations

import enum
import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypedDict, Unpack

import attrs

from statetools.definitions.chaining import Chaining
from statetools.engine.events import Listener
from statetools.engine.run_result import LoopResult
from statetools.engine.scheduler import Visibility
from statetools.engine.state import DisclosureState
from statetools.engine.strategies import ToolInjectionStrategy
from statetools.loop.toolloop import ToolLoop
from statetools.messages import AssistantMessage
from statetools.models.base import Model, ModelCapabilities
from statetools.models.scripted import ScriptedModel, Step
from statetools.wording import counted

Script = Sequence[Step] | str | Path
"""Steps of a :class:`~statetools.models.ScriptedModel`, or a YAML script (path or text).

>>> search = st.Tool.create("search", "Search the web", lambda query: "found")
>>> script: Script = [("search", {"query": "tides"}), "Done."]
>>> run_scripted([search], script).output
'Done.'
>>> run_scripted([search], "- answer: Done from YAML.\\n").output
'Done from YAML.'
"""


class ScriptedModelFactory(Protocol):
    """The ``scripted_model`` fixture: makes a :class:`~statetools.models.ScriptedModel`.

    >>> def test_search(scripted_model: ScriptedModelFactory) -> None:
    ...     model = scripted_model([("search", {"query": "x"}), "Done."])
    """

    def __call__(
        self, steps: Script, *, capabilities: ModelCapabilities | None = None
    ) -> ScriptedModel:
        """A scripted model following ``steps`` (a list of steps, YAML text, or the
        path of a YAML script, relative to the test file)."""
        ...


class LoopOptions(TypedDict, total=False):
    """Options of :class:`~statetools.ToolLoop` that :func:`run_scripted` passes on.

    >>> options: LoopOptions = {"max_iterations": 3, "system_prompt": "Be brief."}
    >>> result = run_scripted([], ["Done."], **options)
    >>> result.messages[0].content, result.output
    ('Be brief.', 'Done.')
    """

    max_iterations: int
    listeners: Sequence[Listener]
    visibility: Visibility
    strategies: Sequence[ToolInjectionStrategy]
    system_prompt: str | None
    end_on_final_state: bool
    clock: Callable[[], float]
    id_factory: Callable[[], str]
    chaining: Sequence[Chaining]
    max_discovered_tools: int


def scripted(script: Script | Model) -> Model:
    """A model for ``script``: a model as is, YAML (a path, or text) read by
    :meth:`ScriptedModel.from_yaml`, and a list of steps given to :class:`ScriptedModel`.

    >>> scripted(["Done."]).remaining
    1
    """
    if isinstance(script, Model):
        return script
    if isinstance(script, str | Path):
        return ScriptedModel.from_yaml(script)
    return ScriptedModel(script)


def run_scripted(
    definition_or_tools: Any,
    steps: Script | Model,
    *,
    prompt: str = "Go.",
    context: Mapping[str, Any] | None = None,
    output_type: Any = None,
    state: DisclosureState | None = None,
    **loop_options: Unpack[LoopOptions],
) -> LoopResult:
    """Run a definition (a playbook, a state machine, a tool, or a list of them) with a
    scripted model and return the :class:`~statetools.LoopResult`.

    ``steps`` are :class:`~statetools.models.ScriptedModel` steps, a YAML script (path or
    text), or a model (pass a ``ScriptedModel`` of your own to inspect its ``requests``).
    ``loop_options`` go to :class:`~statetools.ToolLoop`; its clock and run id are fixed
    (``0.0``, ``"scripted-run"``) unless given, so ``result.trace.to_json()`` is the same
    in every run. Errors that end the run are raised as usual; each carries ``.result``.

    >>> import statetools as st
    >>> @st.llm_tool("Say hello.")
    ... def hello() -> str:
    ...     return "hello"
    >>> run_scripted([hello], [("hello", {}), "Said hello."]).output
    'Said hello.'
    """
    tools = (
        list(definition_or_tools)
        if isinstance(definition_or_tools, Sequence) and not isinstance(definition_or_tools, str)
        else [definition_or_tools]
    )
    loop_options.setdefault("clock", _zero)
    loop_options.setdefault("id_factory", _run_id)
    loop = ToolLoop(scripted(steps), **loop_options)
    return loop.run(prompt, tools=tools, output_type=output_type, context=context, state=state)


def _zero() -> float:
    return 0.0


def _run_id() -> str:
    return "scripted-run"


VOLATILE_FIELDS = frozenset({"type", "at", "duration", "run_id", "call_id", "iteration"})
"""Event fields never written: they differ between identical runs or are implied by
the layout (the turn an event belongs to).

>>> sorted(VOLATILE_FIELDS)
['at', 'call_id', 'duration', 'iteration', 'run_id', 'type']
"""

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def format_trace(run: Any) -> str:
    """The trace of ``run`` as text, one event a line, ending with a newline.

    ``run`` is a :class:`~statetools.LoopResult` (best: blocked calls then show their
    arguments, found in the conversation), a :class:`~statetools.Trace` or any
    iterable of events. An event of a type this function does not know is written
    generically as ``type: field=value, ...`` (every event has a ``type`` tag).

    >>> import statetools as st
    >>> from statetools.engine.events import IterationStarted, RunFinished
    >>> trace = st.Trace((IterationStarted(1, ("b", "a")), RunFinished(0.5, 1, "answer")))
    >>> print(format_trace(trace))
    turn 1 | visible: a, b
    finished: answer after 1 iteration
    <BLANKLINE>
    """
    events = getattr(run, "trace", run)
    arguments = _CallArguments(getattr(run, "messages", ()))
    lines: list[str] = []
    for event in events:
        kind = getattr(event, "type", None)
        if not isinstance(kind, str):
            raise TypeError(
                f"not an event: {event!r} (format_trace takes a LoopResult, a Trace "
                "or events with a 'type')"
            )
        writer = _WRITERS.get(kind, _generic)
        line = writer(event, arguments)
        if line is not None:
            lines.append(line)
    return "\n".join(lines) + "\n"


class _CallArguments:
    """Arguments of the calls in a conversation, by call id, in the order they came."""

    def __init__(self, messages: Iterable[Any]) -> None:
        self._by_id: dict[str, deque[Mapping[str, Any]]] = {}
        for message in messages:
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls:
                    self._by_id.setdefault(call.id, deque()).append(call.arguments)

    def take(self, call_id: str) -> Mapping[str, Any] | None:
        """The arguments of the next call with this id (None if unknown)."""
        queue = self._by_id.get(call_id)
        return queue.popleft() if queue else None


def _names(names: Iterable[str]) -> str:
    ordered = sorted(names)
    return ", ".join(ordered) if ordered else "(none)"


def _one_line(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n")


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _plain(value: Any) -> Any:
    """``value`` as JSON-compatible data that reads the same in every run: mappings and
    attrs instances become dicts, sets become sorted lists, enums their names, and any
    other object its ``repr`` without memory addresses."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if attrs.has(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=_json)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return _ADDRESS.sub("", repr(value))


def _json(value: Any) -> str:
    return json.dumps(_plain(value), ensure_ascii=False, sort_keys=True)


def _call(name: str, arguments: Mapping[str, Any] | None, outcome: str) -> str:
    shown = "" if arguments is None else f" {_json(arguments)}"
    return f"  call {name}{shown} -> {outcome}"


def _iteration_started(event: Any, _: _CallArguments) -> str:
    return f"turn {event.iteration} | visible: {_names(event.tools)}"


def _model_responded(event: Any, _: _CallArguments) -> str | None:
    if not event.tool_calls:
        return f"  answer: {_quoted(event.text)}"
    return f"  says: {_quoted(event.text)}" if event.text else None


def _tool_called(event: Any, arguments: _CallArguments) -> str:
    arguments.take(event.call_id)
    return _call(event.name, event.arguments, str(event.outcome))


def _call_blocked(event: Any, arguments: _CallArguments) -> str:
    return _call(event.name, arguments.take(event.call_id), f"blocked: {_one_line(event.reason)}")


def _tool_not_found(event: Any, arguments: _CallArguments) -> str:
    return _call(event.name, arguments.take(event.call_id), "not found")


def _state_entered(event: Any, _: _CallArguments) -> str:
    final = " (final)" if event.final else ""
    return f"  state {event.machine}: {event.previous} -> {event.state}{final}"


def _run_finished(event: Any, _: _CallArguments) -> str:
    return f"finished: {event.outcome} after {counted(event.iterations, 'iteration')}"


def _generic(event: Any, _: _CallArguments) -> str:
    if attrs.has(type(event)):
        fields = {f.name: getattr(event, f.name) for f in attrs.fields(type(event))}
    else:
        fields = dict(vars(event))
    shown = [
        f"{name}={_json(value)}"
        for name, value in sorted(fields.items())
        if name not in VOLATILE_FIELDS and not name.startswith("_")
    ]
    return f"  {event.type}: {', '.join(shown)}" if shown else f"  {event.type}"


_Writer = Callable[[Any, _CallArguments], "str | None"]

_WRITERS: dict[str, _Writer] = {
    "run_started": lambda event, _: None,  # turn 1 shows the same tools
    "iteration_started": _iteration_started,
    "model_responded": _model_responded,
    "tool_started": lambda event, _: None,  # the call line comes once the tool returned
    "tool_called": _tool_called,
    # the text the model read: the call line says how it went, and tools' own output
    # (which may hold dates or ids) is not part of a design's trace
    "tool_answered": lambda event, _: None,
    "tool_not_found": _tool_not_found,
    "call_blocked": _call_blocked,
    "tools_unlocked": lambda event, _: f"  unlocked: {_names(event.names)}",
    "tools_hidden": lambda event, _: f"  hidden: {_names(event.names)}",
    "state_entered": _state_entered,
    "tools_injected": lambda e, _: f"  injected by {e.source}: {_names(e.names)}",
    "tools_removed": lambda e, _: f"  removed by {e.source}: {_names(e.names)}",
    "injection_skipped": lambda e, _: f"  injection skipped: {e.name} ({_one_line(e.reason)})",
    "injection_limit_reached": lambda e, _: (
        f"  not injected by {e.source} (limit of {e.limit} reached): {_names(e.names)}"
    ),
    "conversation_restarted": lambda e, _: (
        f"  restarted as conversation {e.conversation} | visible: {_names(e.tools)}"
    ),
    "output_rejected": lambda e, _: f"  output rejected: {_one_line(e.message)}",
    "run_finished": _run_finished,
}
