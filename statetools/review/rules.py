"""The rules of :func:`~statetools.check` about state machines, prompt sections and
search facades, and the :class:`RuleContext` that every rule reads.

State machines: ST004, ST005, ST006, ST007, ST011, ST013.

Prompt sections (``read_section``): ST015 unreachable-section-tool, ST016
empty-section-summary, ST017 duplicate-section-key. They read the graph's outlines
(``DisclosureGraph.outlines``); a finding's path names the section after the facade
that reads it: ``facade:read_section/section:billing``,
``facade:read_section/section:billing/tool:refund_order``, and for the second section
with a key ``facade:read_section/section:billing@2``.

>>> print(check([Sections(Section("a", "", "Body."))]).findings[0])  # doctest: +ELLIPSIS
facade:read_section/section:a: ST016 warning [empty-section-summary] Section 'a' is ...

Search facades: ST018, tools that a search facade does not find by their own
description. A tool whose own first sentence, used as the query, does not bring it into
the first ``max_results`` of its search facade is hard for a model to find with other
words.

>>> from statetools import Tool, UnfoldingTool, check, disclosure_graph
>>> finder = UnfoldingTool.searchable("find", "Find tools", [
...     Tool.create("a", "Read the file.", lambda: 1),
...     Tool.create("b", "Read the file.", lambda: 1)], max_results=1)
>>> [f.message for f in check(disclosure_graph(finder), disable={"ST010"}).findings]
["Tool 'b' is not among the first 1 results of search facade 'find' for its own description ('Read the file.'). Give it a description that tells it apart, or keywords."]
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs
import networkx as nx

from statetools.definitions.unfolding import UnfoldingTool
from statetools.engine.prompt_sections import OutlineSection
from statetools.errors import StatetoolsError
from statetools.review.dead import dead_reasons
from statetools.review.findings import RULES_BY_CODE, Finding, Severity
from statetools.review.model import DesignView, Reachability
from statetools.review.tokens import Provider
from statetools.tools.descriptions import first_sentence

if TYPE_CHECKING:
    from statetools.review.explore import Exploration


@attrs.frozen
class RuleContext:
    """What every rule reads: the design, what may happen in it, and the limits."""

    design: DesignView
    reach: Reachability
    token_budget: int | None
    max_facade_depth: int
    provider: Provider
    max_states: int
    disabled: tuple[str, ...] = ()
    """The codes of the rules switched off."""
    _explored: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)

    def exploration(self) -> Exploration | StatetoolsError:
        """The search over the design's disclosure states (at most ``max_states``; not
        complete beyond), shared by the rules; the error when it cannot run."""
        if "result" not in self._explored:
            from statetools.review.explore import search

            try:
                found: Exploration | StatetoolsError = search(
                    self.design, self.provider, self.max_states, None, stop_at_limit=True
                )
            except StatetoolsError as error:
                found = error
            self._explored["result"] = found
        result: Exploration | StatetoolsError = self._explored["result"]
        return result

    def dead(self) -> dict[str, str]:
        """Every tool that can never become visible -> why (worked out once)."""
        if "dead" not in self._explored:
            self._explored["dead"] = dead_reasons(self.design, self.reach)
        reasons: dict[str, str] = self._explored["dead"]
        return reasons

    def finding(
        self, code: str, message: str, path: str, severity: Severity | None = None
    ) -> Finding:
        """A finding of rule ``code`` (with the rule's severity unless given)."""
        return Finding(code, severity or RULES_BY_CODE[code].severity, message, path)


# state machines ------------------------------------------------------------------


def _used_states(design: DesignView, machine: str) -> set[str]:
    definition = design.machines[machine]
    used = {definition.initial_state(), *definition.final_states}
    used.update(state for _tool, state in definition.availability)
    for transition in definition.transitions:
        used.update((transition.source, transition.target))
    return used


def unreachable_states(context: RuleContext) -> Iterator[Finding]:
    """ST004: a state that no transition that can fire leads to (the initial state aside)."""
    design = context.design
    for machine in design.machines:
        used = _used_states(design, machine)
        for state in design.state_names(machine):
            if state in used and state not in context.reach.states[machine]:
                yield context.finding(
                    "ST004",
                    f"State {state} of '{machine}' is never entered: no transition that can "
                    "fire leads to it.",
                    f"machine:{machine}/state:{state}",
                )


def unused_states(context: RuleContext) -> Iterator[Finding]:
    """ST011: a state with no tools and no transitions, in or out."""
    design = context.design
    for machine in design.machines:
        used = _used_states(design, machine)
        for state in design.state_names(machine):
            if state not in used:
                yield context.finding(
                    "ST011",
                    f"State {state} of '{machine}' is never used: no tools, no transitions.",
                    f"machine:{machine}/state:{state}",
                )


def _traps(context: RuleContext) -> dict[tuple[str, str], list[str]]:
    """Reachable non-final states without exits, in machines that have final states."""
    design, reach = context.design, context.reach
    traps: dict[tuple[str, str], list[str]] = {}
    for machine, definition in design.machines.items():
        if not definition.final_states:
            continue
        for state in design.state_names(machine):
            if (
                state in reach.states[machine]
                and state not in definition.final_states
                and not reach.exits(design, machine, state)
            ):
                declared = [t.tool for t in definition.transitions if t.source == state]
                traps[(machine, state)] = declared
    return traps


def trap_states(context: RuleContext) -> Iterator[Finding]:
    """ST005: a state that is not final and that no transition can leave."""
    for (machine, state), declared in _traps(context).items():
        detail = (
            f"its transitions need tools that cannot be called there ({', '.join(declared)})"
            if declared
            else "it has no transitions"
        )
        yield context.finding(
            "ST005",
            f"State {state} of '{machine}' is a trap: it is not final and no transition out of "
            f"it can fire ({detail}).",
            f"machine:{machine}/state:{state}",
        )


def no_final_path(context: RuleContext) -> Iterator[Finding]:
    """ST006: a reachable state from which no final state can be reached."""
    design, reach = context.design, context.reach
    traps = _traps(context)
    for machine, definition in design.machines.items():
        if not definition.final_states:
            continue
        moves: nx.DiGraph[str] = nx.DiGraph()
        for state in reach.states[machine]:
            moves.add_node(state)
            for target in reach.exits(design, machine, state):
                moves.add_edge(state, target)
        finals = [s for s in definition.final_states if s in reach.states[machine]]
        can_finish: set[str] = set(finals)
        for final in finals:
            can_finish |= nx.ancestors(moves, final)
        for state in design.state_names(machine):
            if (
                state in reach.states[machine]
                and state not in can_finish
                and (machine, state) not in traps
            ):
                yield context.finding(
                    "ST006",
                    f"From state {state} of '{machine}' no final state can be reached "
                    f"(final: {', '.join(definition.final_states)}).",
                    f"machine:{machine}/state:{state}",
                )


def exits_from_final(context: RuleContext) -> Iterator[Finding]:
    """ST007: a transition out of a final state (a final state ends the machine)."""
    for machine, definition in context.design.machines.items():
        for transition in definition.transitions:
            if transition.source in definition.final_states:
                yield context.finding(
                    "ST007",
                    f"Final state {transition.source} of '{machine}' has a transition out "
                    f"({transition.tool} -> {transition.target}); an agentic run ends there.",
                    f"machine:{machine}/state:{transition.source}",
                )


def dead_transitions(context: RuleContext) -> Iterator[Finding]:
    """ST013: a transition that never fires: its tool is not a tool of the machine, or
    not available in the transition's source state."""
    design = context.design
    for machine, definition in design.machines.items():
        for transition in definition.transitions:
            entry = design.entries.get(transition.tool)
            if entry is None or transition.source not in definition.state_names:
                continue  # ST001
            where = f"Transition {transition.source} -> {transition.target} of '{machine}'"
            if entry.machine != machine:
                reason = f"'{transition.tool}' is not a tool of '{machine}'"
            elif not entry.is_global and transition.source not in entry.states:
                reason = f"'{transition.tool}' is not available in {transition.source}"
            else:
                continue
            yield context.finding(
                "ST013",
                f"{where} never fires: {reason}.",
                f"machine:{machine}/state:{transition.source}",
            )


# prompt sections ----------------------------------------------------------------


def section_path(design: DesignView, facade: str, path: str) -> str:
    """The finding path of a section: ``facade:read_section/section:billing``."""
    return f"{design.owner_path(facade)}/section:{path}"


def section_of(design: DesignView, tool: str) -> tuple[str, OutlineSection] | None:
    """(facade, section) of the first section ``tool`` is attached to and waits for,
    when a read is the only way it shows (every place of it is inside a
    section-reading facade); None otherwise."""
    places = design.graph.places_of(tool)
    outlines = design.graph.outlines
    if not places or any(entry.facade not in outlines for entry in places):
        return None
    for entry in places:
        for section in outlines[str(entry.facade)].sections:
            if section.gated and tool in section.tools:
                return str(entry.facade), section
    return None


def unreachable_section_tools(context: RuleContext) -> Iterator[Finding]:
    """ST015: a tool of a section that no read can ever show."""
    design, reach = context.design, context.reach
    dead = context.dead()
    for tool in dead:
        found = section_of(design, tool)
        if found is None:
            continue
        facade, section = found
        if facade in reach.tools:
            reason = dead[tool]
        else:
            reason = (
                f"it opens when '{facade}' reads the section, and '{facade}' can never "
                f"unlock: {dead[facade]}"
            )
        yield context.finding(
            "ST015",
            f"Tool '{tool}' of section '{section.path}' can never show: {reason}.",
            f"{section_path(design, facade, section.path)}/tool:{tool}",
        )


def empty_summaries(context: RuleContext) -> Iterator[Finding]:
    """ST016: a summary section with neither a summary nor a title to show."""
    design = context.design
    for facade, outline in design.graph.outlines.items():
        for section in outline.sections:
            if section.visibility != "summary":
                continue
            if (section.summary or "").strip() or section.title.strip():
                continue
            yield context.finding(
                "ST016",
                f"Section '{section.path}' is shown as a summary but has no summary and no "
                f"title: the prompt shows only the line telling the model to read it, not "
                "what it is about.",
                section_path(design, facade, section.path),
            )


def duplicate_keys(context: RuleContext) -> Iterator[Finding]:
    """ST017: two sections with one key among their siblings."""
    design = context.design
    for facade, outline in design.graph.outlines.items():
        for path, occurrence in outline.duplicates:
            yield context.finding(
                "ST017",
                f"More than one section of '{facade}' has the key '{path}': only the first "
                f"is read, so the {_ordinal(occurrence)} never shows, nor do its tools, and "
                "a run refuses the design.",
                f"{section_path(design, facade, path)}@{occurrence}",
            )


def _ordinal(number: int) -> str:
    words = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}
    return words.get(number, f"section number {number}")


# search facades -----------------------------------------------------------------


def hard_to_find(context: RuleContext) -> Iterator[Finding]:
    """ST018 findings: per search facade, each tool its own first sentence misses."""
    for name, entry in context.design.graph.entries.items():
        facade = entry.tool
        if not isinstance(facade, UnfoldingTool) or facade.search is None:
            continue
        index = facade.search_index
        k = facade.search.max_results
        for tool in index.tools:
            query = first_sentence(tool.description)
            if not query.strip():
                continue
            found = [found.name for found, _ in index.rank(query, k)]
            if tool.name not in found:
                yield context.finding(
                    "ST018",
                    f"Tool '{tool.name}' is not among the first {k} results of search "
                    f"facade '{name}' for its own description ({query!r}). Give it a "
                    "description that tells it apart, or keywords.",
                    f"facade:{name}/tool:{tool.name}",
                )
