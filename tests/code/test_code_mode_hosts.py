"""Code mode in hosts that answer one call at a time: a pydantic-ai agent (the bridge)
runs the script, and every call from it is checked by the bridge's own scheduler."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel

import statetools as st
from statetools.integrations.pydantic_ai import StatetoolsCapability
from tests.integrations.test_pydantic_ai import Recorder


def _desk(ran: list[str]) -> st.PlaybookTool:
    def lookup(order: int) -> str:
        """Find an order."""
        ran.append("lookup")
        return "late"

    def refund(order: int) -> str:
        """Refund an order."""
        ran.append("refund")
        return "refunded"

    return (
        st.PlaybookTool("desk", "Handle an order")
        .with_tool(st.Tool.from_function(lookup))
        .with_tool(st.Tool.from_function(refund))
        .unlocked_by(lookup)
    )


def test_a_pydantic_ai_agent_runs_the_script_and_the_lock_holds_inside_it() -> None:
    script = (
        "try:\n    refund(7)\nexcept PermissionError as e:\n    print(e)\n"
        "print(lookup(7))\nrefund(7)"
    )
    ran: list[str] = []
    model = Recorder([("run_code", {"code": script}), "All done."])
    agent = Agent(
        model=FunctionModel(model), capabilities=[StatetoolsCapability([st.CodeMode(_desk(ran))])]
    )

    result = agent.run_sync("order")

    assert result.output == "All done."
    assert model.tools["order"] == [["run_code"], ["run_code"]]
    assert model.answers["order"] == [
        "Tool 'refund' is locked. Call first: lookup.\nlate\nrefunded\n[now callable: refund]"
    ]
    assert ran == ["lookup", "refund"]
