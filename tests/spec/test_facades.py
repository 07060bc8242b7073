"""Unfolding facades as data: plain, nested, by category, exclusive, inline."""

from __future__ import annotations

import pytest

import statetools as st
from statetools.definitions.unfolding import UnfoldingTool
from statetools.models import ScriptedModel
from tests.spec import sample
from tests.spec import sample_facades as f

F = "tests.spec.sample_facades"


def _load(text: str) -> object:
    return st.load_playbook(text, tools=f.REGISTRY)


def test_a_facade_equals_the_one_unfolding_tool_of_makes() -> None:
    facade = _load(
        """
kind: facade
name: workspace
description: Open the workspace tools
exclusive: true
tools:
  - name: documents
    description: Open the document tools
    tools:
      - {name: editing, description: Open the editing tools, tools: [write_file]}
      - read_file
  - list_files
"""
    )
    assert facade == f.nested


def test_a_by_category_facade_equals_the_one_by_category_makes() -> None:
    facade = _load(
        """
kind: facade
name: files
description: Open the file tools
usage_notes: Read before you write.
tools: [read_file, list_files, write_file, help_files]
categories:
  read: [read_file, list_files]
  write: [write_file]
"""
    )
    assert facade == f.files
    assert isinstance(facade, UnfoldingTool)
    assert facade.categories == (
        ("read", ("read_file", "list_files", "help_files")),
        ("write", ("write_file", "help_files")),
    )
    assert facade.input_schema["properties"]["category"]["enum"] == ["read", "write"]


def test_a_category_parameter_of_its_own() -> None:
    facade = _load(
        "kind: facade\nname: f\ndescription: d\ntools: [read_file]\n"
        "categories: {read: [read_file]}\ncategory_parameter: area\n"
    )
    assert isinstance(facade, UnfoldingTool)
    assert facade.input_schema["required"] == ["area"]


def test_facades_inline_wherever_a_tool_goes() -> None:
    design = st.load_design(
        """
definitions:
  - kind: playbook
    name: p
    description: d
    tools:
      - list_files
      - {name: reading, description: Open the reading tools, tools: [read_file]}
      - tool: {kind: facade, name: writing, description: Open writing, tools: [write_file]}
        unlocked_by: list_files
  - kind: machine
    name: m
    description: d
    states:
      A:
        tools:
          - tool: {name: a_tools, description: Open the A tools, tools: [confirm]}
            transitions_to: B
      B: {}
    global_tools:
      - {name: helpers, description: Open the helpers, tools: [help]}
""",
        tools=f.REGISTRY,
    )
    playbook, machine = design.definitions
    assert [type(t).__name__ for t in playbook.tools] == ["Tool", "UnfoldingTool", "UnfoldingTool"]
    assert playbook.conditions == {"writing": st.After("list_files")}
    assert [t.name for t in machine.tools] == ["a_tools", "helpers"]
    assert machine.global_tools == ("helpers",)


def test_a_facade_in_a_run_unfolds_into_its_tools() -> None:
    facade = _load(
        "kind: facade\nname: files\ndescription: Open the file tools\n"
        "tools: [read_file, list_files]\n"
    )
    model = ScriptedModel([("files", {}), ("list_files", {}), "a.txt"])
    result = st.ToolLoop(model).run("What files are there?", tools=[facade])
    assert result.output == "a.txt"
    assert [r.tool_names for r in model.requests] == [
        ["files"],
        ["read_file", "list_files"],
        ["read_file", "list_files"],
    ]


def test_a_selectable_facade_by_import_path() -> None:
    playbook = _load(f"kind: playbook\nname: p\ndescription: d\ntools: [{F}:picker]\n")
    assert isinstance(playbook, st.PlaybookTool)
    assert playbook.tools == [f.picker]
    design = st.load_design(f"definitions: [{F}:picker, {F}:files]")
    assert design.definitions == (f.picker, f.files)


@pytest.mark.parametrize("facade", [f.nested, f.files], ids=["nested", "by_category"])
def test_facades_round_trip(facade: UnfoldingTool) -> None:
    text = st.dump_playbook(facade)
    assert st.load_playbook(text, tools=f.REGISTRY) == facade


def test_the_written_text_of_a_by_category_facade() -> None:
    assert st.dump_playbook(f.files) == (
        "kind: facade\n"
        "name: files\n"
        "description: Open the file tools\n"
        "usage_notes: Read before you write.\n"
        "tools:\n"
        f"  - {F}:read_file\n"
        f"  - {F}:list_files\n"
        f"  - {F}:write_file\n"
        f"  - {F}:help_files\n"
        "categories:\n"
        "  read:\n"
        "    - read_file\n"
        "    - list_files\n"
        "  write:\n"
        "    - write_file\n"
    )


def test_facades_inside_definitions_round_trip() -> None:
    playbook = (
        st.PlaybookTool("p", "d").with_tools(f.files).with_tool(f.nested).unlocked_by("files")
    )
    machine = (
        st.StateMachineTool("m", "d", sample.OrderState)
        .in_state(sample.OrderState.DRAFT)
        .with_tool(f.files)
        .transitions_to(sample.OrderState.SHIPPED)
        .with_global_tools(f.nested)
    )
    for definition in (playbook, machine):
        text = st.dump_playbook(definition)
        assert st.load_playbook(text, tools=f.REGISTRY) == definition, text


def test_a_selectable_facade_cannot_be_written_inline() -> None:
    with pytest.raises(st.SpecError, match="a selectable facade cannot be written"):
        st.dump_playbook(f.picker)


def test_facade_mistakes() -> None:
    text = """\
kind: facade
name: f
description: d
tools:
  - read_file
  - {name: inner, description: d, tools: [nope], colour: red}
  - {kind: playbook, name: x, description: d}
categories:
  read: [read_file, write_file]
"""
    with pytest.raises(st.SpecError) as caught:
        _load(text)
    assert [(p.where, p.line, p.message) for p in caught.value.problems] == [  # type: ignore[attr-defined]
        ("$.tools[1].tools[0]", 6, "unknown tool 'nope'"),
        ("$.tools[1].colour", 6, "unknown key 'colour'"),
        (
            "$.tools[2].kind",
            7,
            "only a facade can be written inline where a tool goes, not 'playbook'",
        ),
    ]


def test_categories_name_tools_of_the_facade() -> None:
    with pytest.raises(st.SpecError) as caught:
        _load(
            "kind: facade\nname: f\ndescription: d\ntools: [read_file]\n"
            "categories:\n  read: [read_file, write_file]\n"
        )
    assert [(p.where, p.message) for p in caught.value.problems] == [  # type: ignore[attr-defined]
        ("$.categories.read[1]", "'write_file' is not a tool of this facade")
    ]
    with pytest.raises(st.SpecError, match="category_parameter needs categories"):
        _load("kind: facade\nname: f\ndescription: d\ncategory_parameter: area\n")
