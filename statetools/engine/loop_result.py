"""LoopResult: everything a run produced."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from statetools.engine.events import Trace
from statetools.messages import Message
from statetools.models.base import Usage
from statetools.wording import counted

if TYPE_CHECKING:
    from statetools.engine.state import DisclosureState


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
