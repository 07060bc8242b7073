"""Layered tools on the wire: base forms in the OpenAI body, then the full tool."""

from __future__ import annotations

import statetools as st
from statetools.models import OpenAIChatModel
from tests.providers.provider_wire import WireServer, chat_completion, openai_call


def create_ticket(title: str, priority: int = 3) -> str:
    """Open a support ticket. Priority 1 is the most urgent."""
    return f"ticket {title} p{priority}"


DETAIL_TOOL = {
    "type": "function",
    "function": {
        "name": "tool_detail",
        "description": "Show the full parameters and example arguments of a tool by name; "
        "the tool then shows in full.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The exact name of the tool"}},
            "required": ["name"],
            "additionalProperties": False,
        },
    },
}
BASE_TOOL = {
    "type": "function",
    "function": {
        "name": "create_ticket",
        "description": "Open a support ticket.",
        "parameters": {"type": "object"},
    },
}
FULL_TOOL = {
    "type": "function",
    "function": {
        "name": "create_ticket",
        "description": "Open a support ticket. Priority 1 is the most urgent.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "priority": {"type": "integer", "default": 3},
            },
            "required": ["title"],
            "additionalProperties": False,
        },
    },
}


def test_base_forms_go_on_the_wire_and_the_full_tool_after_its_detail(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[openai_call("c1", "create_ticket", '{"title": 5}')]))
    wire.reply(
        chat_completion(tool_calls=[openai_call("c2", "tool_detail", '{"name": "create_ticket"}')])
    )
    wire.reply(chat_completion(tool_calls=[openai_call("c3", "create_ticket", '{"title": "x"}')]))
    wire.reply(chat_completion("Done."))
    model = OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test")

    result = st.ToolLoop(model).run("Open a ticket.", tools=st.layered(create_ticket))

    assert [body["tools"] for body in wire.bodies] == [
        [BASE_TOOL, DETAIL_TOOL],
        [BASE_TOOL, DETAIL_TOOL],
        [DETAIL_TOOL, FULL_TOOL],
        [DETAIL_TOOL, FULL_TOOL],
    ]
    tool_messages = [m for m in wire.bodies[3]["messages"] if m["role"] == "tool"]
    assert tool_messages[0]["content"].startswith(
        "Invalid arguments for tool 'create_ticket': argument 'title' must be a string, got 5."
    )
    assert tool_messages[1]["content"] == (
        "create_ticket: Open a support ticket. Priority 1 is the most urgent.\n"
        "Parameters:\n"
        "- title (string, required)\n"
        "- priority (integer, default 3)\n"
        "Returns: str\n"
        'Example arguments: {"title": "Fix the login page", "priority": 3}'
    )
    assert tool_messages[2]["content"] == "ticket x p3"
    assert result.output == "Done."
