"""``kind: code_mode`` in YAML designs: read, written back, checked and explored, and
bad input reported with its path and a hint."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main
from statetools.models import ScriptedModel
from tests.code import desk_tools

find = st.Tool.from_function(desk_tools.find)
refund = st.Tool.from_function(desk_tools.refund)
add = st.Tool.from_function(desk_tools.add)
DESK = (
    st.PlaybookTool("desk", "Handle an order").with_tool(find).with_tool(refund).unlocked_by(find)
)
MATHS = st.Facade.of("maths", "Arithmetic tools", [add])

DESIGN = """\
kind: code_mode
name: script
limits:
  seconds: 2.0
  calls: 9
items:
  - kind: playbook
    name: desk
    description: Handle an order
    tools:
      - tests.code.desk_tools:find
      - tool: tests.code.desk_tools:refund
        unlocked_by: find
  - name: maths
    description: Arithmetic tools
    tools:
      - tests.code.desk_tools:add
"""


def test_a_code_mode_written_in_yaml_equals_the_one_built_in_python_and_runs() -> None:
    loaded = st.load_playbook(DESIGN)
    assert loaded == st.CodeMode(DESK, MATHS, name="script", seconds=2.0, calls=9)

    model = ScriptedModel([("script", {"code": "find(7)\nrefund(7)"}), "Done."])
    result = st.ToolLoop(model).run("Refund order 7", tools=[loaded])
    assert model.requests[0].tool_names == ["script"]
    assert result.messages[2].content == "refunded 5.0 on 7\n[now callable: refund]"


def test_dump_playbook_writes_a_code_mode_that_loads_back_equal() -> None:
    mode = st.CodeMode(DESK, MATHS, name="script", seconds=2.0, calls=9)
    assert st.dump_playbook(mode) == DESIGN
    assert st.load_playbook(st.dump_playbook(mode)) == mode
    plain = st.CodeMode(find)
    assert st.dump_playbook(plain) == "kind: code_mode\nitems:\n  - tests.code.desk_tools:find\n"
    assert st.load_playbook(st.dump_playbook(plain)) == plain


def test_a_chaining_rule_in_a_code_mode_cannot_be_written() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.dump_playbook(st.CodeMode(find, st.Chaining.any()))
    assert str(caught.value) == (
        "code mode 'run_code', item 1: a chaining rule cannot be written to YAML "
        "Hint: add the rule in Python (ToolLoop(...).with_tool_chaining_from(...))"
    )


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_statetools_check_and_explore_read_a_code_mode_file(tmp_path: Path) -> None:
    path = tmp_path / "design.yaml"
    path.write_text(f"definitions:\n  - {DESIGN.replace(chr(10), chr(10) + '    ')}")
    assert run_cli("check", str(path)) == (0, "No problems found. 0 errors, 0 warnings\n")
    status, text = run_cli("explore", str(path))
    assert status == 0
    table = text.split("tool    turns  tokens  after\n")[1]
    rows = [line.split() for line in table.splitlines() if line]
    assert [(row[0], row[1], row[-1]) for row in rows] == [
        ("script", "0", "(start)"),
        ("find", "0", "(start)"),
        ("maths", "0", "(start)"),
        ("refund", "1", "find"),
        ("add", "1", "maths"),
    ]


def test_a_check_finding_inside_a_code_mode_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "design.yaml"
    path.write_text(DESIGN.replace("unlocked_by: find", "unlocked_by: fnid"))
    status, text = run_cli("check", str(path))
    assert status == 1
    assert text.splitlines()[0] == (
        f"{path}:12: playbook:desk/tool:refund: ST001 error [unknown-reference] The condition "
        "of 'refund' names tool 'fnid', which is not registered. Did you mean 'find'?"
    )
    with pytest.raises(st.SpecError) as caught:  # and a run of it is refused
        st.ToolLoop(ScriptedModel(["never asked"])).run("Go", tools=[st.load_playbook(path)])
    assert str(caught.value).startswith(f"{path}: the design has 2 check errors; it does not run")


def problems(text: str) -> list[str]:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(text, tools=[find])
    return list(caught.value.problems)


def test_unknown_keys_and_bad_items_are_reported_at_their_paths() -> None:
    text = (
        "definitions:\n"
        "  - kind: code_mode\n"
        "    colour: red\n"
        "    items:\n"
        "      - find\n"
        "      - 42\n"
        "      - kind: code_mode\n"
        "        items: [find]\n"
        "      - kind: playbook\n"
        "        name: p\n"
        "        description: P\n"
        "        tools: [nope]\n"
    )
    assert problems(text) == [
        "$.definitions[0].colour (line 3): unknown key 'colour' Hint: allowed keys: items, "
        "name, limits",
        "$.definitions[0].items[1] (line 6): expected a tool or a definition, got 42 Hint: "
        "write a tool's name, 'module:attribute', or a definition with 'kind:'",
        "$.definitions[0].items[2].kind (line 7): a code_mode cannot hold another code_mode "
        "Hint: list the other code_mode's items here, or define it beside this one",
        "$.definitions[0].items[3].tools[0] (line 12): unknown tool 'nope' Hint: pass the "
        "tool in tools=[...], name it by import path ('module:attribute'), or import a tools "
        "file with tools_from",
    ]


def test_limits_of_the_wrong_type_are_each_reported_with_a_hint() -> None:
    text = (
        "kind: code_mode\n"
        "limits: {seconds: fast, memory: true, calls: 2.5, depth: 0, output: '100'}\n"
        "items: [find]\n"
    )
    assert problems(text) == [
        "$.limits.seconds (line 2): invalid seconds 'fast' Hint: give the seconds a script "
        "may run, a number greater than 0, e.g. 5",
        "$.limits.memory (line 2): invalid memory true Hint: give the bytes of memory a "
        "script may use, a whole number, e.g. 67108864",
        "$.limits.calls (line 2): invalid calls 2.5 Hint: give the tool calls a script may "
        "make, a whole number, e.g. 50",
        "$.limits.depth (line 2): invalid depth 0 Hint: give how deeply a script's function "
        "calls may nest, a whole number, e.g. 200",
        "$.limits.output (line 2): invalid output '100' Hint: give the characters of result "
        "kept, a whole number, e.g. 20000",
    ]
    assert problems("kind: code_mode\nlimits: {depht: 3}\nitems: [find]\n") == [
        "$.limits.depht (line 2): unknown key 'depht' Hint: did you mean 'depth'?"
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("kind: code_mode\n", "$.items (line 1): 'items' is required"),
        (
            "kind: code_mode\nitems: []\n",
            "$.items (line 2): a code_mode needs items Hint: list the tools and definitions "
            "its scripts call under 'items:'",
        ),
        (
            "kind: code_mode\nitems: find\n",
            "$.items (line 2): expected a list, got text Hint: write a list: [find]",
        ),
        (
            "kind: code_mod\nitems: [find]\n",
            "$.kind (line 1): unknown kind 'code_mod' Hint: did you mean 'code_mode'?",
        ),
    ],
)
def test_a_code_mode_without_items_or_misspelt_is_one_clear_problem(
    text: str, problem: str
) -> None:
    assert problems(text) == [problem]


def test_limits_of_the_wrong_type_in_python_are_a_definition_error() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.CodeMode(find, seconds="fast")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "CodeMode('run_code').seconds: invalid seconds 'fast' Hint: give the seconds a script "
        "may run, a number greater than 0, e.g. 5"
    )
