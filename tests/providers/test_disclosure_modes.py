"""Provider-native disclosure on the wire: OpenAI ``allowed_tools`` and Anthropic
deferred tools keep one tools array for a whole run, and the loop still refuses
locked calls."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import statetools as st
from statetools.models import AnthropicModel, OpenAIChatModel, OpenAIResponsesModel
from tests.providers.provider_streams import anthropic_stream
from tests.providers.provider_wire import (
    DESK_VISIBLE,
    SEARCH,
    SHIP_REFUSED,
    UnlockTicketAfterSearch,
    WireServer,
    anthropic_message,
    chat_completion,
    desk_design,
    function_call,
    openai_call,
    output_message,
    response,
    text,
    tool_use,
)


def schema(*names: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string"} for name in names},
        "required": list(names),
        "additionalProperties": False,
    }


DESK_TOOLS = [
    ("search", "Search the knowledge base.", schema("query")),
    ("open_ticket", "Open a support ticket.", schema("title")),
    ("confirm", "Confirm the order.", schema()),
    ("ship", "Ship the order.", schema("carrier")),
    ("admin", "Open the admin tools.", schema()),
    ("reset_password", "Reset a user's password.", schema("user")),
]
SEARCH_ARGS = '{"query": "printer"}'
SHIP_ARGS = '{"carrier": "ups"}'
SCRIPT = [
    [("call_1", "search", SEARCH_ARGS), ("call_2", "ship", SHIP_ARGS)],
    [("call_3", "confirm", "{}")],
    [("call_4", "admin", "{}")],
]
"""The desk run: search (unlocks open_ticket) with a locked ship, confirm (state
change), admin (unfolds the facade), then the answer."""


def expected_messages() -> list[st.Message]:
    return [
        st.UserMessage("Help."),
        st.AssistantMessage(
            "",
            (
                st.ToolCall("call_1", "search", {"query": "printer"}),
                st.ToolCall("call_2", "ship", {"carrier": "ups"}),
            ),
        ),
        st.ToolMessage("call_1", "search", "3 hits for printer\n[now available: open_ticket]"),
        st.ToolMessage("call_2", "ship", SHIP_REFUSED, is_error=True),
        st.AssistantMessage("", (st.ToolCall("call_3", "confirm", {}),)),
        st.ToolMessage(
            "call_3", "confirm", "confirmed\n[now available: ship; state is now CONFIRMED]"
        ),
        st.AssistantMessage("", (st.ToolCall("call_4", "admin", {}),)),
        st.ToolMessage("call_4", "admin", "Tools now available: reset_password."),
        st.AssistantMessage("Done."),
    ]


def serialized(value: Any) -> str:
    return json.dumps(value, sort_keys=False, separators=(",", ":"))


def test_chat_allowed_tools_keeps_one_tools_array_and_lists_the_visible_ones(
    wire: WireServer,
) -> None:
    for turn in SCRIPT:
        wire.reply(chat_completion(tool_calls=[openai_call(*call) for call in turn]))
    wire.reply(chat_completion("Done."))
    model = OpenAIChatModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", disclosure="allowed_tools"
    )

    result = st.ToolLoop(model).run("Help.", tools=desk_design())

    tools = [
        {"type": "function", "function": {"name": n, "description": d, "parameters": p}}
        for n, d, p in DESK_TOOLS
    ]
    assert [body["tools"] for body in wire.bodies] == [tools] * 4
    assert len({serialized(body["tools"]) for body in wire.bodies}) == 1
    assert [body["tool_choice"] for body in wire.bodies] == [
        {
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "auto",
                "tools": [{"type": "function", "function": {"name": n}} for n in visible],
            },
        }
        for visible in DESK_VISIBLE
    ]
    assert list(result.messages) == expected_messages()
    assert wire.bodies[1]["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": SHIP_REFUSED,
    }


def test_responses_allowed_tools_keeps_one_tools_array_and_lists_the_visible_ones(
    wire: WireServer,
) -> None:
    for turn in SCRIPT:
        wire.reply(response(*(function_call(*call) for call in turn)))
    wire.reply(response(output_message("Done.")))
    model = OpenAIResponsesModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", disclosure="allowed_tools"
    )

    result = st.ToolLoop(model).run("Help.", tools=desk_design())

    tools = [
        {"type": "function", "name": n, "description": d, "parameters": p, "strict": False}
        for n, d, p in DESK_TOOLS
    ]
    assert [body["tools"] for body in wire.bodies] == [tools] * 4
    assert len({serialized(body["tools"]) for body in wire.bodies}) == 1
    assert [body["tool_choice"] for body in wire.bodies] == [
        {
            "type": "allowed_tools",
            "mode": "auto",
            "tools": [{"type": "function", "name": n} for n in visible],
        }
        for visible in DESK_VISIBLE
    ]
    assert list(result.messages) == expected_messages()
    assert wire.bodies[1]["input"][4] == {
        "type": "function_call_output",
        "call_id": "call_2",
        "output": SHIP_REFUSED,
    }


def test_allowed_tools_without_visible_tools_sends_tool_choice_none(wire: WireServer) -> None:
    wire.reply(chat_completion("Nothing to do."))
    model = OpenAIChatModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", disclosure="allowed_tools"
    )
    later = (
        st.PlaybookTool("later", "Later.")
        .with_tool(st.Tool.create("late", "Late.", lambda: "x"))
        .unlocked_when(lambda view: False)
    )

    st.ToolLoop(model).run("Hi.", tools=[later])

    assert wire.bodies[0]["tool_choice"] == "none"
    assert [tool["function"]["name"] for tool in wire.bodies[0]["tools"]] == ["late"]


def deferred_model(wire: WireServer, **options: Any) -> AnthropicModel:
    return AnthropicModel(
        "claude-test", base_url=wire.url, api_key="sk-ant", disclosure="deferred", **options
    )


def reply_desk_run(wire: WireServer) -> None:
    for turn in SCRIPT:
        wire.reply(anthropic_message(*(tool_use(i, n, json.loads(a)) for i, n, a in turn)))
    wire.reply(anthropic_message(text("Done.")))


def anthropic_tools(*, cache: bool) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for name, description, parameters in DESK_TOOLS:
        tool: dict[str, Any] = {
            "name": name,
            "description": description,
            "input_schema": parameters,
        }
        if name not in DESK_VISIBLE[0]:
            tool["defer_loading"] = True
        tools.append(tool)
    if cache:
        tools[4]["cache_control"] = {"type": "ephemeral"}  # admin: the last loaded one
    return tools


def result_block(call_id: str, content: Any, *, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def test_anthropic_deferred_declares_every_tool_and_reveals_with_tool_references(
    wire: WireServer,
) -> None:
    reply_desk_run(wire)

    result = st.ToolLoop(deferred_model(wire, cache_control=True)).run("Help.", tools=desk_design())

    assert [body["tools"] for body in wire.bodies] == [anthropic_tools(cache=True)] * 4
    assert len({serialized(body["tools"]) for body in wire.bodies}) == 1
    assert wire.bodies[3]["messages"] == [
        {"role": "user", "content": "Help."},
        {
            "role": "assistant",
            "content": [
                tool_use("call_1", "search", {"query": "printer"}),
                tool_use("call_2", "ship", {"carrier": "ups"}),
            ],
        },
        {
            "role": "user",
            "content": [
                result_block(
                    "call_1",
                    [
                        {
                            "type": "text",
                            "text": "3 hits for printer\n[now available: open_ticket]",
                        },
                        {"type": "tool_reference", "tool_name": "open_ticket"},
                    ],
                ),
                result_block("call_2", SHIP_REFUSED, is_error=True),
            ],
        },
        {"role": "assistant", "content": [tool_use("call_3", "confirm", {})]},
        {
            "role": "user",
            "content": [
                result_block(
                    "call_3",
                    [
                        {
                            "type": "text",
                            "text": "confirmed\n[now available: ship; state is now CONFIRMED]",
                        },
                        {"type": "tool_reference", "tool_name": "ship"},
                    ],
                )
            ],
        },
        {"role": "assistant", "content": [tool_use("call_4", "admin", {})]},
        {
            "role": "user",
            "content": [
                result_block(
                    "call_4",
                    [
                        {"type": "text", "text": "Tools now available: reset_password."},
                        {"type": "tool_reference", "tool_name": "reset_password"},
                    ],
                )
            ],
        },
    ]
    assert wire.bodies[1]["messages"] == wire.bodies[3]["messages"][:3]
    assert list(result.messages) == expected_messages()
    assert "anthropic-beta" not in wire.requests[0].headers


def test_anthropic_tool_changes_beta_adds_and_removes_with_system_blocks(
    wire: WireServer,
) -> None:
    reply_desk_run(wire)

    result = st.ToolLoop(deferred_model(wire, beta_tool_changes=True)).run(
        "Help.", tools=desk_design()
    )

    def change(kind: str, name: str) -> dict[str, Any]:
        return {"type": kind, "tool": {"type": "tool_reference", "name": name}}

    assert [body["tools"] for body in wire.bodies] == [anthropic_tools(cache=False)] * 4
    sent = wire.bodies[3]["messages"]
    assert [m["role"] for m in sent] == [
        "user",
        "assistant",
        "user",
        "system",
        "assistant",
        "user",
        "system",
        "assistant",
        "user",
        "system",
    ]
    assert [m["content"] for m in sent if m["role"] == "system"] == [
        [change("tool_addition", "open_ticket")],
        [change("tool_addition", "ship"), change("tool_removal", "confirm")],
        [change("tool_addition", "reset_password"), change("tool_removal", "admin")],
    ]
    assert sent[2]["content"][0] == result_block(
        "call_1", "3 hits for printer\n[now available: open_ticket]"
    )
    assert {r.headers["anthropic-beta"] for r in wire.requests} == {
        "mid-conversation-tool-changes-2026-07-01"
    }
    assert list(result.messages) == expected_messages()


def test_the_beta_needs_the_deferred_mode() -> None:
    with pytest.raises(st.StatetoolsError) as caught:
        AnthropicModel("claude-test", api_key="sk-ant", beta_tool_changes=True)

    assert str(caught.value) == (
        "AnthropicModel(beta_tool_changes=...): beta_tool_changes=True needs "
        "disclosure='deferred' Hint: pass disclosure='deferred' too, or leave "
        "beta_tool_changes off"
    )


def test_the_default_mode_keeps_positions_and_appends_new_tools(wire: WireServer) -> None:
    reply_desk_run(wire)

    st.ToolLoop(AnthropicModel("claude-test", base_url=wire.url, api_key="sk-ant")).run(
        "Help.", tools=desk_design()
    )

    assert [[t["name"] for t in body["tools"]] for body in wire.bodies] == DESK_VISIBLE


def test_responses_sends_a_tool_that_appears_at_run_time_as_additional_tools(
    wire: WireServer,
) -> None:
    wire.reply(response(function_call("call_1", "search", SEARCH_ARGS)))
    wire.reply(response(function_call("call_2", "open_ticket", '{"title": "P"}')))
    wire.reply(response(output_message("Opened.")))
    model = OpenAIResponsesModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", disclosure="allowed_tools"
    )
    loop = st.ToolLoop(model, strategies=[UnlockTicketAfterSearch()])

    result = loop.run("Help.", tools=[SEARCH])

    search = {
        "type": "function",
        "name": "search",
        "description": "Search the knowledge base.",
        "parameters": schema("query"),
        "strict": False,
    }
    ticket = {
        "type": "function",
        "name": "open_ticket",
        "description": "Open a support ticket.",
        "parameters": schema("title"),
        "strict": False,
    }
    assert [body["tools"] for body in wire.bodies] == [[search]] * 3
    assert [body["tool_choice"]["tools"] for body in wire.bodies] == [
        [{"type": "function", "name": "search"}],
        [{"type": "function", "name": "search"}, {"type": "function", "name": "open_ticket"}],
        [{"type": "function", "name": "search"}, {"type": "function", "name": "open_ticket"}],
    ]
    assert wire.bodies[2]["input"] == [
        {"role": "user", "content": "Help."},
        {"type": "function_call", "call_id": "call_1", "name": "search", "arguments": SEARCH_ARGS},
        {"type": "function_call_output", "call_id": "call_1", "output": "3 hits for printer"},
        {"type": "additional_tools", "role": "developer", "tools": [ticket]},
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "open_ticket",
            "arguments": '{"title": "P"}',
        },
        {"type": "function_call_output", "call_id": "call_2", "output": "opened T-1: P"},
    ]
    assert result.output == "Opened."


def test_deferred_without_a_tool_visible_at_the_start_is_a_clear_error(
    wire: WireServer,
) -> None:
    later = (
        st.PlaybookTool("later", "Later.")
        .with_tool(st.Tool.create("late", "Late.", lambda: "x"))
        .unlocked_when(lambda view: False)
    )

    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(deferred_model(wire)).run("Hi.", tools=[later])

    assert str(caught.value) == (
        "AnthropicModel(disclosure='deferred'): deferred disclosure needs a tool visible at "
        "the start: Anthropic requires at least one tool that is not deferred Hint: make a "
        "tool visible in the first request, or use disclosure='tools'"
    )
    assert wire.requests == []
    assert caught.value.result is not None


@pytest.mark.parametrize("beta", [False, True], ids=["deferred", "deferred-beta"])
def test_a_streamed_deferred_run_sends_the_same_bodies_with_stream(
    wire: WireServer, beta: bool
) -> None:
    reply_desk_run(wire)
    plain = st.ToolLoop(deferred_model(wire, beta_tool_changes=beta)).run(
        "Help.", tools=desk_design()
    )
    plain_bodies = wire.bodies
    wire.requests.clear()
    for turn in SCRIPT:
        body = anthropic_message(*(tool_use(i, n, json.loads(a)) for i, n, a in turn))
        wire.stream(anthropic_stream(body, []))
    wire.stream(anthropic_stream(anthropic_message(text("Done.")), ["Do", "ne."]))

    async def main() -> st.LoopResult:
        stream = st.ToolLoop(deferred_model(wire, beta_tool_changes=beta)).stream(
            "Help.", tools=desk_design()
        )
        async for _ in stream:
            pass
        return stream.result

    result = asyncio.run(main())

    assert [{k: v for k, v in b.items() if k != "stream"} for b in wire.bodies] == plain_bodies
    assert all(b["stream"] is True for b in wire.bodies)
    assert [r.headers.get("anthropic-beta") for r in wire.requests] == [
        "mid-conversation-tool-changes-2026-07-01" if beta else None
    ] * 4
    assert result.messages == plain.messages
