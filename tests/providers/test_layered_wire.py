"""Layered tools on the wire: base forms in the body, then the full tool after its
detail, in the plain mode and in the native ones (``allowed_tools``, ``deferred``)."""

from __future__ import annotations

import json
from typing import Any

import statetools as st
from statetools.models import AnthropicModel, OpenAIChatModel, OpenAIResponsesModel
from tests.providers.provider_wire import (
    WireServer,
    anthropic_message,
    chat_completion,
    function_call,
    openai_call,
    output_message,
    response,
    text,
    tool_use,
)


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


def detail_then_call() -> list[tuple[str, str, str]]:
    return [
        ("c1", "tool_detail", '{"name": "create_ticket"}'),
        ("c2", "create_ticket", '{"title": "x"}'),
    ]


def test_chat_allowed_tools_declares_the_full_tool_after_its_detail(wire: WireServer) -> None:
    """Issue 30: the native modes kept declaring the base form after ``tool_detail``."""
    for call in detail_then_call():
        wire.reply(chat_completion(tool_calls=[openai_call(*call)]))
    wire.reply(chat_completion("Done."))
    model = OpenAIChatModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", disclosure="allowed_tools"
    )

    result = st.ToolLoop(model).run("Open a ticket.", tools=st.layered(create_ticket))

    assert [body["tools"] for body in wire.bodies] == [
        [BASE_TOOL, DETAIL_TOOL],
        [FULL_TOOL, DETAIL_TOOL],
        [FULL_TOOL, DETAIL_TOOL],
    ]
    assert [
        [t["function"]["name"] for t in body["tool_choice"]["allowed_tools"]["tools"]]
        for body in wire.bodies
    ] == [["create_ticket", "tool_detail"]] + [["tool_detail", "create_ticket"]] * 2
    assert result.output == "Done."


def flat(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool in the Responses API's form."""
    return {"type": "function", **tool["function"], "strict": False}


def test_responses_allowed_tools_declares_the_full_tool_after_its_detail(
    wire: WireServer,
) -> None:
    for call in detail_then_call():
        wire.reply(response(function_call(*call)))
    wire.reply(response(output_message("Done.")))
    model = OpenAIResponsesModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", disclosure="allowed_tools"
    )

    result = st.ToolLoop(model).run("Open a ticket.", tools=st.layered(create_ticket))

    assert [body["tools"] for body in wire.bodies] == [
        [flat(BASE_TOOL), flat(DETAIL_TOOL)],
        [flat(FULL_TOOL), flat(DETAIL_TOOL)],
        [flat(FULL_TOOL), flat(DETAIL_TOOL)],
    ]
    assert result.output == "Done."


def anthropic_form(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool in the Messages API's form."""
    function = tool["function"]
    return {
        "name": function["name"],
        "description": function["description"],
        "input_schema": function["parameters"],
    }


def test_anthropic_deferred_declares_the_full_tool_after_its_detail(wire: WireServer) -> None:
    for call_id, name, arguments in detail_then_call():
        wire.reply(anthropic_message(tool_use(call_id, name, json.loads(arguments))))
    wire.reply(anthropic_message(text("Done.")))
    model = AnthropicModel(
        "claude-test", base_url=wire.url, api_key="sk-ant", disclosure="deferred"
    )

    result = st.ToolLoop(model).run("Open a ticket.", tools=st.layered(create_ticket))

    assert [body["tools"] for body in wire.bodies] == [
        [anthropic_form(BASE_TOOL), anthropic_form(DETAIL_TOOL)],
        [anthropic_form(FULL_TOOL), anthropic_form(DETAIL_TOOL)],
        [anthropic_form(FULL_TOOL), anthropic_form(DETAIL_TOOL)],
    ]
    assert wire.bodies[2]["messages"][-1]["content"][0]["content"] == "ticket x p3"
    assert result.output == "Done."


SAFE_DETAIL_TOOL = {
    "type": "function",
    "function": {
        **DETAIL_TOOL["function"],
        "description": "Show the full parameters and example arguments of a tool by name.",
    },
}
DETAIL_TEXT = (
    "create_ticket: Open a support ticket. Priority 1 is the most urgent.\n"
    "Parameters:\n"
    "- title (string, required)\n"
    "- priority (integer, default 3)\n"
    "Returns: str\n"
    'Example arguments: {"title": "Fix the login page", "priority": 3}'
)


def test_the_cache_safe_form_sends_one_tools_array_and_the_detail_in_the_result(
    wire: WireServer,
) -> None:
    """Issue 30: each tool_detail changed the tools array, so the cached prefix ended."""
    for call in detail_then_call():
        wire.reply(chat_completion(tool_calls=[openai_call(*call)]))
    wire.reply(chat_completion("Done."))
    model = OpenAIChatModel("gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test")

    tools = st.layered(create_ticket, swap=False)
    result = st.ToolLoop(model).run("Open a ticket.", tools=tools)

    assert [body["tools"] for body in wire.bodies] == [[BASE_TOOL, SAFE_DETAIL_TOOL]] * 3
    answers = [m["content"] for m in wire.bodies[2]["messages"] if m["role"] == "tool"]
    assert answers == [DETAIL_TEXT, "ticket x p3"]
    assert result.output == "Done."


def test_the_cache_safe_form_keeps_the_deferred_declaration_too(wire: WireServer) -> None:
    for call_id, name, arguments in detail_then_call():
        wire.reply(anthropic_message(tool_use(call_id, name, json.loads(arguments))))
    wire.reply(anthropic_message(text("Done.")))
    model = AnthropicModel(
        "claude-test", base_url=wire.url, api_key="sk-ant", disclosure="deferred"
    )

    tools = st.layered(create_ticket, swap=False)
    result = st.ToolLoop(model).run("Open a ticket.", tools=tools)

    declared = [anthropic_form(BASE_TOOL), anthropic_form(SAFE_DETAIL_TOOL)]
    assert [body["tools"] for body in wire.bodies] == [declared] * 3
    assert wire.bodies[1]["messages"][-1]["content"][0]["content"] == DETAIL_TEXT
    assert result.output == "Done."
