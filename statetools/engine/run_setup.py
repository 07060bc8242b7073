"""A run set up from what a host passes: the scheduler over its items, the context its
tools get, the record of the run so far, the sections' prompt in the history.

:class:`~statetools.engine.Conversation` sets its run up here (:func:`set_up`), holds
the :class:`RunParts` it gets and drives the run with them; the options are described
on it (see docs/engine.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any
from uuid import uuid4

import attrs

from statetools.blackboard import Blackboard
from statetools.definitions.chaining import Chaining
from statetools.engine.bindings import Resolver
from statetools.engine.events import Event, Listener, RunStarted
from statetools.engine.facades import Replay
from statetools.engine.listeners import forward_to
from statetools.engine.model_search import (
    refusal_wording,
    restorer,
    search_room,
    with_search_room,
    with_search_tool,
)
from statetools.engine.prompt_sections import place_prompt
from statetools.engine.record import RunRecord, initial_messages
from statetools.engine.run_result import LoopResult
from statetools.engine.scheduler import Scheduler, Visibility
from statetools.engine.state import DisclosureState
from statetools.engine.steps import apply_strategy
from statetools.engine.strategies import ToolInjectionStrategy, chain
from statetools.engine.tool_search import SearchRoom
from statetools.errors import RunError, StatetoolsError
from statetools.messages import Message, ToolCall
from statetools.models.base import ModelCapabilities
from statetools.tools.calling import ToolResult
from statetools.tools.context import RUN_ID_KEY, ToolCallContext

__all__ = ["RunParts", "set_up"]


@attrs.frozen
class RunParts:
    """The parts of one run, set up once from its items and options (:func:`set_up`);
    a :class:`~statetools.engine.Conversation` holds them (``conv.parts``) and drives
    the run with them.

    >>> from statetools.engine import Conversation
    >>> parts = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0).parts
    >>> [m.content for m in parts.record.messages], parts.context[RUN_ID_KEY]
    (['Hi'], 'r1')
    """

    scheduler: Scheduler
    """What the model may see and call now, over the run's items."""
    record: RunRecord
    """The run so far: history, trace, counters, and how it ended."""
    context: ToolCallContext
    """What the host passes to the tools it runs (``tool.acall(arguments, context)``)."""
    blackboard: Blackboard
    """The run's blackboard: the context's (a nested run shares its caller's), or new."""
    capabilities: ModelCapabilities
    """The model's capabilities, as the host gave them."""
    strategy: ToolInjectionStrategy | None
    """The run's injection strategies, chained into one (None without any)."""
    search_room: SearchRoom | None
    """The namespaces and searches of a model that searches tools itself, or None."""
    prompt_index: int | None
    """Where the system message of the run's sections is (see engine/prompt_sections.py)."""
    refusal: Callable[[str, str], str] | None
    """How the model's mode words a refusal (see :func:`refusal_wording`), or None."""
    after_call: Callable[[ToolCall, ToolResult], None] | None
    """What runs after each answered call: the injection strategies (None without any)."""
    saved_ending: tuple[str, Any] | None
    """How a saved run had already come to end (``return_direct`` or ``final_state``)
    and its output, for a conversation that continues it; None otherwise."""

    def start(self) -> None:
        """Report that the run starts (``RunStarted``), with the tools visible now.

        >>> from statetools.engine import Conversation
        >>> conv = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0, start=False)
        >>> conv.parts.start()
        >>> conv.events
        [RunStarted(run_id='r1', at=0.0, tools=(), type='run_started')]
        """
        with self.record.failing():
            names = self.scheduler.shown().names
            run_id = str(self.context[RUN_ID_KEY])
            self.record.emit(RunStarted(run_id, self.record.clock(), names))


def set_up(
    items: Sequence[Any],
    prompt: str | Sequence[Message] | None,
    *,
    state: DisclosureState | None,
    so_far: LoopResult | None,
    system_prompt: str | None,
    visibility: Visibility,
    strategies: Sequence[ToolInjectionStrategy],
    chaining: Sequence[Chaining],
    max_discovered_tools: int,
    instances: Resolver | None,
    capabilities: ModelCapabilities | None,
    context: Mapping[str, Any] | None,
    run_id: str | None,
    listeners: Sequence[Listener],
    clock: Callable[[], float],
    check_design: bool,
    save: Callable[[LoopResult], None] | None,
    replay: Replay | None,
    wording: Callable[[RunError], str],
    events: Sequence[Event],
) -> RunParts:
    """Set a run up from :class:`~statetools.engine.Conversation`'s arguments (the same
    names; it passes every one): its scheduler, context, record and prompt.

    >>> from statetools.engine import Conversation
    >>> Conversation([], "Hi", run_id="r1").parts.record.iterations
    0
    """
    if so_far is not None:
        messages, state = list(so_far.messages), so_far.state
    elif prompt is None:
        raise StatetoolsError(
            "a conversation needs a prompt",
            path="Conversation",
            hint="pass the user's text or a history; so_far= continues a saved run",
        )
    else:
        messages = initial_messages(prompt, system_prompt)
    capabilities = capabilities if capabilities is not None else ModelCapabilities()
    strategy = chain(list(strategies))
    base = context if isinstance(context, ToolCallContext) else ToolCallContext(context or {})
    if RUN_ID_KEY not in base:
        base = base.merge({RUN_ID_KEY: run_id if run_id is not None else uuid4().hex})
    blackboard = base.blackboard if base.blackboard is not None else Blackboard()
    if base.relay is not None:  # a nested run: its events go to the outer listeners too
        listeners = (*listeners, forward_to(base.relay))
    record: RunRecord | None = None

    def relay(path: tuple[str, ...], event: Event) -> None:
        """Pass on an event of a nested run (the context's relay) to the record."""
        assert record is not None, "a tool ran before its run was set up"
        record.relay(path, event)

    run_context = base.with_blackboard(blackboard).with_relay(relay)
    items = with_search_tool(items, capabilities)  # the model searches; the run answers
    scheduler = Scheduler.for_items(
        (*items, *chaining) if chaining else items,
        state,
        visibility=visibility,
        blackboard=blackboard,
        context=run_context,
        discovery_limit=max_discovered_tools,
        instances=instances,
        restore=restorer(capabilities, strategy),
        replay=replay,
    )
    room = search_room(scheduler, items, capabilities)
    record = RunRecord(
        messages,
        scheduler,
        state=state,
        events=so_far.trace.events if so_far is not None else events,
        usage=so_far.usage if so_far is not None else None,
        stop_reason=so_far.stop_reason if so_far is not None else None,
        listeners=listeners,
        clock=clock,
        save=save,
        catalogue=capabilities.declares_all_tools,
        wording=wording,
    )
    prompt_index, restart = place_prompt(
        scheduler, messages, not capabilities.supports_dynamic_tools
    )
    if restart:
        record.conversation_tools = ()  # differs from any tool set: restart first
    if check_design:
        for preflight in scheduler.graph.preflights:
            preflight(scheduler.graph)
    saved = so_far.state.loop.ending if so_far is not None else None
    return RunParts(
        scheduler,
        record,
        with_search_room(run_context, room),
        blackboard,
        capabilities,
        strategy,
        room,
        prompt_index,
        refusal_wording(scheduler, capabilities, room),
        partial(apply_strategy, record, strategy, blackboard) if strategy is not None else None,
        (saved, so_far.output) if so_far is not None and saved is not None else None,
    )
