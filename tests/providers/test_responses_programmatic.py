"""OpenAI's Programmatic Tool Calling (``OpenAIResponsesModel(code_execution=True)``) on
the wire, with the real ``openai`` client against a local server: the declared tools are
callable from the model's programs, each call a program makes is answered by the run
like a direct one (a locked tool never runs and the program gets the guidance; an
unlock holds for the program's later calls), and the program's items go back verbatim
with each output naming its caller, so the program goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import attrs
import pytest

import statetools as st
from statetools.models import OpenAIResponsesModel
from statetools.testing.runs import format_trace
from tests.providers.provider_wire import WireServer, function_call, output_message, response

PROGRAM = {
    "type": "program",
    "id": "prog_1",
    "call_id": "call_prog",
    "code": "await refund({order: 'o7'}).catch(() => null);\n"
    "const found = await lookup({order: 'o7'});\n"
    "text(await refund({order: 'o7'}));",
    "fingerprint": "fp_opaque_1",
}
CALLER = {"type": "program", "caller_id": "call_prog"}
PROGRAM_OUTPUT = {
    "type": "program_output",
    "id": "progout_1",
    "call_id": "call_prog",
    "result": "refunded o7",
    "status": "completed",
}
PROMPT = "Refund o7 if it is late."
LOCKED = "Tool 'refund' is locked. Call first: lookup."
ORDER = {
    "type": "object",
    "properties": {"order": {"type": "string"}},
    "required": ["order"],
    "additionalProperties": False,
}
CALLERS = ["direct", "programmatic"]


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


def from_program(call_id: str, name: str) -> dict[str, Any]:
    return {**function_call(call_id, name, '{"order": "o7"}'), "caller": CALLER}


TURNS = [
    [PROGRAM, from_program("call_1", "refund")],
    [from_program("call_2", "lookup")],
    [from_program("call_3", "refund")],
]
"""What the server answers while the program runs: its three calls, one per answer."""
FINAL = [PROGRAM_OUTPUT, output_message("Refunded o7.")]


def wire_tool(name: str, description: str) -> dict[str, Any]:
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": ORDER,
        "strict": False,
        "allowed_callers": CALLERS,
    }


def output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text, "caller": CALLER}


def run(
    wire: WireServer,
    turns: list[list[dict[str, Any]]],
    final: list[dict[str, Any]],
    *,
    code_execution: bool = True,
) -> tuple[st.LoopResult, list[str]]:
    for items in turns:
        wire.reply(response(*items))
    wire.reply(response(*final))
    ran: list[str] = []
    loop = st.ToolLoop(model(wire, code_execution), visibility="declared")
    return loop.run(PROMPT, tools=[design(ran)]), ran


def model(wire: WireServer, code_execution: bool = True) -> OpenAIResponsesModel:
    return OpenAIResponsesModel(
        "gpt-test", base_url=wire.url, api_key="sk-test", code_execution=code_execution
    )


def test_a_program_meets_a_lock_and_goes_on_like_the_same_calls_made_directly(
    wire: WireServer,
) -> None:
    result, ran = run(wire, TURNS, FINAL)

    assert ran == ["lookup", "refund"]  # the refund called while locked never ran
    assert result.output == "Refunded o7."
    lookup = wire_tool("lookup", "Find an order.")
    locked = wire_tool("refund", f"Refund an order.\n{LOCKED}")
    refund = wire_tool("refund", "Refund an order.")
    programmatic = {"type": "programmatic_tool_calling"}
    assert [body["tools"] for body in wire.bodies] == [
        [lookup, locked, programmatic],
        [lookup, locked, programmatic],
        [lookup, refund, programmatic],
        [lookup, refund, programmatic],
    ]
    assert wire.bodies[3]["input"] == [
        {"role": "user", "content": PROMPT},
        PROGRAM,  # the fingerprint goes back as it came
        from_program("call_1", "refund"),
        output("call_1", LOCKED),
        from_program("call_2", "lookup"),
        output("call_2", "order o7: late\n[now available: refund]"),
        from_program("call_3", "refund"),
        output("call_3", "refunded o7"),
    ]
    assert [body["input"] for body in wire.bodies[:3]] == [
        wire.bodies[3]["input"][:1],
        wire.bodies[3]["input"][:4],
        wire.bodies[3]["input"][:6],
    ]
    assert [e.type for e in result.trace.events if e.type in ("call_blocked", "tool_called")] == [
        "call_blocked",
        "tool_called",
        "tool_called",
    ]

    direct = WireServer()  # the same calls made by the model itself, in the same turns
    direct.start()
    try:
        plain, plain_ran = run(direct, DIRECT_TURNS, FINAL[1:], code_execution=False)
    finally:
        direct.stop()
    assert plain_ran == ran
    assert format_trace(result) == format_trace(plain)
    assert _events(result) == _events(plain)


DIRECT_TURNS = [
    [function_call(item["call_id"], item["name"], item["arguments"])]
    for item in (items[-1] for items in TURNS)
]


def _events(result: st.LoopResult) -> list[dict[str, Any]]:
    """Every event of the trace without what differs between two runs (times, run id)."""
    volatile = ("at", "duration", "run_id")
    return [
        {key: value for key, value in attrs.asdict(e, recurse=False).items() if key not in volatile}
        for e in result.trace.events
    ]


def test_a_session_saved_while_a_program_runs_sends_its_items_back_the_same(
    wire: WireServer, tmp_path: Path
) -> None:
    unbroken, _ = run(wire, TURNS, FINAL)

    again = WireServer()
    again.start()
    try:
        for items in TURNS[:2]:
            again.reply(response(*items))
        store = st.SqliteStore(tmp_path / "runs.db")
        ran: list[str] = []
        stopped = st.ToolLoop(model(again), visibility="declared", max_iterations=2)
        with pytest.raises(st.MaxIterationsExceeded):
            stopped.run(PROMPT, tools=[design(ran)], session="s1", store=store)
        again.reply(response(*TURNS[2]))
        again.reply(response(*FINAL))
        resumed = st.ToolLoop(model(again), visibility="declared").run(
            None, tools=[design(ran)], session="s1", store=store
        )
    finally:
        again.stop()
    assert again.bodies == wire.bodies
    assert again.bodies[2]["input"][1:3] == [PROGRAM, from_program("call_1", "refund")]
    assert ran == ["lookup", "refund"]
    assert resumed.output == unbroken.output == "Refunded o7."


def completed_stream(body: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The Responses events of an answer: created, then completed with every item."""
    started = {**body, "status": "in_progress", "output": [], "usage": None}
    return [
        (
            "response.created",
            {"type": "response.created", "sequence_number": 0, "response": started},
        ),
        (
            "response.completed",
            {"type": "response.completed", "sequence_number": 1, "response": body},
        ),
    ]


def test_a_streamed_run_sends_the_same_bodies_and_keeps_the_same_trace(
    wire: WireServer,
) -> None:
    answered, _ = run(wire, TURNS, FINAL)

    streamed = WireServer()
    streamed.start()
    try:
        for items in [*TURNS, FINAL]:
            streamed.stream(completed_stream(response(*items)))
        ran: list[str] = []
        loop = st.ToolLoop(model(streamed), visibility="declared")

        async def main() -> st.LoopResult:
            stream = loop.stream(PROMPT, tools=[design(ran)])
            async for _ in stream:
                pass
            return stream.result

        result = asyncio.run(main())
    finally:
        streamed.stop()
    assert [body["stream"] for body in streamed.bodies] == [True] * 4
    assert [{**body, "stream": None} for body in streamed.bodies] == [
        {**body, "stream": None} for body in wire.bodies
    ]
    assert ran == ["lookup", "refund"]
    assert format_trace(result) == format_trace(answered)


def test_without_code_execution_nothing_is_added() -> None:
    request = st.models.ModelRequest(
        (st.UserMessage("hi"),), (st.models.base.ToolDefinition("ping", "Ping.", {}),)
    )
    body = OpenAIResponsesModel("gpt-test", api_key="sk-test").request_body(request)
    assert body["tools"] == [
        {
            "type": "function",
            "name": "ping",
            "description": "Ping.",
            "parameters": {},
            "strict": False,
        }
    ]


@pytest.mark.parametrize("disclosure", ["allowed_tools", "tool_search"])
def test_code_execution_with_another_disclosure_mode_is_refused(disclosure: Any) -> None:
    with pytest.raises(st.StatetoolsError) as refused:
        OpenAIResponsesModel(
            "gpt-test", api_key="sk-test", disclosure=disclosure, code_execution=True
        )
    assert str(refused.value) == (
        "OpenAIResponsesModel(code_execution=...): code_execution=True works with "
        f"disclosure='tools', not {disclosure!r} Hint: leave disclosure at 'tools'; "
        "ToolLoop(visibility='declared') declares the locked tools too, so a program can "
        "call them once they open"
    )
