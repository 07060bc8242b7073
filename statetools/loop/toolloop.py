"""ToolLoop: talks to a model, runs the tools it calls, and keeps the tool set current;
and SimpleAgenticTool, an agentic tool that runs its task in a :class:`ToolLoop`."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

import attrs

from statetools.definitions.agentic import AgenticTool
from statetools.definitions.chaining import Chaining
from statetools.engine import Conversation
from statetools.engine.answers import MAX_MISSES_IN_A_ROW as MAX_MISSES_IN_A_ROW
from statetools.engine.answers import MAX_RESTARTS as MAX_RESTARTS
from statetools.engine.answers import RUNNING
from statetools.engine.bindings import Resolver
from statetools.engine.events import Event, Listener
from statetools.engine.run_result import LoopResult, StreamEvent
from statetools.engine.scheduler import DISCOVERY_LIMIT, Visibility
from statetools.engine.state import DisclosureState
from statetools.engine.strategies import ToolInjectionStrategy, chain
from statetools.errors import StatetoolsError
from statetools.loop.host import drive
from statetools.loop.sessions import Session, SessionStore
from statetools.loop.streaming import RunStream
from statetools.messages import Message
from statetools.models.base import Model
from statetools.tools.context import RUN_ID_KEY, LoopFactory, RunEnd, ToolCallContext
from statetools.tools.tool import check_timeout


def model_of(model: Model | str) -> Model:
    """The model itself, or the model a ``provider:name`` string names (see
    :func:`statetools.models.resolve`); anything else is refused at once.

    >>> model_of("nope:x")
    Traceback (most recent call last):
    statetools.errors.StatetoolsError: model: unknown model provider 'nope' in 'nope:x' ...
    """
    if isinstance(model, str):
        from statetools.models.model_strings import resolve

        return resolve(model)
    if not isinstance(model, Model):
        raise StatetoolsError(
            f"cannot use {type(model).__name__} as a model",
            path="ToolLoop",
            hint="pass a Model (e.g. statetools.models.OpenAIChatModel(...)) or a string "
            "such as 'openai:gpt-4o-mini'",
        )
    return model


class ToolLoop:
    """Runs a conversation: asks the model, executes its tool calls, repeats.

    The tools the model sees can change between model calls (strategies, unlocks,
    facades) without losing history; every tool call id is answered exactly once.

    >>> from statetools.models import ScriptedModel
    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> model = ScriptedModel([("add", {"a": 2, "b": 3}), "2 + 3 = 5"])
    >>> loop = ToolLoop(model)
    >>> loop.run("What is 2 + 3?", tools=[add]).output
    '2 + 3 = 5'
    """

    def __init__(
        self,
        model: Model | str,
        *,
        max_iterations: int = 20,
        listeners: Sequence[Listener] = (),
        visibility: Visibility = "hidden",
        strategies: Sequence[ToolInjectionStrategy] = (),
        system_prompt: str | None = None,
        end_on_final_state: bool = False,
        clock: Callable[[], float] = time.perf_counter,
        id_factory: Callable[[], str] = lambda: uuid.uuid4().hex,
        chaining: Sequence[Chaining] = (),
        max_discovered_tools: int = DISCOVERY_LIMIT,
        check_design: bool = True,
        tool_timeout: float | None = None,
        instances: Resolver | None = None,
    ) -> None:
        if max_iterations < 1:
            raise StatetoolsError("max_iterations must be at least 1", path="ToolLoop")
        if visibility not in ("hidden", "declared"):
            raise StatetoolsError(
                f"unknown visibility {visibility!r}",
                path="ToolLoop",
                hint="use 'hidden' or 'declared'",
            )
        self.model = model_of(model)
        self.max_iterations = max_iterations
        self.listeners = tuple(listeners)
        self.visibility = visibility
        self.strategy = chain(list(strategies))
        self.system_prompt = system_prompt
        self.end_on_final_state = end_on_final_state
        self.clock = clock
        self.id_factory = id_factory
        self.chaining = tuple(chaining)
        self.max_discovered_tools = max_discovered_tools
        self.check_design = check_design
        """Run the design checks that definitions ask for before a run starts
        (definitions loaded from YAML refuse designs with ``check`` errors)."""
        self.tool_timeout = check_timeout(tool_timeout, "ToolLoop(tool_timeout=...)")
        self.last_result: LoopResult | None = None
        """The result of the latest run of this loop that ended, however it ended
        (with concurrent runs: whichever ended last)."""
        self.instances = instances
        """Finds bound objects again when a run resumes: ``(type key, id) -> object``."""

    def with_tool_chaining_from(
        self,
        source: type,
        predicate: Callable[[Any], bool] | None = None,
        *,
        id_attribute: str = "id",
    ) -> ToolLoop:
        """A copy of this loop whose runs declare the ``@llm_tool`` methods of
        ``source`` as tools, bound to the latest ``source`` object a tool returned (for
        which ``predicate`` holds). See docs/chaining.md.

        >>> ToolLoop(model).with_tool_chaining_from(Repo)  # doctest: +SKIP
        """
        loop = copy.copy(self)
        loop.chaining = (
            *self.chaining,
            Chaining.from_type(source, predicate, id_attribute=id_attribute),
        )
        return loop

    def with_tool_chaining_from_any(
        self, predicate: Callable[[Any], bool] | None = None, *, id_attribute: str = "id"
    ) -> ToolLoop:
        """A copy of this loop whose runs turn any returned object with ``@llm_tool``
        methods into tools (a newer object replaces the previous one's tools).

        >>> ToolLoop(model).with_tool_chaining_from_any()  # doctest: +SKIP
        """
        loop = copy.copy(self)
        loop.chaining = (*self.chaining, Chaining.any(predicate, id_attribute=id_attribute))
        return loop

    def run(
        self,
        prompt: str | Sequence[Message] | None,
        *,
        tools: Sequence[Any] = (),
        output_type: Any = None,
        context: Mapping[str, Any] | None = None,
        state: DisclosureState | None = None,
        session: str | None = None,
        store: SessionStore | None = None,
    ) -> LoopResult:
        """Run to the final answer (synchronously). See :meth:`arun`.

        Ctrl-C cancels the run (asyncio's own handling); ``run`` then raises
        ``KeyboardInterrupt`` carrying the run so far as ``.result``.


        >>> loop = ToolLoop(st.models.ScriptedModel([("ping", {}), "The host is up."]))
        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> result = loop.run("Is the host up?", tools=[ping])
        >>> result.output, result.iterations
        ('The host is up.', 2)
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            ended: list[LoopResult] = []
            events = self._events(prompt, tools, output_type, context, state, session, store, ended)
            try:
                return asyncio.run(RunStream(events, ended).drain())
            except KeyboardInterrupt as interrupt:
                if ended and getattr(interrupt, "result", None) is None:
                    interrupt.result = ended[-1]  # type: ignore[attr-defined]
                raise
        raise StatetoolsError(
            "ToolLoop.run() was called inside a running event loop",
            path="ToolLoop.run",
            hint="use 'await loop.arun(...)' in async code",
        )

    async def arun(
        self,
        prompt: str | Sequence[Message] | None,
        *,
        tools: Sequence[Any] = (),
        output_type: Any = None,
        context: Mapping[str, Any] | None = None,
        state: DisclosureState | None = None,
        session: str | None = None,
        store: SessionStore | None = None,
    ) -> LoopResult:
        """Run to the final answer.

        ``prompt`` is the user's text or a whole message history. ``output_type`` (an
        attrs class, dataclass, or other type cattrs can build) makes the final answer
        parsed from JSON. ``context`` reaches every handler that asks for a
        :class:`ToolCallContext`. ``state`` resumes from an earlier ``result.state``.

        Raises :class:`MaxIterationsExceeded`, :class:`ToolNotFoundError`,
        :class:`OutputValidationError` or :class:`ProviderError`; each carries ``.result``.

        When the task running ``arun`` is cancelled, or a handler, a listener or the
        model raises ``KeyboardInterrupt``, ``SystemExit`` or any other exception that
        is not an ``Exception`` (``GeneratorExit``, a test framework's failure, say),
        every open tool call is answered, the
        listeners get ``RunFinished`` with outcome ``cancelled`` (or ``interrupted``),
        and that very exception is raised again carrying the run so far as ``.result``
        (also kept as ``loop.last_result``).

        ``session`` and ``store`` (a :class:`~statetools.SqliteStore`, say) save the run
        after every model response and every answered call. Calling again with the same
        session continues it: ``prompt=None`` goes on from the last saved step (calls
        that had no saved answer run again; saved ones never do), a text is a new user
        message. A finished session called with ``None`` gives its saved result.


        >>> loop = ToolLoop(st.models.ScriptedModel([("ping", {}), "The host is up."]))
        >>> ping = Tool.create("ping", "Ping the host", lambda: "pong")
        >>> import asyncio
        >>> result = asyncio.run(loop.arun("Is the host up?", tools=[ping]))
        >>> [message.role for message in result.messages]
        ['user', 'assistant', 'tool', 'assistant']
        """
        ended: list[LoopResult] = []
        events = self._events(prompt, tools, output_type, context, state, session, store, ended)
        return await RunStream(events, ended).drain()

    async def _events(
        self,
        prompt: str | Sequence[Message] | None,
        tools: Sequence[Any],
        output_type: Any,
        context: Mapping[str, Any] | None,
        state: DisclosureState | None,
        session_id: str | None,
        store: SessionStore | None,
        ended: list[LoopResult],
        streaming: bool = False,
    ) -> AsyncGenerator[StreamEvent, None]:
        """The run as its events, in order (with what the model streams when
        ``streaming``); the result it ended with is appended to ``ended``."""
        session = Session.of(session_id, store)
        saved = session.begin(prompt, state) if session is not None else None
        if saved is not None and prompt is None and saved.result.outcome != RUNNING:
            ended.append(saved.result)  # a finished session, asked for nothing new
            return
        if saved is None and prompt is None:
            raise StatetoolsError(
                "a run needs a prompt",
                path="ToolLoop.run",
                hint="pass the user's text (prompt=None only continues a saved session)",
            )
        run_id = saved.run_id if saved is not None else self.id_factory()
        run_end = RunEnd()
        caller = context if isinstance(context, ToolCallContext) else None
        run_context = (
            ToolCallContext(
                context or {},
                loop_factory=ToolLoop,
                blackboard=caller.blackboard if caller is not None else None,
                relay=caller.relay if caller is not None else None,
            )
            .merge({RUN_ID_KEY: run_id})
            .with_run_end(run_end)
        )
        heard: list[Event] = []
        conversation: Conversation | None = None
        try:
            conversation = Conversation(
                tools,
                prompt if saved is None else None,
                state=state,
                so_far=saved.result if saved is not None else None,
                output_type=output_type,
                system_prompt=self.system_prompt,
                max_iterations=self.max_iterations,
                visibility=self.visibility,
                strategies=(self.strategy,) if self.strategy is not None else (),
                end_on_final_state=self.end_on_final_state,
                chaining=self.chaining,
                max_discovered_tools=self.max_discovered_tools,
                instances=self.instances,
                capabilities=self.model.capabilities,
                context=run_context,
                listeners=(heard.append, *self.listeners) if streaming else self.listeners,
                clock=self.clock,
                check_design=self.check_design,
                save=session.saver(run_id) if session is not None else None,
                start=False,
            )
            running = saved is not None and saved.result.outcome == RUNNING
            events = drive(
                conversation,
                self.model,
                heard,
                tool_timeout=self.tool_timeout,
                streaming=streaming,
                saved=saved is not None,
                running=running,
                prompt=prompt,
            )
            async with contextlib.aclosing(events):
                async for event in events:
                    yield event
        finally:
            if conversation is not None and conversation.record.ended is not None:
                self.last_result = conversation.record.ended
                ended.append(conversation.record.ended)
            await run_end.aclose()

    def stream(
        self,
        prompt: str | Sequence[Message] | None,
        *,
        tools: Sequence[Any] = (),
        output_type: Any = None,
        context: Mapping[str, Any] | None = None,
        state: DisclosureState | None = None,
        session: str | None = None,
        store: SessionStore | None = None,
    ) -> RunStream:
        """Run as :meth:`arun` does (same parameters), as an async iterable of events.

        It yields the run's events and, as the model streams, :class:`TextDelta` and
        :class:`ToolCallStarted`; afterwards ``.result`` is the :class:`LoopResult`. A
        model that cannot stream sends its whole text as one delta. The trace is the
        one a run without streaming would have.

        >>> from statetools.models import ScriptedModel
        >>> async def main() -> None:
        ...     stream = ToolLoop(ScriptedModel(["Hello!"])).stream("Hi")
        ...     async for event in stream:
        ...         if event.type == "text_delta":
        ...             print(event.text)
        ...     print(stream.result.output)
        >>> asyncio.run(main())
        Hello!
        Hello!
        """
        ended: list[LoopResult] = []
        events = self._events(
            prompt, tools, output_type, context, state, session, store, ended, True
        )
        return RunStream(events, ended)


@attrs.frozen(init=False)
class SimpleAgenticTool(AgenticTool):
    """A tool that delegates its task to a nested :class:`ToolLoop` over its own tools
    and model, inside a run or on its own.

    The tools may include playbooks and state machines; they are disclosed inside the
    nested conversation by the same scheduler as at the top level. The nested run's
    :class:`~statetools.engine.run_result.LoopResult` is kept as the result's ``value``.
    The nested run shares the caller's blackboard (both ways), and its events reach the
    caller's listeners as :class:`~statetools.NestedEvent` (see docs/playbooks.md).

    >>> from statetools.models import ScriptedModel
    >>> def search(query: str) -> str:
    ...     '''Search the web.'''
    ...     return "Tides follow the moon."
    >>> model = ScriptedModel([("search", {"query": "tides"}), "The moon causes tides."])
    >>> helper = SimpleAgenticTool("researcher", "Researches a topic").with_tools(search)
    >>> helper.with_model(model).call({"task": "Why are there tides?"}).text
    'The moon causes tides.'
    """

    def default_loop_factory(self) -> LoopFactory:
        """:class:`ToolLoop`, so the tool also runs when called outside a run.

        >>> SimpleAgenticTool("helper", "Helps").default_loop_factory() is ToolLoop
        True
        """
        return ToolLoop
