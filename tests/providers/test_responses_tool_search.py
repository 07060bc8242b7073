"""OpenAIResponsesModel(disclosure="tool_search") against the real openai SDK and a local
server: facades as namespaces of deferred functions, hosted and client searches, locked
tools never on the wire, and a run resumed after a search."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.models import OpenAIResponsesModel
from tests.providers.provider_streams import responses_stream
from tests.providers.provider_wire import WireServer, function_call, output_message, response


def create_issue(title: str) -> str:
    """Open a new issue in the tracker."""
    return f"opened issue 7: {title}"


def list_issues() -> str:
    """List the open issues."""
    return "no open issues"


def archive() -> str:
    """Archive the repository."""
    return "archived"


def delete_repo() -> str:
    """Delete the repository for good."""
    return "deleted"


def ping() -> str:
    """Check that the tracker answers."""
    return "pong"


ISSUES = st.Facade.of(
    "issues", "Issue tracker: open, list and close issues.", [create_issue, list_issues]
)
CLEANUP = (
    st.PlaybookTool("cleanup", "Clean up.")
    .with_tool(archive)
    .with_tool(st.Tool.from_function(delete_repo))
    .unlocked_by(archive)
)
TOOLS = [ISSUES, CLEANUP, ping]

NO_PARAMETERS = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
TITLE = {
    "type": "object",
    "properties": {"title": {"type": "string"}},
    "required": ["title"],
    "additionalProperties": False,
}


def deferred(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": parameters,
        "strict": False,
        "defer_loading": True,
    }


CREATE = deferred("create_issue", "Open a new issue in the tracker.", TITLE)
LIST = deferred("list_issues", "List the open issues.", NO_PARAMETERS)
ISSUES_NAMESPACE = {
    "type": "namespace",
    "name": "issues",
    "description": "Issue tracker: open, list and close issues.",
    "tools": [CREATE, LIST],
}


def function(name: str, description: str) -> dict[str, Any]:
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": NO_PARAMETERS,
        "strict": False,
    }


ARCHIVE = function("archive", "Archive the repository.")
PING = function("ping", "Check that the tracker answers.")
CLIENT_SEARCH = {
    "type": "tool_search",
    "execution": "client",
    "description": "Search the namespaces for the tools you need; the best matches are "
    "loaded (a namespace's tools load together).",
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words describing the tools you need"}
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}
USER = {"role": "user", "content": "File a bug about the login page."}
LOCKED = "Tool 'delete_repo' is locked. Call first: archive."


def model_for(wire: WireServer, execution: str = "server") -> OpenAIResponsesModel:
    return OpenAIResponsesModel(
        "gpt-test",
        base_url=f"{wire.url}/v1",
        api_key="sk-test",
        disclosure="tool_search",
        search_execution=execution,  # type: ignore[arg-type]
    )


def namespaced_call(call_id: str, name: str, namespace: str, arguments: str) -> dict[str, Any]:
    return {**function_call(call_id, name, arguments), "namespace": namespace}


def hosted_search(query: str, loaded: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "type": "tool_search_call",
            "id": "ts_1",
            "call_id": None,
            "execution": "server",
            "status": "completed",
            "arguments": {"query": query},
        },
        {
            "type": "tool_search_output",
            "id": "tso_1",
            "call_id": None,
            "execution": "server",
            "status": "completed",
            "tools": [{**ISSUES_NAMESPACE, "tools": loaded}],
        },
    ]


def test_a_hosted_search_loads_a_namespace_and_a_locked_tool_is_never_on_the_wire(
    wire: WireServer,
) -> None:
    wire.reply(
        response(
            *hosted_search("open an issue", [CREATE]),
            namespaced_call("call_1", "create_issue", "issues", '{"title": "Login fails"}'),
        )
    )
    wire.reply(response(function_call("call_2", "delete_repo", "{}")))
    wire.reply(response(output_message("Filed issue 7.")))

    result = st.ToolLoop(model_for(wire)).run(USER["content"], tools=TOOLS)

    tools = [{"type": "tool_search"}, ISSUES_NAMESPACE, ARCHIVE, PING]
    searched = [
        {
            "type": "tool_search_call",
            "execution": "server",
            "call_id": None,
            "status": "completed",
            "arguments": {"query": "open an issue"},
        },
        {
            "type": "tool_search_output",
            "execution": "server",
            "call_id": None,
            "status": "completed",
            "tools": [{**ISSUES_NAMESPACE, "tools": [CREATE]}],
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "create_issue",
            "namespace": "issues",
            "arguments": '{"title": "Login fails"}',
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "opened issue 7: Login fails",
        },
    ]
    refused = [
        {"type": "function_call", "call_id": "call_2", "name": "delete_repo", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_2", "output": LOCKED},
    ]
    assert wire.bodies == [
        {"model": "gpt-test", "input": [USER], "tools": tools},
        {"model": "gpt-test", "input": [USER, *searched], "tools": tools},
        {"model": "gpt-test", "input": [USER, *searched, *refused], "tools": tools},
    ]
    assert all("delete_repo" not in json.dumps(body["tools"]) for body in wire.bodies)
    assert result.output == "Filed issue 7."
    assert [(e.type, getattr(e, "name", None)) for e in result.trace.events][2:9] == [
        ("model_responded", None),
        ("tool_started", "tool_search"),
        ("tool_called", "tool_search"),
        ("tools_unlocked", None),
        ("tools_hidden", None),
        ("tool_answered", "tool_search"),
        ("tool_started", "create_issue"),
    ]
    assert result.messages[2] == st.ToolMessage(
        "ts_1",
        "tool_search",
        "Tools loaded by name:\n"
        "- create_issue (issues): Open a new issue in the tracker.\n"
        "Tools now available: create_issue, list_issues.",
    )
    assert result.messages[-2] == st.ToolMessage("call_2", "delete_repo", LOCKED, is_error=True)


def test_a_client_search_is_answered_by_the_run_and_its_tools_are_callable_next(
    wire: WireServer,
) -> None:
    wire.reply(
        response(
            {
                "type": "tool_search_call",
                "id": "ts_9",
                "call_id": "search_1",
                "execution": "client",
                "status": "completed",
                "arguments": {"query": "open a new issue"},
            }
        )
    )
    wire.reply(
        response(namespaced_call("call_1", "create_issue", "issues", '{"title": "Login fails"}'))
    )
    wire.reply(response(output_message("Filed issue 7.")))

    result = st.ToolLoop(model_for(wire, "client")).run(USER["content"], tools=TOOLS)

    tools = [CLIENT_SEARCH, ISSUES_NAMESPACE, ARCHIVE, PING]
    searched = [
        {
            "type": "tool_search_call",
            "execution": "client",
            "call_id": "search_1",
            "status": "completed",
            "arguments": {"query": "open a new issue"},
        },
        {
            "type": "tool_search_output",
            "execution": "client",
            "call_id": "search_1",
            "status": "completed",
            "tools": [ISSUES_NAMESPACE],
        },
    ]
    called = [
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "create_issue",
            "namespace": "issues",
            "arguments": '{"title": "Login fails"}',
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "opened issue 7: Login fails",
        },
    ]
    assert wire.bodies == [
        {"model": "gpt-test", "input": [USER], "tools": tools},
        {"model": "gpt-test", "input": [USER, *searched], "tools": tools},
        {"model": "gpt-test", "input": [USER, *searched, *called], "tools": tools},
    ]
    assert result.messages[2] == st.ToolMessage(
        "search_1",
        "tool_search",
        'Tools matching "open a new issue", best first:\n'
        "- create_issue (issues): Open a new issue in the tracker.\n"
        "- list_issues (issues): List the open issues.\n"
        "Tools now available: create_issue, list_issues.",
    )
    assert result.output == "Filed issue 7."


def test_a_run_stopped_after_a_search_resumes_with_the_same_tools_on_the_wire(
    wire: WireServer, tmp_path: Path
) -> None:
    wire.reply(
        response(
            {
                "type": "tool_search_call",
                "id": "ts_9",
                "call_id": "search_1",
                "execution": "client",
                "status": "completed",
                "arguments": {"query": "list issues"},
            }
        )
    )
    store = st.SqliteStore(tmp_path / "runs.db")
    loop = st.ToolLoop(model_for(wire, "client"), max_iterations=1)
    with pytest.raises(st.MaxIterationsExceeded) as stopped:
        loop.run(USER["content"], tools=TOOLS, session="s1", store=store)
    assert [m.role for m in stopped.value.result.messages] == ["user", "assistant", "tool"]

    wire.reply(response(namespaced_call("call_1", "list_issues", "issues", "{}")))
    wire.reply(response(output_message("No open issues.")))
    resumed = st.ToolLoop(model_for(wire, "client")).run(
        None, tools=TOOLS, session="s1", store=store
    )

    first, second, third = wire.bodies
    assert second["tools"] == first["tools"] == third["tools"]
    assert second["input"][1:] == [
        {
            "type": "tool_search_call",
            "execution": "client",
            "call_id": "search_1",
            "status": "completed",
            "arguments": {"query": "list issues"},
        },
        {
            "type": "tool_search_output",
            "execution": "client",
            "call_id": "search_1",
            "status": "completed",
            "tools": [ISSUES_NAMESPACE],
        },
    ]
    assert third["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "no open issues",
    }
    assert resumed.output == "No open issues."


def test_a_streamed_hosted_search_is_read_from_the_final_response(wire: WireServer) -> None:
    first = response(
        *hosted_search("open an issue", [CREATE]),
        namespaced_call("call_1", "create_issue", "issues", '{"title": "Login fails"}'),
    )
    events: list[tuple[str, dict[str, Any]]] = []
    for index, item in enumerate(first["output"]):
        for kind in ("response.output_item.added", "response.output_item.done"):
            data = {"type": kind, "sequence_number": len(events), "output_index": index}
            events.append((kind, {**data, "item": item}))
    events.append(
        (
            "response.completed",
            {"type": "response.completed", "sequence_number": len(events), "response": first},
        )
    )
    wire.stream(events)
    wire.stream(
        responses_stream(response(output_message("Filed issue 7.")), ["Filed ", "issue 7."])
    )

    async def main() -> tuple[list[st.StreamEvent], st.LoopResult]:
        stream = st.ToolLoop(model_for(wire)).stream(USER["content"], tools=TOOLS)
        return [event async for event in stream], stream.result

    streamed, result = asyncio.run(main())

    assert [e for e in streamed if isinstance(e, st.ToolCallStarted)] == [
        st.ToolCallStarted(1, "call_1", "create_issue")
    ]
    assert [m.name for m in result.messages if isinstance(m, st.ToolMessage)] == [
        "tool_search",
        "create_issue",
    ]
    assert wire.bodies[1]["input"][1]["type"] == "tool_search_call"
    assert wire.bodies[1]["tools"] == wire.bodies[0]["tools"]
    assert result.output == "Filed issue 7."


def test_a_run_stopped_after_a_hosted_search_resumes_from_its_messages_and_state(
    wire: WireServer,
) -> None:
    wire.reply(response(*hosted_search("list issues", [LIST])))
    with pytest.raises(st.MaxIterationsExceeded) as stopped:
        st.ToolLoop(model_for(wire), max_iterations=1).run(USER["content"], tools=TOOLS)
    partial = stopped.value.result

    wire.reply(response(namespaced_call("call_1", "list_issues", "issues", "{}")))
    wire.reply(response(output_message("No open issues.")))
    resumed = st.ToolLoop(model_for(wire)).run(partial.messages, tools=TOOLS, state=partial.state)

    first, second, third = wire.bodies
    assert second["tools"] == first["tools"] == third["tools"]
    assert second["input"] == [
        USER,
        {
            "type": "tool_search_call",
            "execution": "server",
            "call_id": None,
            "status": "completed",
            "arguments": {"query": "list issues"},
        },
        {
            "type": "tool_search_output",
            "execution": "server",
            "call_id": None,
            "status": "completed",
            "tools": [{**ISSUES_NAMESPACE, "tools": [LIST]}],
        },
    ]
    assert third["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "no open issues",
    }
    assert resumed.output == "No open issues."
