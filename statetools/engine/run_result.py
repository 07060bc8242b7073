"""What a run gives back: the :class:`LoopResult`, the final answer read as a typed
value, and what ``loop.stream(...)`` yields besides the run's events (the model's text
as it arrives and the tool calls it begins; they are never in the trace).

>>> TextDelta(1, "Hel").text, ToolCallStarted(1, "call_1", "search").name
('Hel', 'search')
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Literal

import attrs

from statetools.engine.events import Event, Trace
from statetools.errors import OutputValidationError
from statetools.messages import Message
from statetools.models.base import Usage
from statetools.tools.convert import is_validation_error, make_json_converter, validation_problems
from statetools.tools.schema import type_schema
from statetools.tools.validation import argument_problems, make_validator
from statetools.wording import counted

if TYPE_CHECKING:
    from statetools.engine.state import DisclosureState

__all__ = [
    "LoopResult",
    "OutputProblem",
    "StreamEvent",
    "TextDelta",
    "ToolCallStarted",
    "correction_message",
    "parse_output",
    "unreadable_error",
]


@attrs.frozen
class LoopResult:
    """The outcome of a run (or, on an error, of the run so far).

    ``output``: the final answer (text, or a value of ``output_type``); ``messages``: the
    whole conversation; ``iterations``: model calls made; ``usage``: tokens summed over
    them; ``trace``: the run's events; ``state``: the disclosure state, from which a run
    can resume; ``outcome``: how the run ended (``answer``, ``return_direct``,
    ``final_state``, ``refusal``, ``cancelled``, ``interrupted``, or the name of the
    error that ended it), as in the last ``RunFinished`` event; ``stop_reason``: the
    stop reason of the last model response (``end_turn``, ``tool_use``, ``max_tokens``,
    ``refusal``, ``other``; None before any).

    >>> from statetools.models import ScriptedModel
    >>> result = ToolLoop(ScriptedModel(["Hello!"])).run("Hi")
    >>> result.output, result.iterations, [message.role for message in result.messages]
    ('Hello!', 1, ['user', 'assistant'])
    >>> result.outcome, result.stop_reason
    ('answer', 'end_turn')
    """

    output: Any
    messages: tuple[Message, ...] = attrs.field(repr=lambda m: f"<{counted(len(m), 'message')}>")
    iterations: int
    usage: Usage
    trace: Trace = attrs.field(repr=lambda t: f"<{counted(len(t.events), 'event')}>")
    state: DisclosureState = attrs.field(repr=False)
    outcome: str = "answer"
    stop_reason: str | None = None


@attrs.frozen
class TextDelta:
    """A piece of the answer's text as the model streams it (``loop.stream`` only;
    never in the trace: the whole text is in ``ModelResponded``).

    >>> import asyncio
    >>> def add(a: int, b: int) -> int:
    ...     "Add two numbers."
    ...     return a + b
    >>> model = st.models.ScriptedModel([("add", {"a": 2, "b": 3}), "5"])
    >>> async def main() -> None:
    ...     stream = ToolLoop(model).stream("2 + 3?", tools=[add])
    ...     async for event in stream:
    ...         if isinstance(event, TextDelta | ToolCallStarted):
    ...             print(event)
    ...     trace = stream.result.trace.events
    ...     print(stream.result.output, [e for e in trace if e.type.endswith("_started")])
    >>> asyncio.run(main())
    ToolCallStarted(iteration=1, call_id='call_1', name='add', type='tool_call_started')
    TextDelta(iteration=2, text='5', type='text_delta')
    5 [RunStarted(...), IterationStarted(...), IterationStarted(...)]
    """

    iteration: int
    text: str
    type: Literal["text_delta"] = "text_delta"


@attrs.frozen
class ToolCallStarted:
    """The model began a tool call whose name is known (``loop.stream`` only; never
    in the trace). :class:`TextDelta` shows both in a stream.

    >>> ToolCallStarted(1, "call_1", "search").name
    'search'
    """

    iteration: int
    call_id: str
    name: str
    type: Literal["tool_call_started"] = "tool_call_started"


StreamEvent = Event | TextDelta | ToolCallStarted
"""What ``loop.stream(...)`` yields: the run's events and the streaming ones.

>>> import asyncio
>>> async def types() -> list[str]:
...     stream = ToolLoop(st.models.ScriptedModel(["Hi!"])).stream("Hello", tools=[])
...     return [event.type async for event in stream]
>>> asyncio.run(types())
['run_started', 'iteration_started', 'text_delta', 'model_responded', 'run_finished']
"""


_FENCED = re.compile(r"```(?:json|JSON)?\s*\n(.*?)\n?```", re.DOTALL)
_converter = make_json_converter(forbid_extra_keys=True)


class OutputProblem(ValueError):
    """The answer could not be read; ``str(problem)`` says why, for the model."""


def parse_output(text: str, output_type: Any) -> Any:
    """``text`` as ``output_type``: str as is; anything else from JSON (also inside a
    fenced block) structured with cattrs (a pydantic model with its own validation).
    Raises :class:`OutputProblem`."""
    if output_type is None or output_type is str:
        return text
    candidate = text.strip()
    fenced = _FENCED.search(candidate)
    if fenced:
        candidate = fenced.group(1).strip()
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise OutputProblem(f"it is not valid JSON ({exc.msg} at position {exc.pos})") from exc
    except ValueError as exc:  # an integer past Python's digit limit
        raise OutputProblem("it holds a number too long to read") from exc
    except RecursionError as exc:
        raise OutputProblem("it is nested too deeply") from exc
    problems = argument_problems(make_validator(type_schema(output_type)), data, noun="field")
    if problems:
        raise OutputProblem("; ".join(problems))
    try:
        return _converter.structure(data, output_type)
    except Exception as exc:
        raise OutputProblem(_describe(exc)) from exc


def _describe(exc: BaseException) -> str:
    if is_validation_error(exc):
        return "; ".join(validation_problems(exc, "", noun="field"))
    inner = getattr(exc, "exceptions", None)
    if inner:
        notes = getattr(exc, "__notes__", None)
        return "; ".join(_describe(e) for e in inner) + (f" ({notes[0]})" if notes else "")
    notes = getattr(exc, "__notes__", None)
    message = str(exc)
    return f"{message} ({notes[0]})" if notes else message


def correction_message(problem: OutputProblem, output_type: Any) -> str:
    """What the model is told when its answer could not be read."""
    name = getattr(output_type, "__name__", str(output_type))
    schema = json.dumps(type_schema(output_type), separators=(",", ":"))
    return (
        f"Your answer could not be read as {name}: {problem}. "
        f"Answer again with only a JSON value matching this schema: {schema}"
    )


def unreadable_error(problem: OutputProblem, output_type: Any) -> OutputValidationError:
    """The error a run ends with when its final answer still cannot be read.

    >>> str(unreadable_error(OutputProblem("it is not valid JSON"), int))
    'output: the final answer is not a valid int: it is not valid JSON Hint: make the type \
easier to produce, or say more in the prompt'
    """
    name = getattr(output_type, "__name__", output_type)
    return OutputValidationError(
        f"the final answer is not a valid {name}: {problem}",
        path="output",
        hint="make the type easier to produce, or say more in the prompt",
    )
