"""OpenAIChatModel(disclosure="stable_prefix") with the real openai SDK against a local
server: one tools array for the whole run, opened tools described in the result that
opened them and called through call_tool (issue 30: local servers re-read the whole
conversation at every disclosure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import statetools as st
from statetools.messages import AssistantMessage, ToolCall
from statetools.models import ModelResponse, OpenAIChatModel
from statetools.models.stable_prefix import dispatched
from tests.providers.provider_wire import WireServer, chat_completion, openai_call


def ls(path: str) -> str:
    """List the files of a folder."""
    return "a.txt b.txt"


def cat(name: str) -> str:
    """Show a file."""
    return "hello"


def note(text: str) -> str:
    """Keep a note."""
    return "noted"


def design() -> list[Any]:
    return [st.Facade.of("files", "Open the file tools.", [ls, cat]), note]


def model(wire: WireServer) -> OpenAIChatModel:
    return OpenAIChatModel(
        "qwen", base_url=f"{wire.url}/v1", api_key="sk-local", disclosure="stable_prefix"
    )


def function(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }


CALL_TOOL = {
    "type": "function",
    "function": {
        "name": "call_tool",
        "description": "Call a tool that a tool result made available in this conversation.",
        "parameters": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name"},
                "arguments": {"type": "object", "description": "The tool's arguments"},
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        },
    },
}
DECLARED = [
    function("files", "Open the file tools.", {}),
    function("note", "Keep a note.", {"text": {"type": "string"}}),
    CALL_TOOL,
]
OPENED = (
    "Tools now available: ls, cat.\n"
    'Call these tools with call_tool, giving "name" and "arguments" (their definitions '
    "follow, one per line):\n"
    '{"name": "ls", "description": "List the files of a folder.", "parameters": {"type": '
    '"object", "properties": {"path": {"type": "string"}}, "required": ["path"], '
    '"additionalProperties": false}}\n'
    '{"name": "cat", "description": "Show a file.", "parameters": {"type": "object", '
    '"properties": {"name": {"type": "string"}}, "required": ["name"], '
    '"additionalProperties": false}}'
)


def dispatch(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return openai_call(call_id, "call_tool", json.dumps({"name": name, "arguments": arguments}))


def test_the_tools_array_never_changes_and_each_request_only_appends(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[openai_call("c1", "files", "{}")]))
    wire.reply(chat_completion(tool_calls=[dispatch("c2", "ls", {"path": "."})]))
    wire.reply(chat_completion("Done."))

    result = st.ToolLoop(model(wire)).run("List the files.", tools=design())

    assert [body["tools"] for body in wire.bodies] == [DECLARED] * 3
    for before, after in zip(wire.bodies, wire.bodies[1:], strict=False):
        assert after["messages"][: len(before["messages"])] == before["messages"]
    assert wire.bodies[2]["messages"][2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": OPENED},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c2",
                    "type": "function",
                    "function": {
                        "name": "call_tool",
                        "arguments": '{"name": "ls", "arguments": {"path": "."}}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c2", "content": "a.txt b.txt"},
    ]
    # the loop, its trace and its history see the tool itself
    assert [e.name for e in result.trace if e.type == "tool_called"] == ["files", "ls"]
    assert result.messages[3].tool_calls == (ToolCall("c2", "ls", {"path": "."}),)
    assert result.output == "Done."


def test_locks_hold_through_call_tool_and_a_hidden_tool_stays_declared(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[dispatch("c1", "ls", {"path": "."})]))
    wire.reply(chat_completion(tool_calls=[openai_call("c2", "files", "{}")]))
    wire.reply(chat_completion(tool_calls=[openai_call("c3", "files", "{}")]))
    wire.reply(chat_completion("Done."))

    result = st.ToolLoop(model(wire)).run("List the files.", tools=design())

    assert [body["tools"] for body in wire.bodies] == [DECLARED] * 4
    answers = [m.content for m in result.messages if isinstance(m, st.ToolMessage)]
    assert answers[0] == "Tool 'ls' is locked. Call first: files."
    assert answers[1] == "Tools now available: ls, cat."  # described once, in the request
    tool_messages = [m for m in wire.bodies[3]["messages"] if m["role"] == "tool"]
    assert tool_messages[1]["content"] == OPENED
    assert tool_messages[2]["content"] == answers[2] == "Tools now available: ls, cat."


def test_a_design_that_opens_nothing_later_declares_no_call_tool(wire: WireServer) -> None:
    wire.reply(chat_completion(tool_calls=[openai_call("c1", "note", '{"text": "x"}')]))
    wire.reply(chat_completion("Done."))

    st.ToolLoop(model(wire)).run("Note x.", tools=[note])

    assert [body["tools"] for body in wire.bodies] == [[DECLARED[1]]] * 2


def test_a_tool_named_call_tool_is_refused_with_the_reason(wire: WireServer) -> None:
    clash = st.Tool.create("call_tool", "Mine.", lambda: "x")
    with pytest.raises(st.ProviderError) as raised:
        st.ToolLoop(model(wire)).run("Go.", tools=[clash, *design()])
    assert str(raised.value) == (
        "OpenAIChatModel(disclosure='stable_prefix'): a tool is named 'call_tool', the name "
        "this mode calls opened tools through Hint: rename tool 'call_tool', or use another "
        "disclosure mode"
    )
    assert raised.value.result.outcome == "ProviderError"
    assert wire.bodies == []


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"name": "ls", "arguments": {"path": "."}}, ToolCall("c1", "ls", {"path": "."})),
        ({"name": "ls", "arguments": '{"path": "."}'}, ToolCall("c1", "ls", {"path": "."})),
        ({"name": "ls", "path": "."}, ToolCall("c1", "ls", {"path": "."})),
        (
            {"arguments": {"path": "."}},
            ToolCall(
                "c1",
                "call_tool",
                {"arguments": {"path": "."}},
                invalid_arguments="Invalid call of tool 'call_tool': 'name' must be the name "
                "of a tool made available in this conversation.",
            ),
        ),
        (
            {"name": "ls", "arguments": "[1"},
            ToolCall(
                "c1",
                "ls",
                invalid_arguments="Invalid arguments for tool 'ls': not valid JSON "
                "(Expecting ',' delimiter at position 2). Send the arguments as one JSON "
                "object.",
            ),
        ),
    ],
)
def test_call_tool_takes_the_arguments_however_a_small_model_writes_them(
    arguments: dict[str, Any], expected: ToolCall
) -> None:
    call = ToolCall("c1", "call_tool", arguments)
    response = ModelResponse(AssistantMessage("", (call,)), stop_reason="tool_use")
    assert dispatched(response).message.tool_calls == (expected,)


def test_the_mode_is_named_in_the_error_for_an_unknown_one() -> None:
    with pytest.raises(st.StatetoolsError, match="'tools' or 'allowed_tools' or 'stable_prefix'"):
        OpenAIChatModel("m", api_key="k", disclosure="prefix")  # type: ignore[arg-type]
