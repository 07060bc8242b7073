"""Code mode in hosts that answer one call at a time: a pydantic-ai agent (the bridge) and
an MCP client of the gateway run the script, and every call from it is checked by the
host's own scheduler."""

from __future__ import annotations

import asyncio

import mcp
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


def test_an_mcp_client_runs_a_script_through_the_gateway_and_its_session_keeps_the_locks() -> None:
    script = (
        "try:\n    refund(7)\nexcept PermissionError as e:\n    print(e)\n"
        "print(lookup(7))\nrefund(7)"
    )
    ran: list[str] = []
    server = st.mcp.disclosure_server([st.CodeMode(_desk(ran))])

    async def main() -> tuple[list[str], str, bool, str]:
        async with mcp.Client(server) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool("run_code", {"code": script})
            handle = result.meta["statetools/session"]
            again = await client.call_tool("run_code", {"code": "refund(8)", "session": handle})
            first, second = result.content[0], again.content[0]
            assert isinstance(first, mcp.types.TextContent)
            assert isinstance(second, mcp.types.TextContent)
            return listed, first.text, bool(result.is_error), second.text

    listed, first, failed, second = asyncio.run(main())
    assert listed == ["run_code", "describe_tool", "call_tool"]
    assert first.startswith(
        "Tool 'refund' is locked. Call first: lookup.\nlate\nrefunded\n[now callable: refund]\n"
        "[session started: pass session="
    )
    assert (failed, second) == (False, "refunded")
    assert ran == ["lookup", "refund", "refund"]
