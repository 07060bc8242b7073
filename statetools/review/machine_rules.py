"""The state machine rules of check(): ST004, ST005, ST006, ST007, ST011, ST013."""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from statetools.review.findings import Finding
from statetools.review.model import DesignView
from statetools.review.rule_context import RuleContext


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
