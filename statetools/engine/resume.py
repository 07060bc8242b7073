"""Resuming a run: the tools added at run time come back from their objects or
strategies, and what cannot come back is said (never silently lost)."""

from __future__ import annotations

from collections.abc import Callable

from statetools.engine.bindings import Bindings, Resolver
from statetools.engine.state import DisclosureState
from statetools.tools.tool import BaseTool

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
