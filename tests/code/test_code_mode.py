"""Code mode: one script calls the visible tools, and every call is checked and recorded
as the same call made directly."""

from __future__ import annotations

import enum
from typing import Any

import pytest

import statetools as st
from statetools.engine.events import StateEntered
from statetools.models import ScriptedModel

MODULES = (
    "base64, binascii, bisect, collections, copy, csv, dataclasses, datetime, decimal, "
    "functools, hashlib, itertools, json, math, random, re, tomllib, typing"
)
INTRO = (
    "Run a Python script that calls the tools below as functions, to do several steps in "
    "one go. The result is what the script prints, then the value of its last expression. "
    "A tool returns its result (data, or the text it answers). A call of a tool that is "
    "locked now raises PermissionError saying what to call first; a tool that fails raises "
    "RuntimeError. Calls may make more tools callable, later in the same script. No files, "
    f"network or imports other than {MODULES}."
)
RUN_STRUCTURE = {
    "run_started",
    "iteration_started",
    "model_responded",
    "tool_answered",
    "run_finished",
}


class Desk:
    """A playbook whose second step is locked until the first ran; counts its calls."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def lookup(self, order: int) -> dict[str, Any]:
        """Find an order."""
        self.ran.append("lookup")
        return {"order": order, "status": "late"}

    def refund(self, order: int, amount: float = 5.0) -> str:
        """Refund part of an order."""
        self.ran.append("refund")
        return f"refunded {amount} on {order}"

    def playbook(self) -> st.PlaybookTool:
        lookup = st.Tool.from_function(self.lookup)
        refund = st.Tool.from_function(self.refund)
        return (
            st.PlaybookTool("desk", "Handle an order")
            .with_tool(lookup)
            .with_tool(refund)
            .unlocked_by(lookup)
        )


def _calls_and_changes(result: st.LoopResult) -> list[tuple[Any, ...]]:
    """The trace without the run's structure (turns, answers) and without call ids."""
    kept: list[tuple[Any, ...]] = []
    for event in result.trace.events:
        if event.type in RUN_STRUCTURE or getattr(event, "name", None) == "run_code":
            continue
        fields = {k: v for k, v in vars_of(event).items() if k not in ("call_id", "duration")}
        fields.pop("iteration", None)
        kept.append(tuple(sorted(fields.items())))
    return kept


def vars_of(event: Any) -> dict[str, Any]:
    import attrs

    return attrs.asdict(event, recurse=False)


def test_a_script_meets_a_lock_catches_it_and_goes_on_like_the_same_calls_made_directly() -> None:
    script = (
        "try:\n"
        "    refund(7)\n"
        "except PermissionError as error:\n"
        "    print('locked:', error)\n"
        "found = lookup(order=7)\n"
        "print(found['status'])\n"
        "refund(found['order'], amount=2.5)\n"
    )
    coded = Desk()
    code_model = ScriptedModel([("run_code", {"code": script}), "Refunded 2.5."])
    in_code = st.ToolLoop(code_model).run("Order 7 is late", tools=[st.CodeMode(coded.playbook())])

    direct = Desk()
    direct_model = ScriptedModel(
        [
            ("refund", {"order": 7}),
            ("lookup", {"order": 7}),
            ("refund", {"order": 7, "amount": 2.5}),
            "Refunded 2.5.",
        ]
    )
    plain = st.ToolLoop(direct_model).run("Order 7 is late", tools=[direct.playbook()])

    assert _calls_and_changes(in_code) == _calls_and_changes(plain)
    assert [e.type for e in in_code.trace.events if e.type != "tool_answered"][3:-3] == [
        "tool_started",  # run_code
        "call_blocked",
        "tool_started",
        "tool_called",
        "tools_unlocked",
        "tool_started",
        "tool_called",
        "tool_called",  # run_code
    ]
    assert [e.call_id for e in in_code.trace.events if e.type == "tool_called"] == [
        "call_1.2",
        "call_1.3",
        "call_1",
    ]
    assert coded.ran == direct.ran == ["lookup", "refund"]  # the locked refund never ran
    assert in_code.output == plain.output == "Refunded 2.5."
    code_state, plain_state = in_code.state, plain.state
    assert dict(code_state.call_counts) == {**plain_state.call_counts, "run_code": 1}
    assert code_state.machine_states == plain_state.machine_states
    assert code_state.artifacts == plain_state.artifacts
    assert code_state.unfolds == plain_state.unfolds
    answer = in_code.messages[2]
    assert (answer.role, answer.name, answer.is_error) == ("tool", "run_code", False)
    assert answer.content == (
        "locked: Tool 'refund' is locked. Call first: lookup.\n"
        "late\n"
        "refunded 2.5 on 7\n"
        "[now callable: refund]"
    )


def test_the_model_sees_one_tool_listing_the_tools_callable_now_as_typed_functions() -> None:
    desk = Desk()
    script = "lookup(1)\n'ok'"
    model = ScriptedModel([("run_code", {"code": script}), "Done."])
    st.ToolLoop(model).run("Go", tools=[st.CodeMode(desk.playbook())])

    first, second = model.requests
    assert first.tool_names == second.tool_names == ["run_code"]
    assert first.tools[0].input_schema == {
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "Python source. Call the functions listed in the description.",
            }
        },
        "required": ["code"],
    }
    lookup_stub = 'def lookup(order: int) -> Any:\n    """Find an order."""'
    refund_stub = (
        'def refund(order: int, amount: float = 5.0) -> Any:\n    """Refund part of an order."""'
    )
    assert first.tools[0].description == f"{INTRO}\n\n```python\n{lookup_stub}\n```"
    assert second.tools[0].description == (
        f"{INTRO}\n\n```python\n{lookup_stub}\n\n{refund_stub}\n```"
    )


class Phase(enum.Enum):
    DRAFT = "draft"
    SENT = "sent"


def test_a_state_machine_moves_inside_the_script_and_its_tools_follow() -> None:
    def write(text: str) -> str:
        """Write the draft."""
        return "written"

    def send() -> str:
        """Send it."""
        return "sent"

    def track() -> str:
        """Track the parcel."""
        return "on its way"

    machine = (
        st.StateMachineTool("mail", "Mail a letter", Phase)
        .with_initial_state(Phase.DRAFT)
        .in_state(Phase.DRAFT)
        .with_tool(write)
        .in_state(Phase.DRAFT)
        .with_tool(send)
        .transitions_to(Phase.SENT)
        .in_state(Phase.SENT)
        .with_tool(track)
    )
    script = (
        "try:\n    track()\nexcept PermissionError as e:\n    print(e)\n"
        "write('hi')\nsend()\nprint(track())\n"
    )
    model = ScriptedModel([("run_code", {"code": script}), "Sent."])
    result = st.ToolLoop(model).run("Mail it", tools=[st.CodeMode(machine)])

    assert result.state.machine_states == {"mail": "SENT"}
    assert result.messages[2].content == (
        "Tool 'track' is not available in state DRAFT (it is available in: SENT).\n"
        "on its way\n"
        "[now callable: track]"
    )
    assert [e for e in result.trace.events if e.type == "state_entered"] == [
        StateEntered(1, "mail", "SENT", "DRAFT", False)
    ]


def test_a_facade_called_in_the_script_opens_its_tools_for_the_rest_of_it() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    maths = st.Facade.of("maths", "Arithmetic tools", [st.Tool.from_function(add)])
    script = "try:\n    add(1, 2)\nexcept PermissionError as e:\n    print(e)\nmaths()\nadd(2, 3)"
    model = ScriptedModel([("run_code", {"code": script}), "5"])
    result = st.ToolLoop(model).run("2+3?", tools=[st.CodeMode(maths)])

    assert result.messages[2].content == (
        "Tool 'add' is locked. Call first: maths.\n5\n[now callable: add]"
    )
    assert result.state.unfolds == (("maths", "{}"),)
    assert [r.tool_names for r in model.requests] == [["run_code"], ["run_code"]]
    assert "def maths() -> Any:" in model.requests[0].tools[0].description
    assert "def add(a: int, b: int) -> Any:" in model.requests[1].tools[0].description


def _one_script(code: str, **limits: Any) -> st.ToolMessage:
    desk = Desk()
    model = ScriptedModel([("run_code", {"code": code}), ("lookup", {"order": 3}), "Done."])
    result = st.ToolLoop(model).run("Go", tools=[st.CodeMode(desk.playbook(), **limits)])
    assert result.output == "Done."  # the run went on after the script
    assert desk.ran == ["lookup"]  # the direct call after it ran
    message = result.messages[2]
    assert isinstance(message, st.ToolMessage)
    return message


REFUSED_IMPORT = (
    "run_code: '{statement}' is not allowed (line 1): scripts have no file system, network "
    f"or processes. Modules a script may import: {MODULES}."
)
NOT_AVAILABLE = (
    "run_code: '{name}' is not available (line 1): scripts have no file system, network or "
    "processes, and run no other code."
)


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("open('/etc/passwd').read()", NOT_AVAILABLE.format(name="open")),
        ("import os\nos.listdir('/')", REFUSED_IMPORT.format(statement="import os")),
        ("import socket\nsocket.socket()", REFUSED_IMPORT.format(statement="import socket")),
        ("from pathlib import Path", REFUSED_IMPORT.format(statement="from pathlib import ...")),
        ("__import__('os')", NOT_AVAILABLE.format(name="__import__")),
        ("eval('1')", NOT_AVAILABLE.format(name="eval")),
        ("lookup.__class__", "run_code: the attribute '__class__' is not available (line 1)."),
    ],
)
def test_files_imports_and_escapes_are_refused_before_the_script_runs(code: str, text: str) -> None:
    message = _one_script(code)
    assert (message.is_error, message.content) == (True, text)


def test_a_script_that_loops_forever_is_stopped_at_its_time_limit() -> None:
    message = _one_script("while True:\n    pass", seconds=0.3)
    assert (message.is_error, message.content) == (
        True,
        "run_code: the script was stopped: it ran longer than 0.3 s.",
    )


def test_a_script_that_allocates_without_bound_is_stopped_at_its_memory_limit() -> None:
    code = "print('start')\nx = []\nwhile True:\n    x.append('a' * 100000)"
    message = _one_script(code, memory=10_000_000)
    assert (message.is_error, message.content) == (
        True,
        "start\nrun_code: the script was stopped: it used more than 10,000,000 bytes of memory.",
    )


def test_a_script_that_calls_tools_without_end_is_stopped_at_its_call_limit() -> None:
    code = "while True:\n    try:\n        refund(1)\n    except PermissionError:\n        pass"
    message = _one_script(code, calls=5)
    assert (message.is_error, message.content) == (
        True,
        "run_code: stopped at tool call 6: a script may make 5 tool calls.",
    )


def test_deep_recursion_and_os_reached_through_an_allowed_module_fail_inside_the_sandbox() -> None:
    recursion = _one_script("def f(n):\n    return f(n + 1)\nf(0)", depth=50)
    assert recursion.is_error
    assert recursion.content.startswith("run_code: the script failed.\nTraceback")
    assert recursion.content.endswith("RecursionError: maximum recursion depth exceeded")


def test_printed_output_past_the_limit_is_cut_with_a_marker() -> None:
    message = _one_script("print('x' * 30)\n'done'", output=20)
    assert (message.is_error, message.content) == (
        False,
        "xxxxxxxxxxxxxxxxxxxx\n[output cut: 15 more characters]",
    )


def test_a_failing_tool_raises_runtime_error_in_the_script_and_syntax_errors_are_reported() -> None:
    def fail() -> str:
        """Always fails."""
        raise ValueError("disk on fire")

    script = "try:\n    fail()\nexcept RuntimeError as e:\n    print('caught:', e)\n"
    model = ScriptedModel([("run_code", {"code": script}), ("run_code", {"code": "def (:"}), "ok"])
    result = st.ToolLoop(model).run("Go", tools=[st.CodeMode(fail)])
    caught, syntax = (m for m in result.messages if m.role == "tool")
    assert caught.content == "caught: Tool 'fail' failed: disk on fire"
    assert syntax.is_error
    assert syntax.content.startswith("run_code: the script is not valid Python.\n")
    assert syntax.content.endswith("SyntaxError: Expected an identifier")


def test_names_that_are_no_tool_and_bad_arguments_raise_inside_the_script() -> None:
    message = _one_script(
        "try:\n    nothere()\nexcept NameError as e:\n    print(e)\nlookup(1, 2, 3)"
    )
    assert message.is_error
    assert message.content.startswith("name 'nothere' is not defined\nrun_code: the script failed.")
    assert message.content.endswith(
        "TypeError: lookup() takes 1 positional argument but 3 were given"
    )


def test_tools_outside_code_mode_stay_direct_and_a_script_cannot_call_them() -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    desk = Desk()
    model = ScriptedModel([("run_code", {"code": "ping()"}), ("ping", {}), "ok"])
    result = st.ToolLoop(model).run("Go", tools=[ping, st.CodeMode(desk.playbook())])
    assert model.requests[0].tool_names == ["ping", "run_code"]
    script, direct = (m for m in result.messages if m.role == "tool")
    assert script.is_error
    assert script.content.endswith("NameError: name 'ping' is not defined")
    assert direct.content == "pong"


def test_the_code_tool_called_on_its_own_says_it_runs_inside_a_run() -> None:
    tool = st.CodeMode(Desk().playbook()).tool
    result = tool.call({"code": "1"})
    assert (result.is_error, result.text) == (
        True,
        "run_code runs scripts inside a run: pass the CodeMode item in tools=[...] of a "
        "ToolLoop or Conversation.",
    )


def test_a_sandbox_that_cannot_start_is_an_error_result_and_the_run_goes_on() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    program = (
        "import statetools as st\n"
        "from statetools.models import ScriptedModel\n"
        "ping = st.Tool.create('ping', 'Ping.', lambda: 'pong')\n"
        "model = ScriptedModel([('run_code', {'code': 'ping()'}), 'ok'])\n"
        "result = st.ToolLoop(model).run('x', tools=[st.CodeMode(ping)])\n"
        "print(result.messages[2].content)\n"
        "print(result.output)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "MONTY_BIN": "/nonexistent/monty"}
    done = subprocess.run(
        [sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=60
    )
    # (pydantic-monty 1.4 aborts the process at exit after a worker failed to start;
    # the run itself finished, which is what is checked here)
    assert done.stdout.splitlines() == [
        "run_code: the sandbox could not run the script: failed to spawn monty worker: "
        "/nonexistent/monty: No such file or directory (os error 2)",
        "ok",
    ]


def test_with_declared_visibility_the_stubs_list_locked_tools_with_what_unlocks_them() -> None:
    model = ScriptedModel([("run_code", {"code": "refund(1)"}), "ok"])
    desk = Desk()
    result = st.ToolLoop(model, visibility="declared").run(
        "Go", tools=[st.CodeMode(desk.playbook())]
    )

    description = model.requests[0].tools[0].description
    assert description.endswith(
        '```python\ndef lookup(order: int) -> Any:\n    """Find an order."""\n\n'
        "def refund(order: int, amount: float = 5.0) -> Any:\n"
        '    """Refund part of an order.\n'
        "    Tool 'refund' is locked. Call first: lookup.\n"
        '    """\n```'
    )
    assert result.messages[2].content.endswith(
        "PermissionError: Tool 'refund' is locked. Call first: lookup."
    )
    assert desk.ran == []


def test_a_catalogue_for_native_modes_declares_the_script_tool_and_not_its_tools() -> None:
    from statetools.engine import Conversation
    from statetools.models.base import ModelCapabilities

    def ping() -> str:
        """Ping."""
        return "pong"

    conversation = Conversation(
        [ping, st.CodeMode(Desk().playbook())],
        "Go",
        capabilities=ModelCapabilities(declares_all_tools=True),
    )
    request = conversation.next_request()

    assert request.tool_names == ["ping", "run_code"]
    assert request.catalogue is not None
    assert [tool.name for tool in request.catalogue.tools] == ["ping", "run_code"]
    assert request.catalogue.tools[1] is request.tools[1]  # the form listing lookup
