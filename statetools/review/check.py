"""check(graph) -> Report: static review of a disclosure design.

Every rule runs and every finding is reported together; rules can be switched off by
code or name. The rules and their codes are listed in ``RULES`` and in
``docs/review.md``.

>>> report = check(graph)  # doctest: +SKIP
>>> report.ok, [f.code for f in report.findings]  # doctest: +SKIP
(True, [])
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from statetools.definitions.conditions import After, Condition, InState
from statetools.errors import StatetoolsError
from statetools.review import rules
from statetools.review.findings import Finding, Report, resolve_codes
from statetools.review.model import (
    DesignView,
    as_graph,
    leaves,
    reachability,
)
from statetools.review.rules import RuleContext
from statetools.review.tokens import Provider
from statetools.tools.tool import TOOL_NAME_PATTERN
from statetools.wording import counted

DEFAULT_TOKEN_BUDGET = 8_000
"""o200k tokens one visible set may take before ST010 warns."""
DEFAULT_MAX_FACADE_DEPTH = 3
DEFAULT_MAX_STATES = 5_000
"""Disclosure states explored for the token budget before it falls back to fewer turns."""

_STARTS_WELL = re.compile(r"^[A-Za-z_]")


def check(
    graph: Any,
    *,
    disable: Iterable[str] = (),
    token_budget: int | None = DEFAULT_TOKEN_BUDGET,
    max_facade_depth: int = DEFAULT_MAX_FACADE_DEPTH,
    provider: Provider = "openai",
    max_states: int = DEFAULT_MAX_STATES,
) -> Report:
    """Review a design: every problem found, each with a stable code, severity and path.

    ``graph`` is a :class:`~statetools.DisclosureGraph` (or tools and definitions to
    compile into one). ``disable`` switches rules off by code or name
    (``{"ST010", "unused-state"}``). ``token_budget`` (o200k tokens of one visible set,
    None to skip) and ``max_facade_depth`` are the limits of ST010 and ST009;
    ``max_states`` bounds the exploration behind ST010.

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> analyze = Tool.create("analyze", "Analyze a text", lambda text: "ok")
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(analyze)
    >>> report = check(st.disclosure_graph(research.unlocked_by(search)), disable={"ST010"})
    >>> report.ok, report.findings
    (True, ())
    """
    disabled = resolve_codes(disable)
    design = DesignView(as_graph(graph))
    context = RuleContext(
        design,
        reachability(design),
        token_budget,
        max_facade_depth,
        provider,
        max_states,
        disabled,
    )
    findings: list[Finding] = []
    for code, rule in _CHECKS.items():
        if code not in disabled:
            findings.extend(rule(context))
    return Report(tuple(findings), disabled)


# ST001 ---------------------------------------------------------------------------------


def _suggestion(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" Did you mean '{close[0]}'?" if close else ""


def _unknown_references(context: RuleContext) -> Iterator[Finding]:
    design = context.design
    places = [(name, p) for name in design.entries for p in design.graph.places_of(name)]
    for name, entry in places:
        if entry.condition is None:
            continue
        path = design.owner_path(name)
        reported: set[str] = set()
        for leaf in leaves(entry.condition):
            for message in _leaf_problems(design, name, leaf):
                if message not in reported:
                    reported.add(message)
                    yield context.finding("ST001", message, path)
    for machine_name, machine in design.machines.items():
        states = machine.state_names
        for transition in machine.transitions:
            where = f"Transition {transition.source} -> {transition.target} of '{machine_name}'"
            for role, state in (("source", transition.source), ("target", transition.target)):
                if state not in states:
                    yield context.finding(
                        "ST001",
                        f"{where} has {role} state {state}, which '{machine_name}' does not "
                        f"have.{_suggestion(state, states)}",
                        f"machine:{machine_name}",
                    )
            if transition.tool not in design.entries:
                yield context.finding(
                    "ST001",
                    f"{where} names tool '{transition.tool}', which is not registered."
                    f"{_suggestion(transition.tool, design.entries)}",
                    f"machine:{machine_name}/state:{transition.source}",
                )


def _leaf_problems(design: DesignView, tool: str, leaf: Condition) -> Iterator[str]:
    match leaf:
        case After(tools=names):
            for other in names:
                if other not in design.entries:
                    yield (
                        f"The condition of '{tool}' names tool '{other}', which is not "
                        f"registered.{_suggestion(other, design.entries)}"
                    )
        case InState(machine=machine, state=state):
            if machine not in design.machines:
                yield (
                    f"The condition of '{tool}' names machine '{machine}', which is not "
                    f"registered.{_suggestion(machine, design.machines)}"
                )
            elif state not in design.state_names(machine):
                yield (
                    f"The condition of '{tool}' names state {state} of '{machine}', which it "
                    f"does not have.{_suggestion(state, design.state_names(machine))}"
                )


# ST002 ---------------------------------------------------------------------------------


def _duplicates(context: RuleContext) -> Iterator[Finding]:
    for name in dict.fromkeys(context.design.graph.duplicates):
        yield context.finding(
            "ST002",
            f"Two different tools are named '{name}': the model cannot tell them apart and "
            "the scheduler refuses to run (the same tool may sit in several places).",
            context.design.owner_path(name),
        )


# ST003 ---------------------------------------------------------------------------------


def _never_unlocks(context: RuleContext) -> Iterator[Finding]:
    design = context.design
    for name, reason in context.dead().items():
        if "ST015" not in context.disabled and rules.section_of(design, name):
            continue  # a tool of a prompt section: ST015 says which section and why
        yield context.finding(
            "ST003", f"Tool '{name}' can never unlock: {reason}.", design.owner_path(name)
        )


# facades: ST008, ST009 ----------------------------------------------------------------


def _empty_facades(context: RuleContext) -> Iterator[Finding]:
    for facade in context.design.facades.values():
        path = context.design.owner_path(facade.name)
        if facade.stays:  # read_section: the text it returns is its point
            continue
        if not facade.inner and not facade.selectable:  # a selector may build its tools
            yield context.finding(
                "ST008", f"Facade '{facade.name}' holds no tools: calling it reveals nothing.", path
            )
        for category, members in facade.categories if facade.inner else ():
            if not members:
                yield context.finding(
                    "ST008",
                    f"Category '{category}' of facade '{facade.name}' holds no tools: choosing "
                    "it reveals nothing.",
                    path,
                )


def _deep_facades(context: RuleContext) -> Iterator[Finding]:
    design = context.design
    for facade in design.facades.values():
        depth = design.facade_depth(facade.name)
        if depth > context.max_facade_depth:
            yield context.finding(
                "ST009",
                f"Facade '{facade.name}' is nested {depth} deep (limit "
                f"{context.max_facade_depth}): the model needs {counted(depth, 'call')} to reach "
                "its tools.",
                design.owner_path(facade.name),
            )


# ST010 ---------------------------------------------------------------------------------


def _over_budget(context: RuleContext) -> Iterator[Finding]:
    budget = context.token_budget
    if budget is None:
        return
    exploration = context.exploration()
    if isinstance(exploration, StatetoolsError):
        yield context.finding(
            "ST010", f"The token budget was not checked: {exploration}", "visible-set:*", "info"
        )
        return
    if not exploration.complete:
        depth = exploration.depth
        yield context.finding(
            "ST010",
            f"The token budget was checked only for the visible sets reached within {depth} "
            f"turn{'' if depth == 1 else 's'}: the design has more than {context.max_states:,} "
            "disclosure states.",
            "visible-set:*",
            "info",
        )
    over = [s for s in exploration.visible_sets if s.tokens > budget]
    if not over:
        return
    largest = max(over, key=lambda s: s.tokens)
    others = f" ({len(over)} visible sets are over the budget)" if len(over) > 1 else ""
    together = "visible takes" if len(largest.tools) == 1 else "visible together take"
    yield context.finding(
        "ST010",
        f"{counted(len(largest.tools), 'tool')} {together} {largest.tokens:,} tokens, over "
        f"the budget of {budget:,}{others}.",
        largest.label_path,
    )


# ST014 ---------------------------------------------------------------------------------


def _no_tools_left(context: RuleContext) -> Iterator[Finding]:
    exploration = context.exploration()
    if isinstance(exploration, StatetoolsError):
        return  # ST010 says the search could not run
    for path in exploration.dead_ends:
        after = f"after {', '.join(path)}" if path else "at the start"
        yield context.finding(
            "ST014",
            f"No tool is visible {after}, and no machine is in a final state: the model "
            "is left with nothing to call.",
            f"visible-set:{'/'.join(path) if path else 'start'}",
        )


# ST012 ---------------------------------------------------------------------------------


def _invalid_names(context: RuleContext) -> Iterator[Finding]:
    design = context.design
    for name in design.entries:
        if not TOOL_NAME_PATTERN.match(name):
            yield context.finding(
                "ST012",
                f"Tool name {name!r} is rejected by OpenAI and Anthropic: use 1 to 64 of "
                "a-z, A-Z, 0-9, '_' and '-'.",
                design.owner_path(name),
            )
        elif not _STARTS_WELL.match(name):
            yield context.finding(
                "ST012",
                f"Tool name {name!r} is rejected by Gemini, which needs a letter or '_' first.",
                design.owner_path(name),
                "warning",
            )


# ST019, ST020 ---------------------------------------------------------------------------


def _noted(context: RuleContext, code: str) -> Iterator[Finding]:
    """What tools say about themselves in ``review_notes`` (MCP tools and facades)."""
    graph = context.design.graph
    tools = [*(entry.tool for entry in graph.entries.values()), *graph.facades.values()]
    seen: set[tuple[str, str]] = set()
    for tool in tools:
        for noted, message in getattr(tool, "review_notes", ()):
            if noted == code and (tool.name, message) not in seen:
                seen.add((tool.name, message))
                yield context.finding(code, message, context.design.owner_path(tool.name))


_CHECKS: dict[str, Callable[[RuleContext], Iterator[Finding]]] = {
    "ST001": _unknown_references,
    "ST002": _duplicates,
    "ST003": _never_unlocks,
    "ST004": rules.unreachable_states,
    "ST005": rules.trap_states,
    "ST006": rules.no_final_path,
    "ST007": rules.exits_from_final,
    "ST008": _empty_facades,
    "ST009": _deep_facades,
    "ST010": _over_budget,
    "ST011": rules.unused_states,
    "ST012": _invalid_names,
    "ST013": rules.dead_transitions,
    "ST014": _no_tools_left,
    "ST015": rules.unreachable_section_tools,
    "ST016": rules.empty_summaries,
    "ST017": rules.duplicate_keys,
    "ST018": rules.hard_to_find,
    "ST019": lambda context: _noted(context, "ST019"),
    "ST020": lambda context: _noted(context, "ST020"),
}
