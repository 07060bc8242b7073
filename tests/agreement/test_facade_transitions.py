"""A facade bound to a machine state moves the machine when it unfolds (issue 12,
defect 9): unfolding counts as the call, in a run and in explore() alike."""

from __future__ import annotations

import enum

import statetools as st
from statetools.engine.events import StateEntered
from statetools.models import ScriptedModel


class Desk(enum.Enum):
    TRIAGE = "TRIAGE"
    ADMIN = "ADMIN"


def desk() -> st.StateMachineTool[Desk]:
    ban = st.Tool.create("ban", "Ban a user.", lambda: "banned")
    admin = st.UnfoldingTool.of("admin", "Open the admin tools.", [ban])
    status = st.Tool.create("status", "Show the status.", lambda: "all fine")
    return (
        st.StateMachineTool("desk", "A help desk.", Desk)
        .with_initial_state(Desk.TRIAGE)
        .in_state(Desk.TRIAGE)
        .with_tool(admin)
        .transitions_to(Desk.ADMIN)
        .in_state(Desk.ADMIN)
        .with_tool(admin)
        .with_tool(status)
    )


def test_unfolding_a_facade_fires_its_transition() -> None:
    model = ScriptedModel([("admin", {}), ("ban", {}), ("status", {}), "done"])
    result = st.ToolLoop(model).run("go", tools=[desk()])

    assert [request.tool_names for request in model.requests] == [
        ["admin"],
        ["ban", "status"],
        ["ban", "status"],
        ["ban", "status"],
    ]
    assert result.messages[2].content == (
        "Tools now available: ban.\n[now available: status; state is now ADMIN]"
    )
    assert [m.content for m in result.messages[4::2]] == ["banned", "all fine"]
    assert result.state.machine_states == {"desk": "ADMIN"}
    entered = [event for event in result.trace.events if isinstance(event, StateEntered)]
    assert [(e.machine, e.previous, e.state) for e in entered] == [("desk", "TRIAGE", "ADMIN")]


def test_explore_sees_the_same_sets_as_the_run() -> None:
    sets = [(v.tools, v.path) for v in st.explore(st.disclosure_graph(desk())).visible_sets]
    assert sets == [(("admin",), ()), (("ban", "status"), ("admin",))]
