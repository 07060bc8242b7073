"""Anthropic's programmatic tool calling (``AnthropicModel(code_execution=True)``) on the
wire, with the real ``anthropic`` client against a local server: the visible tools are
declared callable from code, calls made by Claude's code are answered by the run like
direct ones (a locked tool never runs and the code gets the guidance), and the answer's
blocks and the container's id go back so the code goes on."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.models import AnthropicModel
from tests.providers.provider_wire import WireServer, anthropic_message, text, tool_use

CALLER = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
CONTAINER = {"id": "container_1", "expires_at": "2026-11-28T05:00:00Z"}
LOCKED = "Tool 'refund' is locked. Call first: lookup."
CODE_EXECUTION = {"type": "code_execution_20250825", "name": "code_execution"}


def design(ran: list[str]) -> st.PlaybookTool:
    def lookup(order: str) -> str:
        """Find an order."""
        ran.append("lookup")
        return f"order {order}: late"

    def refund(order: str) -> str:
        """Refund an order."""
        ran.append("refund")
        return f"refunded {order}"

    return (
        st.PlaybookTool("desk", "Handle an order")
        .with_tool(st.Tool.from_function(lookup))
        .with_tool(st.Tool.from_function(refund))
        .unlocked_by(lookup)
    )


def from_code(block_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    return {**tool_use(block_id, name, tool_input), "caller": CALLER}


FIRST = [
    text("Running a script."),
    {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "code_execution",
        "input": {"code": "refund('o7')\nlookup('o7')\nrefund('o7')"},
    },
    from_code("toolu_1", "refund", {"order": "o7"}),
    from_code("toolu_2", "lookup", {"order": "o7"}),
]
SECOND = [from_code("toolu_3", "refund", {"order": "o7"})]


def wire_tool(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {"order": {"type": "string"}},
            "required": ["order"],
            "additionalProperties": False,
        },
        "allowed_callers": ["direct", "code_execution_20250825"],
    }


def result_block(call_id: str, content: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def test_calls_from_claudes_code_are_answered_under_the_locks_and_the_code_goes_on(
    wire: WireServer,
) -> None:
    wire.reply({**anthropic_message(*FIRST), "container": CONTAINER})
    wire.reply({**anthropic_message(*SECOND), "container": CONTAINER})
    wire.reply(anthropic_message(text("Refunded o7.")))
    ran: list[str] = []
    model = AnthropicModel("claude-test", base_url=wire.url, api_key="sk-ant", code_execution=True)

    result = st.ToolLoop(model).run("Refund o7 if it is late.", tools=[design(ran)])

    lookup = wire_tool("lookup", "Find an order.")
    refund = wire_tool("refund", "Refund an order.")
    assert [body["tools"] for body in wire.bodies] == [
        [lookup, CODE_EXECUTION],
        [lookup, refund, CODE_EXECUTION],
        [lookup, refund, CODE_EXECUTION],
    ]
    assert [body.get("container") for body in wire.bodies] == [None, "container_1", "container_1"]
    assert wire.bodies[2]["messages"] == [
        {"role": "user", "content": "Refund o7 if it is late."},
        {"role": "assistant", "content": FIRST},
        {
            "role": "user",
            "content": [
                result_block("toolu_1", LOCKED, is_error=True),
                result_block("toolu_2", "order o7: late\n[now available: refund]"),
            ],
        },
        {"role": "assistant", "content": SECOND},
        {"role": "user", "content": [result_block("toolu_3", "refunded o7")]},
    ]
    assert ran == ["lookup", "refund"]  # the refund called while locked never ran
    assert result.output == "Refunded o7."
    assert [e.type for e in result.trace.events if e.type in ("call_blocked", "tool_called")] == [
        "call_blocked",
        "tool_called",
        "tool_called",
    ]


def test_without_code_execution_nothing_is_added() -> None:
    model = AnthropicModel("claude-test", api_key="sk-ant")
    request = st.models.ModelRequest(
        (st.UserMessage("hi"),), (st.models.base.ToolDefinition("ping", "Ping.", {}),)
    )
    assert model.request_body(request)["tools"] == [
        {"name": "ping", "description": "Ping.", "input_schema": {}}
    ]
