"""Why a tool can never become visible: the reasons ``check`` gives (ST003, ST015).

>>> from statetools.review.model import reachability
>>> retry = Tool.create("retry", "Try again", lambda: "ok")
>>> looping = PlaybookTool("p", "P").with_tool(retry).unlocked_by(retry)
>>> design = DesignView(disclosure_graph(looping))
>>> dead_reasons(design, reachability(design))
{'retry': 'unlock cycle retry -> retry'}
"""

from __future__ import annotations

import networkx as nx

from statetools.definitions.conditions import After, InState
from statetools.review.model import DesignView, Reachability, Term, dnf, leaves


def dead_reasons(design: DesignView, reach: Reachability) -> dict[str, str]:
    """Every registered tool that can never become visible -> why, in registration
    order."""
    dead = [name for name in design.entries if name not in reach.tools]
    cycles = _unlock_cycles(design, dead)
    return {name: cycles.get(name) or _why_dead(design, reach, name) for name in dead}


def _unlock_cycles(design: DesignView, dead: list[str]) -> dict[str, str]:
    """For dead tools on a cycle of prerequisites: 'unlock cycle a -> b -> a'."""
    needs: nx.DiGraph[str] = nx.DiGraph()
    dead_set = set(dead)
    for name in dead:
        needs.add_node(name)
        condition = design.entries[name].condition
        if condition is None:
            continue
        for leaf in leaves(condition):
            if isinstance(leaf, After):
                for other in leaf.tools:
                    if other in dead_set:
                        needs.add_edge(name, other)
    order = {name: index for index, name in enumerate(dead)}
    cycles: dict[str, str] = {}
    for component in nx.strongly_connected_components(needs):
        members = sorted(component, key=order.__getitem__)
        if len(members) == 1 and not needs.has_edge(members[0], members[0]):
            continue
        sub = needs.subgraph(component)
        for name in members:
            best: list[str] | None = None
            for successor in sorted(sub.successors(name), key=order.__getitem__):
                path = [name] if successor == name else nx.shortest_path(sub, successor, name)
                if best is None or len(path) < len(best):
                    best = path
            if best is not None:
                chain = [name, *best] if best != [name] else [name, name]
                cycles[name] = f"unlock cycle {' -> '.join(chain)}"
    return cycles


def _why_dead(design: DesignView, reach: Reachability, name: str) -> str:
    for facade in design.facade_chain(name):
        if facade not in reach.tools:
            return f"its facade '{facade}' is never unfolded"
    entry = design.entries[name]
    fixed_states: list[tuple[str, str] | None] = [None]
    if entry.machine is not None and entry.machine in design.machines:
        machine = entry.machine
        own = design.state_names(machine) if entry.is_global else sorted(entry.states)
        entered = [state for state in own if state in reach.states[machine]]
        if not entered:
            where = ", ".join(s for s in design.state_names(machine) if s in entry.states)
            return f"it is available only in states that are never entered ({where})"
        fixed_states = [(machine, state) for state in entered]
    condition = entry.condition
    terms = dnf(condition) if condition is not None else None
    if not terms:
        return "its condition can never hold"
    return _term_problem(design, reach, terms[0], fixed_states[0])


def _term_problem(
    design: DesignView, reach: Reachability, term: Term, fixed: tuple[str, str] | None
) -> str:
    required: dict[str, str] = dict([fixed]) if fixed else {}
    for leaf in term:
        match leaf:
            case After(tools=names):
                for other in names:
                    if other not in design.entries:
                        return f"it needs '{other}', which is not a registered tool"
                    if other not in reach.tools:
                        return f"it needs '{other}', which can never unlock"
            case InState(machine=machine, state=state):
                if machine not in design.machines:
                    return f"it needs machine '{machine}', which is not registered"
                if state not in design.state_names(machine):
                    return f"it needs state {state} of '{machine}', which does not exist"
                if state not in reach.states[machine]:
                    return f"it needs state {state} of '{machine}', which is never entered"
                other_state = required.setdefault(machine, state)
                if other_state != state:
                    pair = ", ".join(sorted({other_state, state}))
                    return f"it needs '{machine}' in two states at once ({pair})"
    return "its condition can never hold"
