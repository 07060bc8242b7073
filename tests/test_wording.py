"""Counts of one read in the singular wherever statetools writes a count: reports,
CLI lines, errors and the texts the model is shown."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import attrs
import pytest

import statetools as st
from statetools.cli import main
from statetools.wording import counted


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def step(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: "done")


def test_counted_picks_the_singular_for_one_only() -> None:
    assert [counted(n, "tool") for n in (0, 1, 2, 1_000)] == [
        "0 tools",
        "1 tool",
        "2 tools",
        "1,000 tools",
    ]
    assert (counted(1, "entry", "entries"), counted(3, "entry", "entries")) == (
        "1 entry",
        "3 entries",
    )


def test_explore_summary_of_one_state_and_one_turn() -> None:
    only = step("only", "The only tool")
    assert st.explore([only]).to_text().splitlines()[0] == (
        "1 disclosure state, 1 distinct visible set (complete)"
    )
    a, b, c = step("a", "Step one"), step("b", "Step two"), step("c", "Step three")
    playbook = st.PlaybookTool("p", "d").with_tool(a).with_tool(b).unlocked_by(a)
    playbook = playbook.with_tool(c).unlocked_by(b)
    assert st.explore([playbook], max_depth=1).to_text().splitlines()[0] == (
        "2 disclosure states, 2 distinct visible sets (first 1 turn only)"
    )


def test_check_messages_with_one_call_and_one_tool() -> None:
    files = st.UnfoldingTool.of("files", "File tools", [step("a", "Step one")])
    assert [(f.code, f.message) for f in st.check([files], max_facade_depth=0).findings] == [
        (
            "ST009",
            "Facade 'files' is nested 1 deep (limit 0): the model needs 1 call to reach its tools.",
        )
    ]
    only = step("only", "The only tool")
    assert [(f.code, f.message) for f in st.check([only], token_budget=1).findings] == [
        ("ST010", "1 tool visible takes 37 tokens, over the budget of 1.")
    ]


def test_a_list_argument_of_one_item_at_least_or_at_most() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1}
        },
        "required": ["tags"],
    }
    tag = st.Tool.create("tag", "Tag", lambda tags: "ok", schema=schema)
    assert [tag.call({"tags": tags}).text for tags in ([], ["a", "b"])] == [
        "Invalid arguments for tool 'tag': argument 'tags' must have at least 1 item, got 0. "
        "Call it again with corrected arguments.",
        "Invalid arguments for tool 'tag': argument 'tags' must have at most 1 item, got 2. "
        "Call it again with corrected arguments.",
    ]


def test_one_model_call_ends_the_run_and_the_trace_in_the_singular() -> None:
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        st.ToolLoop(st.models.ScriptedModel([("only", {})]), max_iterations=1).run(
            "Go", tools=[step("only", "The only tool")]
        )
    assert caught.value.message == "no final answer after 1 model call"
    result = st.ToolLoop(st.models.ScriptedModel(["Hi"])).run("Hello")
    assert st.testing.format_trace(result.trace).splitlines()[-1] == (
        "finished: answer after 1 iteration"
    )
    assert "messages=<1 message>, iterations=1" in repr(
        attrs.evolve(result, messages=result.messages[:1])
    )
    with pytest.raises(st.ScriptExhaustedError) as exhausted:
        st.ToolLoop(st.models.ScriptedModel([("only", {})])).run(
            "Go", tools=[step("only", "The only tool")]
        )
    assert exhausted.value.message == "the script has no step left for request 2 (it has 1 step)"


DESIGN = """\
kind: playbook
name: one
description: One tool
tools: [{module}:only]
prompt: Hello
script:
  - answer: Done.
"""


def write_design(folder: Path) -> Path:
    """``folder/one.yaml`` and its tools module, named after the folder (each test
    imports its own)."""
    module = f"one_{folder.name.replace('-', '_')}"
    (folder / f"{module}.py").write_text(
        'def only() -> str:\n    """The only tool"""\n    return "done"\n', encoding="utf-8"
    )
    design = folder / "one.yaml"
    design.write_text(DESIGN.replace("{module}", module), encoding="utf-8")
    return design


def test_cli_lines_of_one_session_call_path_and_tool(tmp_path: Path) -> None:
    design = write_design(tmp_path)
    store = str(tmp_path / "s.db")
    assert cli("run", str(design), "--session", "s1", "--store", store)[0] == 0
    status, text = cli("sessions", "--store", store)
    assert status == 0
    assert re.fullmatch(r"s1  answer         1 model call   \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n", text)
    status, text = cli("run", str(design), "--session", "s1", "--store", store)
    assert text.splitlines()[0] == "session s1: continuing after 1 model call"
    assert cli("tokens", str(design), "--prefix-breaks") == (
        0,
        "first visible set: 1 tool, 37 tokens (openai, o200k_base)\n"
        "prefix breaks per path (1 path, 0 with breaks; registration order in parentheses):\n"
        "  0 (0)  (start)\n",
    )


ONE_TOOL_SERVER = '''\
from mcp.server.mcpserver import MCPServer

server = MCPServer("one")


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


server.run()
'''


def test_mcp_list_saves_one_tool(tmp_path: Path) -> None:
    script = tmp_path / "one_tool.py"
    script.write_text(ONE_TOOL_SERVER, encoding="utf-8")
    saved = tmp_path / "one.json"
    command = f"{sys.executable} {script}"
    assert cli("mcp", "list", "one", "--command", command, "--save", str(saved)) == (
        0,
        f"ping  [write]  Answer pong.\nsaved 1 tool to {saved}\n",
    )
