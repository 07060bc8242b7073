"""``timeout:`` next to a tool in YAML: the tool's own timeout, loaded, dumped and run."""

from __future__ import annotations

import asyncio

import pytest

import statetools as st
from statetools.models import ScriptedModel


async def slow() -> str:
    """Build the report slowly."""
    await asyncio.Event().wait()
    return "never"


def quick() -> str:
    """Answer quickly."""
    return "quick"


TOOLS = [st.Tool.from_function(slow), st.Tool.from_function(quick)]

PLAYBOOK = """\
kind: playbook
name: report
description: Write the report
tools:
  - quick
  - tool: slow
    unlocked_by: quick
    timeout: 0.05
"""

MACHINE = """\
kind: machine
name: flow
description: A flow
states:
  START:
    tools:
      - tool: slow
        transitions_to: END
        timeout: 2
      - quick
  END: {}
initial: START
"""


def test_a_playbook_tool_gets_its_timeout_and_a_run_answers_it_as_timed_out() -> None:
    playbook = st.load_playbook(PLAYBOOK, tools=TOOLS)
    slow_tool = {entry.tool.name: entry.tool for entry in playbook.entries}["slow"]
    assert slow_tool.metadata == st.ToolMetadata(timeout=0.05)

    model = ScriptedModel([("quick", {}), ("slow", {}), "Too slow."])
    result = st.ToolLoop(model).run("Report.", tools=[playbook])

    assert result.messages[4] == st.ToolMessage(
        "call_2", "slow", "Tool 'slow' timed out after 0.05 s.", True
    )


def test_timeouts_round_trip_through_dump() -> None:
    playbook = st.load_playbook(PLAYBOOK, tools=TOOLS)
    machine = st.load_playbook(MACHINE, tools=TOOLS)
    assert st.load_playbook(st.dump_playbook(playbook), tools=TOOLS) == playbook
    assert st.load_playbook(st.dump_playbook(machine), tools=TOOLS) == machine
    assert "    timeout: 2.0\n" in st.dump_playbook(machine)
    assert {tool.name: tool.metadata.timeout for tool in machine.tools} == {
        "slow": 2.0,
        "quick": None,
    }


@pytest.mark.parametrize(
    ("bad", "shown"), [("0", "0"), ("-3", "-3"), ("soon", "'soon'"), ("true", "True")]
)
def test_a_bad_timeout_is_a_spec_error_with_path_and_line(bad: str, shown: str) -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(PLAYBOOK.replace("timeout: 0.05", f"timeout: {bad}"), tools=TOOLS)
    [problem] = caught.value.problems
    assert (problem.where, problem.line) == ("$.tools[1].timeout", 8)  # type: ignore[attr-defined]
    assert problem.message == f"invalid timeout {shown}"  # type: ignore[attr-defined]
    assert problem.hint == (  # type: ignore[attr-defined]
        "give the timeout in seconds, a number greater than 0 (or none)"
    )
