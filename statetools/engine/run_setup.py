"""A run set up from what a host passes: the scheduler over its items, the context its
tools get, the record of the run so far, the sections' prompt in the history.

:class:`~statetools.engine.Conversation` drives a run set up here; the options are
described on it (see docs/engine.md).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from statetools.blackboard import Blackboard
from statetools.definitions.chaining import Chaining
from statetools.engine.bindings import Resolver
from statetools.engine.calls import Calls
from statetools.engine.events import Event, Listener, RunStarted
from statetools.engine.facades import Replay
from statetools.engine.listeners import forward_to
from statetools.engine.model_search import restorer, search_room, with_search_room, with_search_tool
from statetools.engine.prompt_sections import place_prompt
from statetools.engine.record import RunRecord, initial_messages
from statetools.engine.run_result import LoopResult
from statetools.engine.scheduler import DISCOVERY_LIMIT, Scheduler, Visibility
from statetools.engine.state import DisclosureState
from statetools.engine.strategies import ToolInjectionStrategy, chain
from statetools.engine.turn_request import Asked
from statetools.errors import RunError, StatetoolsError
from statetools.messages import Message
from statetools.models.base import ModelCapabilities
from statetools.tools.context import RUN_ID_KEY, ToolCallContext

__all__ = ["RunSetup"]


class RunSetup:
    """The parts of one run, set up from its items and options; :class:`Conversation`
    (which takes the same arguments) drives it.

    >>> setup = RunSetup([], "Hi", run_id="r1", clock=lambda: 0.0)
    >>> [m.content for m in setup.record.messages], setup.record.events[0].type
    (['Hi'], 'run_started')
    """

    def __init__(
        self,
        items: Sequence[Any],
        prompt: str | Sequence[Message] | None = None,
        *,
        state: DisclosureState | None = None,
        so_far: LoopResult | None = None,
        output_type: Any = None,
        system_prompt: str | None = None,
        max_iterations: int = 20,
        visibility: Visibility = "hidden",
        strategies: Sequence[ToolInjectionStrategy] = (),
        end_on_final_state: bool = False,
        chaining: Sequence[Chaining] = (),
        max_discovered_tools: int = DISCOVERY_LIMIT,
        instances: Resolver | None = None,
        capabilities: ModelCapabilities | None = None,
        context: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        listeners: Sequence[Listener] = (),
        clock: Callable[[], float] = time.perf_counter,
        check_design: bool = True,
        save: Callable[[LoopResult], None] | None = None,
        replay: Replay | None = None,
        start: bool = True,
        reads_output: bool = True,
        asked: int = 0,
        wording: Callable[[RunError], str] = str,
        events: Sequence[Event] = (),
    ) -> None:
        if max_iterations < 1:
            raise StatetoolsError("max_iterations must be at least 1", path="Conversation")
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
        self.output_type = output_type
        self.reads_output = reads_output
        self.max_iterations = max_iterations
        self.end_on_final_state = end_on_final_state
        capabilities = capabilities if capabilities is not None else ModelCapabilities()
        self.capabilities = capabilities
        self.strategy = chain(list(strategies))
        base = context if isinstance(context, ToolCallContext) else ToolCallContext(context or {})
        if RUN_ID_KEY not in base:
            base = base.merge({RUN_ID_KEY: run_id if run_id is not None else uuid.uuid4().hex})
        self.blackboard = base.blackboard if base.blackboard is not None else Blackboard()
        """The run's blackboard: the context's (a nested run shares its caller's), or new."""
        if base.relay is not None:  # a nested run: its events go to the outer listeners too
            listeners = (*listeners, forward_to(base.relay))
        self.context = base.with_blackboard(self.blackboard).with_relay(self._relay)
        """What the host passes to the tools it runs (``tool.acall(arguments, context)``)."""
        items = with_search_tool(items, capabilities)  # the model searches; the run answers
        self.scheduler = Scheduler.for_items(
            (*items, *chaining) if chaining else items,
            state,
            visibility=visibility,
            blackboard=self.blackboard,
            context=self.context,
            discovery_limit=max_discovered_tools,
            instances=instances,
            restore=restorer(capabilities, self.strategy),
            replay=replay,
        )
        self.search_room = search_room(self.scheduler, items, capabilities)
        """The namespaces and searches of a model that searches tools itself, or None."""
        self.context = with_search_room(self.context, self.search_room)
        self.record = RunRecord(
            messages,
            self.scheduler,
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
        """The run so far: history, trace, counters, and how it ended."""
        static = not capabilities.supports_dynamic_tools
        self.prompt_index, restart = place_prompt(self.scheduler, messages, static)
        """Where the system message of the run's sections is (see engine/prompt_sections.py)."""
        if restart:
            self.record.conversation_tools = ()  # differs from any tool set: restart first
        if check_design:
            graph = self.scheduler.graph
            for preflight in graph.preflights:
                preflight(graph)
        self._saved_ending = (
            (so_far.state.loop.ending, so_far.output)
            if so_far is not None and so_far.state.loop.ending is not None
            else None
        )
        self._first = self.record.iterations - asked
        self._unread: str | None = None
        self._asked: Asked | None = None
        self._calls: Calls | None = None
        if start and so_far is None:
            self.start()

    def _relay(self, path: tuple[str, ...], event: Event) -> None:
        """Pass on an event of a nested run (its context's relay) to the record."""
        self.record.relay(path, event)

    def start(self) -> None:
        """Report that a run starts (``RunStarted``), with the tools visible now: a new
        conversation does it itself; a host continuing a saved one calls it.

        >>> from statetools.engine import Conversation
        >>> conv = Conversation([], "Hi", run_id="r1", clock=lambda: 0.0)
        >>> conv.events[0]
        RunStarted(run_id='r1', at=0.0, tools=(), type='run_started')
        """
        with self.record.failing():
            names = self.scheduler.shown().names
            run_id = str(self.context[RUN_ID_KEY])
            self.record.emit(RunStarted(run_id, self.record.clock(), names))
