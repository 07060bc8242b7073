"""evaluate(): every task of a task file under every condition (flat, each design),
with a real model, concurrently up to a limit, each finished run kept in a journal.

>>> from statetools.models import ScriptedModel
>>> suite = load_tasks('''
... tools: [{name: ping, description: Ping the host}]
... tasks: [{id: up, prompt: Is the host up?, expect: [ping]}]
... ''')
>>> model = ScriptedModel([("ping", {}), "It is up."])
>>> report = evaluate(suite, model)
>>> report.summary("flat").successes, report.summary("flat").requests
(1, 2)
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from statetools.engine.events import CallBlocked, IterationStarted, ToolCalled, ToolNotFound
from statetools.engine.graph import disclosure_graph
from statetools.engine.run_result import LoopResult
from statetools.engine.tool_search import TOOL_SEARCH
from statetools.errors import StatetoolsError
from statetools.evaluation.canned import RESULTS_KEY, canned_tools
from statetools.evaluation.condition_models import (
    NativeLike,
    RecordingModel,
    native_model,
    native_twins,
)
from statetools.evaluation.records import Journal, RunRecord
from statetools.evaluation.report import EvalReport
from statetools.evaluation.tasks import Task, TaskSuite, expected_sequence, load_tasks
from statetools.loop.toolloop import ToolLoop
from statetools.messages import UserMessage, messages_to_json
from statetools.models.base import Model
from statetools.spec.design import Design, load_design
from statetools.spec.preflight import design_refused
from statetools.tools.tool import BaseTool

__all__ = [
    "FLAT",
    "EvalCondition",
    "Progress",
    "evaluate",
    "evaluate_async",
    "make_condition",
    "run_task",
]

FLAT = "flat"
"""The name of the condition that shows every tool of the catalogue in every request.

>>> EvalReport("m", (FLAT, "machine"), (), 1, ()).conditions[0]
'flat'
"""

DesignLike = str | os.PathLike[str] | Design | Sequence[Any] | None
"""A design: a file, a loaded Design, a list of tools and definitions, or None (flat)."""


@attrs.frozen
class EvalCondition:
    """One way of giving the model the tools: its name, what goes in ``tools=[...]``,
    an extra system prompt, the names of the tools that search (their calls are
    searches), and the model that runs it (None: the evaluation's model; a
    provider-native condition has its own, made with the provider's disclosure mode).

    >>> EvalCondition("flat", ()).searching
    frozenset()
    """

    name: str
    items: tuple[Any, ...]
    system_prompt: str | None = None
    searching: frozenset[str] = frozenset()
    model: Model | None = attrs.field(default=None, eq=False)


@attrs.frozen
class Progress:
    """Where an evaluation is: runs finished (``done`` of ``total``), the one that just
    finished, and how many were already in the journal when it started.

    >>> Progress(3, 10, None, resumed=2).done
    3
    """

    done: int
    total: int
    record: RunRecord | None
    resumed: int = 0


def _design_condition(name: str, design: Design, suite: TaskSuite) -> EvalCondition:
    report = design.check(token_budget=None)
    if report.errors:
        raise design_refused(report, design.source)
    items = tuple(design.tools if design.definitions else design.catalogue)
    graph = disclosure_graph(*items)
    searching = frozenset(n for n, facade in graph.facades.items() if facade.is_searchable)
    return EvalCondition(name, items, design.system_prompt, searching)


def _registry(suite: TaskSuite, extra: Iterable[BaseTool]) -> dict[str, BaseTool]:
    tools = {tool.name: tool for tool in extra}
    tools.update({tool.name: tool for tool in suite.catalogue})
    return canned_tools(list(tools.values()))


def make_condition(name: str, design: DesignLike, suite: TaskSuite) -> EvalCondition:
    """The condition ``name`` for a design file (its schema-only tools answer with the
    canned results), a Design, a list of items, or None for flat.

    >>> suite = load_tasks("tools: [{name: ping, description: P}]\\ntasks: [{id: a, prompt: Hi}]")
    >>> [tool.name for tool in make_condition("flat", None, suite).items]
    ['ping']
    """
    if design is None:
        if not suite.catalogue:
            raise StatetoolsError(
                "the flat condition needs the task file's tools",
                path=suite.source or "tasks",
                hint="add tools_from: CATALOGUE.json (or tools: [...]) to the task file",
            )
        return EvalCondition(name, tuple(_registry(suite, ()).values()))
    if isinstance(design, str | os.PathLike):
        path = Path(design)
        if not path.is_file():
            raise StatetoolsError(
                f"no such design file: {path}",
                path=f"design {name}",
                hint="write --design NAME=PATH with the path of a design YAML file",
            )
        bare = load_design(path, tools=_registry(suite, ()))  # for its tools_from tools
        design = load_design(path, tools=_registry(suite, bare.catalogue))
        return _design_condition(name, design, suite)
    if isinstance(design, Design):
        return _design_condition(name, design, suite)
    items = tuple(design)
    graph = disclosure_graph(*items)
    searching = frozenset(n for n, facade in graph.facades.items() if facade.is_searchable)
    return EvalCondition(name, items, None, searching)


def _conditions(
    suite: TaskSuite,
    designs: Mapping[str, DesignLike] | None,
    flat: bool,
    native: tuple[Model, str] | None = None,
) -> list[EvalCondition]:
    designs = dict(designs or {})
    if flat and FLAT not in designs:
        designs = {FLAT: None, **designs}
    if not designs:
        raise StatetoolsError(
            "nothing to compare: no design and no flat condition",
            path="evaluate",
            hint="pass designs={'NAME': 'design.yaml'} or flat=True",
        )
    conditions = [make_condition(name, design, suite) for name, design in designs.items()]
    if native is None:
        return conditions
    return [*conditions, *native_twins(conditions, designs, native)]


def _system_prompt(suite: TaskSuite, condition: EvalCondition) -> str | None:
    parts = [part for part in (suite.system_prompt, condition.system_prompt) if part]
    return "\n\n".join(parts) or None


def _judge(task: Task, result: LoopResult | None, calls: list[tuple[str, Any]]) -> str:
    reason = expected_sequence(task, calls) or ""
    if reason or task.check is None:
        return reason
    try:
        verdict = task.check(result, task)
    except AssertionError as failed:  # its first line: pytest adds the expression after it
        return str(failed).split("\n", 1)[0] or "the check failed"
    except Exception as exc:  # the user's check itself is broken
        return f"the check raised {type(exc).__name__}: {exc}"
    return "the check failed" if verdict is False else ""


async def run_task(
    model: Model,
    suite: TaskSuite,
    condition: EvalCondition,
    task: Task,
    repeat: int = 0,
    *,
    clock: Callable[[], float] = time.perf_counter,
) -> RunRecord:
    """Run one task under one condition, turn after turn, and judge it.

    >>> from statetools.models import ScriptedModel
    >>> suite = load_tasks("tools: [{name: ping, description: P}]\\ntasks: [{id: a, prompt: Hi}]")
    >>> record = asyncio.run(run_task(ScriptedModel(["Hello."]), suite,
    ...                               make_condition("flat", None, suite), suite.tasks[0]))
    >>> record.success, record.output
    (True, 'Hello.')
    """
    watched = RecordingModel(condition.model or model)
    loop = ToolLoop(
        watched,
        system_prompt=_system_prompt(suite, condition),
        max_iterations=task.max_iterations or suite.max_iterations,
    )
    context = {RESULTS_KEY: task.results.over(suite.results)}
    expected = set(task.expected_tools)
    result: LoopResult | None = None
    error: BaseException | None = None
    counts = {"blocked": 0, "unknown": 0, "tool_errors": 0, "searches": 0, "misses": 0}
    calls: list[tuple[str, Any]] = []
    started = clock()
    for turn in task.turns:
        prompt: Any = turn if result is None else [*result.messages, UserMessage(turn)]
        state = None if result is None else result.state
        try:
            result = await loop.arun(prompt, tools=condition.items, context=context, state=state)
            events = result.trace.events
        except Exception as exc:  # a run-ending error, or a broken condition
            error = exc
            partial = getattr(exc, "result", None)
            result = partial if isinstance(partial, LoopResult) else result
            events = partial.trace.events if isinstance(partial, LoopResult) else ()
        shown = {e.iteration: set(e.tools) for e in events if isinstance(e, IterationStarted)}
        for event in events:
            if isinstance(event, ToolCalled):
                calls.append((event.name, dict(event.arguments)))
                counts["tool_errors"] += event.outcome == "error"
                if event.name in condition.searching:
                    counts["searches"] += 1
                    loaded = event.arguments.get("names")  # what a hosted search loaded
                    if event.name == TOOL_SEARCH and isinstance(loaded, list):
                        counts["misses"] += not set(loaded) & expected
                    else:
                        before = shown.get(event.iteration, set())
                        after = shown.get(event.iteration + 1, before)
                        counts["misses"] += not (after - before) & expected
            elif isinstance(event, CallBlocked):
                counts["blocked"] += 1
            elif isinstance(event, ToolNotFound):
                counts["unknown"] += 1
        if error is not None:
            break
    wall = clock() - started
    for request in watched.requests:  # a provider's own search (Anthropic's server-side)
        if request.found:
            counts["searches"] += 1
            counts["misses"] += not set(request.found) & expected
    seen = {name for request in watched.requests for name in (*request.tools, *request.found)}
    reason = _judge(task, result, calls)
    usage = [request for request in watched.requests if request.prompt_tokens]
    return RunRecord(
        condition.name,
        task.id,
        repeat,
        success=not reason,
        reason=reason,
        requests=len(watched.requests),
        tool_tokens=sum(request.tool_tokens for request in watched.requests),
        first_tool_tokens=watched.requests[0].tool_tokens if watched.requests else 0,
        prompt_tokens=sum(r.prompt_tokens for r in usage),
        completion_tokens=sum(r.completion_tokens for r in watched.requests),
        cached_tokens=sum(r.cached_tokens for r in watched.requests),
        usage_reported=len(usage),
        calls=tuple(calls),
        blocked=counts["blocked"],
        unknown=counts["unknown"],
        tool_errors=counts["tool_errors"],
        searches=counts["searches"],
        search_misses=counts["misses"],
        never_found=tuple(name for name in task.expected_tools if name not in seen),
        error=None if error is None else type(error).__name__,
        error_message="" if error is None else str(error),
        output="" if result is None or error is not None else str(result.output),
        wall=round(wall, 3),
        messages=tuple(messages_to_json(result.messages)) if result is not None else (),
    )


def _model(model: Model | str, options: Mapping[str, Any]) -> tuple[Model, str]:
    if isinstance(model, str):
        from statetools.models.model_strings import parse, resolve

        provider, _ = parse(model)
        return resolve(model, **({} if provider == "scripted" else dict(options))), model
    return model, str(getattr(model, "where", type(model).__name__))


async def evaluate_async(
    tasks: TaskSuite | str | os.PathLike[str],
    model: Model | str,
    designs: Mapping[str, DesignLike] | None = None,
    *,
    flat: bool = True,
    repeat: int = 1,
    concurrency: int = 4,
    journal: str | os.PathLike[str] | None = None,
    progress: Callable[[Progress], None] | None = None,
    model_options: Mapping[str, Any] | None = None,
    native: NativeLike = None,
    clock: Callable[[], float] = time.perf_counter,
) -> EvalReport:
    """:func:`evaluate` in async code (same parameters).

    >>> from statetools.models import ScriptedModel
    >>> suite = load_tasks("tools: [{name: ping, description: P}]\\ntasks: [{id: a, prompt: Hi}]")
    >>> asyncio.run(evaluate_async(suite, ScriptedModel(["Hello."]))).summary("flat").runs
    1
    """
    suite = tasks if isinstance(tasks, TaskSuite) else load_tasks(tasks)
    if repeat < 1 or concurrency < 1:
        raise StatetoolsError(
            "repeat and concurrency must be at least 1", path="evaluate", hint="pass 1 or more"
        )
    options = {"temperature": 0} if model_options is None else dict(model_options)
    resolved, label = _model(model, options)
    native_run = native_model(native, model, options)
    conditions = _conditions(suite, designs, flat, native_run)
    keys = [
        (condition, task, number)
        for number in range(repeat)
        for condition in conditions
        for task in suite.tasks
    ]
    with Journal.open(journal, model=label) as kept:
        pending = [k for k in keys if (k[0].name, k[1].id, k[2]) not in kept.done]
        resumed = len(keys) - len(pending)
        limit = asyncio.Semaphore(concurrency)
        done = resumed
        if progress is not None:
            progress(Progress(done, len(keys), None, resumed))

        async def one(condition: EvalCondition, task: Task, number: int) -> RunRecord:
            async with limit:
                return await run_task(resolved, suite, condition, task, number, clock=clock)

        running = [asyncio.ensure_future(one(*key)) for key in pending]
        try:
            for finished in asyncio.as_completed(running):
                record = await finished
                kept.add(record)
                done += 1
                if progress is not None:
                    progress(Progress(done, len(keys), record, resumed))
        finally:
            for future in running:
                future.cancel()
            await asyncio.gather(*running, return_exceptions=True)
        records = [kept.done[(c.name, t.id, n)] for c, t, n in keys]
    return EvalReport(
        model=label,
        conditions=tuple(c.name for c in conditions),
        tasks=tuple(task.id for task in suite.tasks),
        repeat=repeat,
        records=tuple(records),
    )


def evaluate(
    tasks: TaskSuite | str | os.PathLike[str],
    model: Model | str,
    designs: Mapping[str, DesignLike] | None = None,
    **options: Any,
) -> EvalReport:
    """Run every task under every condition and compare them: ``flat`` (every tool of
    the task file's catalogue in every request; ``flat=False`` leaves it out) and each
    of ``designs`` (name -> design file, Design, or list of items). The same prompts go
    to each; a model string is made with ``temperature=0`` (``model_options`` replaces
    that). ``concurrency`` runs at once (4); ``repeat`` times each; ``journal`` (a
    path) keeps every finished run, and a later call with the same journal runs only
    what is missing; ``progress`` is called after every run. ``native=True`` adds, for
    each design, the condition ``DESIGN+MODE``: the design run with the provider's own
    disclosure mode (``tool_search`` for ``openai:`` and ``anthropic:`` model strings;
    ``native="deferred"`` or ``"allowed_tools"`` picks another, ``native=model`` a model
    made with one); a model that cannot run one (a local server through
    ``openai-chat:`` and a base URL) is refused before anything runs.

    >>> report = evaluate("tasks.yaml", "openai-chat:qwen", {"machine": "desk.yaml"},
    ...                   model_options={"base_url": "http://127.0.0.1:8080/v1"})  # doctest: +SKIP
    >>> print(report.table())  # doctest: +SKIP
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(evaluate_async(tasks, model, designs, **options))
    raise StatetoolsError(
        "evaluate() was called inside a running event loop",
        path="evaluate",
        hint="use 'await evaluate_async(...)' in async code",
    )
