"""What a call changes: the scheduler's bookkeeping after each call, tools added or
removed at run time, and those tools found again when a run resumes.

These functions work on the two parts a :class:`~statetools.engine.scheduler.Scheduler`
owns, what its run has done (:class:`~statetools.engine.run_facts.RunFacts`) and what it
shows (:class:`~statetools.engine.visible_tools.VisibleTools`), given to each call;
they keep nothing themselves, and the graph is only read. :func:`note_call` notes a
call's effects (call counts, artifacts and blackboard values seen, the transition it
fires, the facade it unfolds, the objects it binds or discovers) and re-evaluates only
the tools whose conditions depend on them (:func:`refresh`). A resumed run gets the
tools added at run time back from their objects or strategies, and says what cannot
come back (never silently lost: :func:`restore_added_tools`).

>>> ping = Tool.create("ping", "Ping", lambda: "pong")
>>> after = Tool.create("after", "After a ping", lambda: "ok")
>>> playbook = PlaybookTool("p", "P").with_tool(ping).with_tool(after).unlocked_by(ping)
>>> scheduler = Scheduler.for_items([playbook])
>>> scheduler.record(ToolCall("call_1", "ping"), ToolResult.text("pong")).unlocked
('after',)
>>> scheduler.remove(["after"]), [tool.name for tool in scheduler.visible()]
(['after'], ['ping'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from statetools.definitions.unfold_call import Loaded
from statetools.definitions.unfolding import Unfolded
from statetools.engine.bindings import Bindings, Plan, Resolver
from statetools.engine.facades import unfolded_value
from statetools.engine.graph import DisclosureGraph
from statetools.engine.run_facts import CallRecord, Injected, RunFacts
from statetools.engine.state import DisclosureState
from statetools.engine.visibility import shows
from statetools.engine.visible_tools import VisibleTools
from statetools.messages import ToolCall
from statetools.tools.calling import ToolResult
from statetools.tools.tool import BaseTool

__all__ = [
    "add_tools",
    "available",
    "known",
    "note_call",
    "refresh",
    "remove_tools",
    "restore_added_tools",
    "tool_of",
]


def known(graph: DisclosureGraph, facts: RunFacts, name: str) -> bool:
    """Whether ``name`` is a tool of the definitions (registered, or built by a facade's
    selector in this run)."""
    return name in graph.entries or name in facts.unfolding.built


def available(graph: DisclosureGraph, facts: RunFacts, name: str) -> bool:
    """Shown now (the rule of :mod:`~statetools.engine.visibility`, which
    ``explore()`` shares); tools added at run time always are."""
    return name in facts.dynamic or shows(graph.entries, name, facts, graph.places)


def tool_of(graph: DisclosureGraph, facts: RunFacts, name: str) -> BaseTool:
    """The tool shown for ``name``: added at run time, built or revealed by a facade,
    or registered."""
    dynamic = facts.dynamic.get(name)
    if dynamic is not None:
        return dynamic
    return facts.unfolding.tool_of(name) if facts.facades else graph.entries[name].tool


def refresh(
    graph: DisclosureGraph, facts: RunFacts, visible: VisibleTools, names: Iterable[str]
) -> tuple[list[str], list[str]]:
    """Re-evaluate ``names`` (and what the facades revealed with them): returns the
    names that showed and the names that hid."""
    shown: list[str] = []
    hidden: list[str] = []
    unfolding = facts.unfolding
    if facts.facades:
        names = unfolding.with_revealed(names)
    entries, built, places, dynamic = graph.entries, unfolding.built, graph.places, facts.dynamic
    # Registered tools in registration order, then tools built by selectors.
    position, later = graph.position, unfolding.position
    if later:
        last = len(position)
        ordered = sorted(
            (name for name in names if name in entries or name in built),
            key=lambda name: position[name] if name in position else later.get(name, last),
        )
    else:  # nothing built: every tool to look at is registered
        ordered = sorted([name for name in names if name in entries], key=position.__getitem__)
    for name in ordered:
        now = name in dynamic or shows(entries, name, facts, places)  # as available()
        if now and name not in visible:
            tool = built.get(name)
            visible.show(name, tool if tool is not None else entries[name].tool)
            shown.append(name)
        elif not now and name in visible and name not in dynamic:
            visible.hide(name)
            hidden.append(name)
    return shown, hidden


def note_call(
    graph: DisclosureGraph,
    facts: RunFacts,
    visible: VisibleTools,
    call: ToolCall,
    result: ToolResult,
    record: CallRecord,
) -> None:
    """Note what ``call`` (which ran with ``result``) did to the run's facts, collecting
    in ``record`` the tools to re-evaluate, the states entered, the objects bound.

    Failed calls count for nothing: they do not satisfy ``After`` nor transition.
    A facade's result unfolds it; objects in a result may bind chained tools or
    add discovered ones.
    """
    if isinstance(result.value, Loaded) and call.name not in graph.facades:
        for each in result.value.unfolds:  # a model's search loaded these facades' tools
            if facts.facades and each.facade in graph.facades:
                _unfold(graph, facts, visible, each, record)
    unfolded = unfolded_value(result) if facts.facades else None
    if unfolded is not None and unfolded.facade == call.name and call.name in graph.facades:
        _unfold(graph, facts, visible, unfolded, record)
        _move(graph, facts, call.name, result, record)  # unfolding counts as the facade's call
        if unfolded.direct is not None:
            direct = unfolded.direct
            direct_call = ToolCall(call.id, direct.name, direct.arguments)
            note_call(graph, facts, visible, direct_call, direct.result, record)
        return
    if result.is_error:
        return
    name = call.name
    counts = facts.counts
    counts[name] = counts.get(name, 0) + 1
    record.affected |= graph.dependents_of_call(name)
    if result.has_value:
        if graph.artifact_keys:
            record.affected |= facts.produced(graph, result.value)
        for plan in facts.bindings.observe(result.value, name):
            injected = _apply(graph, facts, visible, plan)
            record.injected.append(injected)
            record.opened.extend([*injected.added, *plan.usable])
    _move(graph, facts, name, result, record)


def _move(
    graph: DisclosureGraph, facts: RunFacts, name: str, result: ToolResult, record: CallRecord
) -> None:
    """Take the transition a successful call of ``name`` fires in its machine."""
    entry = graph.entries.get(name)
    if entry is not None and entry.machine is not None:
        change = facts.transition(graph, entry.machine, name, result)
        if change is not None:
            record.entered.append(change)
            record.affected |= graph.tools_in_state(change.machine, change.previous)
            record.affected |= graph.tools_in_state(change.machine, change.state)
            record.affected |= graph.dependents_of_machine(change.machine)


def _unfold(
    graph: DisclosureGraph,
    facts: RunFacts,
    visible: VisibleTools,
    unfolded: Unfolded,
    record: CallRecord,
) -> None:
    name = unfolded.facade
    unfolding, dynamic = facts.unfolding, facts.dynamic
    changed, skipped, started = unfolding.apply(unfolded, dynamic.__contains__)
    facts.count(name)
    record.affected |= set(changed) | graph.dependents_of_call(name)
    if unfolded.listed:
        record.listed.update(unfolded.names)
    if graph.facades[name].swaps:  # the full form moves to the end, in place
        for swapped in unfolded.names:
            shown = visible.get(swapped)
            if shown is not None and shown is not (full := unfolding.tool_of(swapped)):
                visible.move_to_end(swapped, full)
    if skipped:
        record.injected.append(Injected(name, skipped=tuple(skipped)))
    if started:
        record.affected |= set(visible)
        away = [n for n in dynamic if not unfolding.in_scope(n)]
        record.hidden.extend(remove_tools(graph, facts, visible, away))


def _apply(graph: DisclosureGraph, facts: RunFacts, visible: VisibleTools, plan: Plan) -> Injected:
    removed = remove_tools(graph, facts, visible, plan.remove)
    added: list[str] = []
    skipped: list[str] = []
    dynamic = facts.dynamic
    for tool in plan.add:
        if tool.name in dynamic:  # the same object again: rebind in place
            dynamic[tool.name] = tool
            visible.rebind(tool.name, tool)
        elif tool.name in visible or known(graph, facts, tool.name):
            skipped.append(tool.name)
        else:
            dynamic[tool.name] = tool
            visible.show(tool.name, tool)
            added.append(tool.name)
    limit = facts.bindings.limit
    return Injected(
        plan.source,
        tuple(added),
        tuple(removed),
        tuple(skipped),
        plan.over_limit,
        limit if plan.over_limit else 0,
        plan.not_added,
    )


def add_tools(
    graph: DisclosureGraph, facts: RunFacts, visible: VisibleTools, tools: Iterable[BaseTool]
) -> tuple[list[str], list[str]]:
    """Append tools injected at run time; returns (added names, skipped duplicates)."""
    added: list[str] = []
    skipped: list[str] = []
    for tool in tools:
        if tool.name in visible or known(graph, facts, tool.name):
            skipped.append(tool.name)
            continue
        facts.dynamic[tool.name] = tool
        visible.show(tool.name, tool)
        added.append(tool.name)
    return added, skipped


def remove_tools(
    graph: DisclosureGraph, facts: RunFacts, visible: VisibleTools, names: Iterable[str]
) -> list[str]:
    """Remove tools by name (injected or registered); returns the names removed."""
    removed: list[str] = []
    for name in names:
        if name in facts.dynamic:
            del facts.dynamic[name]
            visible.hide(name)
            removed.append(name)
        elif name in graph.entries and name not in facts.removed:
            facts.removed.add(name)
            if name in visible:
                visible.hide(name)
            removed.append(name)
    return removed


RESTORE_FAILED = "not restored on resume"
"""How the reason of an ``InjectionSkipped`` event for a tool not restored starts."""


def restore_added_tools(
    state: DisclosureState,
    bindings: Bindings,
    registered: Callable[[str], bool],
    instances: Resolver | None,
    restore: Callable[[str], BaseTool | None] | None,
) -> tuple[dict[str, BaseTool], tuple[tuple[str, str], ...]]:
    """Bind the saved objects again (``instances(type key, id)``) and find every tool
    added at run time that ``state`` shows (from those objects, else ``restore(name)``,
    the injection strategies). Returns the tools by name, and ``(name, reason)`` of
    the tools that could not be restored. ``registered(name)`` tells the tools of the
    definitions (restored by the scheduler itself)."""
    found, missing = bindings.restore(state.objects, instances)
    where = "by ToolLoop(instances=...)" if instances is not None else "(no instances=)"
    gone = f"{RESTORE_FAILED}: {', '.join(label for _, label in missing)} not found {where}"
    lost: list[tuple[str, str]] = []
    if any(role in bindings.graph.chains for role, _ in missing):
        lost.extend((name, gone) for name in bindings.unbound_names())
    no_strategy = f"{RESTORE_FAILED}: no injection strategy gives it back (a tool(name) method)"
    tools: dict[str, BaseTool] = {}
    for name in state.visible_order:
        if registered(name):
            continue
        tool = found.get(name) or (restore(name) if restore is not None else None)
        if tool is not None:
            tools[name] = tool
        elif missing:
            lost.append((name, gone))
        else:
            lost.append((name, no_strategy))
    return tools, tuple(lost)
