"""dump_playbook writes YAML that loads back to an equal definition."""

from __future__ import annotations

import enum
import json
from pathlib import Path

import pytest
import yaml

import statetools as st
from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    InState,
    OnArtifact,
    OnBlackboard,
    When,
)
from statetools.spec import SchemaOnlyTool, to_data
from tests.spec import sample
from tests.spec.sample import P


def _roundtrip(definition: object, **kwargs: object) -> object:
    text = st.dump_playbook(definition)
    loaded = st.load_playbook(text, **kwargs)  # type: ignore[arg-type]
    assert loaded == definition, text
    return loaded


def test_a_python_built_playbook() -> None:
    _roundtrip(sample.research)


def test_a_python_built_machine_with_guards_labels_globals_and_finals() -> None:
    loaded = _roundtrip(sample.order_machine)
    assert isinstance(loaded, st.StateMachineTool)
    assert loaded.transitions[0].guard is sample.approved


def test_the_written_text_of_a_playbook() -> None:
    assert st.dump_playbook(sample.research) == (
        "kind: playbook\n"
        "name: research\n"
        "description: Research a topic\n"
        "tools:\n"
        f"  - {P}:search\n"
        f"  - tool: {P}:analyze\n"
        "    unlocked_by: search\n"
        f"  - tool: {P}:report\n"
        "    unlocked_by:\n"
        "      - search\n"
        "      - analyze\n"
    )


CONDITIONS: list[Condition] = [
    After("search"),
    After(["search", "analyze"]),
    After("search", count=2),
    After(["search", "analyze"], count=3),
    AllOf(After("search"), After(["analyze", "report"])),
    AnyOf(After("search"), OnArtifact(sample.Order)),
    OnArtifact(dict),
    OnBlackboard(sample.Summary),
    InState("order", "CONFIRMED"),
    When(sample.cart_not_empty, "cart_not_empty"),
    When(sample.cart_not_empty, "the cart has items"),
    AllOf(AnyOf(After("a"), InState("m", "S")), When(sample.cart_not_empty, "x"), After("b")),
]


@pytest.mark.parametrize("condition", CONDITIONS, ids=repr)
def test_every_condition_kind(condition: Condition) -> None:
    playbook = (
        st.PlaybookTool("p", "d")
        .with_tools(sample.search)
        .with_tool(sample.report)
        .unlocked(condition)
    )
    loaded = _roundtrip(playbook)
    assert isinstance(loaded, st.PlaybookTool)
    assert loaded.entries[1].condition == condition


def test_optional_conditions_stay_absent() -> None:
    playbook = st.PlaybookTool("p", "d").with_tools(sample.search, sample.analyze)
    loaded = _roundtrip(playbook)
    assert isinstance(loaded, st.PlaybookTool)
    assert [entry.condition for entry in loaded.entries] == [None, None]


def test_when_predicates_come_back_as_the_same_function() -> None:
    playbook = (
        st.PlaybookTool("p", "d")
        .with_tool(sample.search)
        .unlocked_when(sample.cart_not_empty, "items in the cart")
    )
    loaded = _roundtrip(playbook)
    assert isinstance(loaded, st.PlaybookTool)
    condition = loaded.entries[0].condition
    assert isinstance(condition, When)
    assert condition.predicate is sample.cart_not_empty


def test_tools_by_name_need_the_registry_again() -> None:
    local = st.Tool.create("local", "A tool made here", lambda: "x")
    playbook = st.PlaybookTool("p", "d").with_tools(local)
    text = st.dump_playbook(playbook)
    assert "  - local\n" in text
    assert st.load_playbook(text, tools=[local]) == playbook
    with pytest.raises(st.SpecError, match="unknown tool 'local'"):
        st.load_playbook(text)


def test_a_yaml_machine_round_trips_with_its_generated_enum() -> None:
    text = """
kind: machine
name: ticket
description: One support ticket
states:
  OPEN:
    tools:
      - tool: confirm
        transitions_to: CLOSED
      - help
  WAITING: {}
  CLOSED: {}
initial: OPEN
final_states: [CLOSED]
"""
    machine = st.load_playbook(text, tools=sample.REGISTRY)
    again = _roundtrip(machine, tools=sample.REGISTRY)
    assert isinstance(again, st.StateMachineTool)
    assert again.state_names == ["OPEN", "WAITING", "CLOSED"]


def test_agent_options_round_trip() -> None:
    playbook = (
        st.PlaybookTool("researcher", "Research on its own")
        .with_tools(sample.search)
        .with_system_prompt("Be brief.\nCite sources.")
        .with_max_iterations(7)
        .with_parameter(st.Parameter.string("topic", "The topic", enum=["a", "b"]))
    )
    text = st.dump_playbook(playbook)
    assert "  system_prompt: |-\n    Be brief.\n    Cite sources.\n" in text
    _roundtrip(playbook)


def test_a_model_cannot_be_written() -> None:
    playbook = st.PlaybookTool("p", "d").with_tools(sample.search).with_model(object())
    with pytest.raises(st.SpecError, match="model cannot be written"):
        st.dump_playbook(playbook)
    _roundtrip(playbook.with_model(None))


def test_a_lambda_predicate_cannot_be_written() -> None:
    playbook = st.PlaybookTool("p", "d").with_tool(sample.search).unlocked_when(lambda v: True)
    with pytest.raises(st.SpecError, match=r"predicate .* has no import path"):
        st.dump_playbook(playbook)


def test_a_local_enum_cannot_be_written() -> None:
    class Local(enum.Enum):
        A = 1

    machine = st.StateMachineTool("m", "d", Local).in_state(Local.A).with_tool(sample.search)
    with pytest.raises(st.SpecError, match=r"state enum .* has no import path"):
        st.dump_playbook(machine)


def test_schema_only_tools_round_trip_with_their_tools_file(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(
        json.dumps(
            [
                {"type": "function", "function": {"name": "ping", "description": "Ping"}},
                {"type": "function", "function": {"name": "pong", "description": "Pong"}},
            ]
        ),
        encoding="utf-8",
    )
    design = tmp_path / "design.yaml"
    design.write_text(
        "tools_from: tools.json\nkind: playbook\nname: p\ndescription: d\n"
        "tools: [ping, {tool: pong, unlocked_by: ping}]\n",
        encoding="utf-8",
    )
    playbook = st.load_playbook(design)
    assert isinstance(playbook.tools[0], SchemaOnlyTool)
    absolute = st.dump_playbook(playbook)
    assert absolute.startswith(f"tools_from:\n  - {tmp_path / 'tools.json'}\n")
    assert st.load_playbook(absolute) == playbook
    relative = st.dump_playbook(playbook, relative_to=tmp_path)
    assert relative.startswith("tools_from:\n  - tools.json\n")
    (tmp_path / "again.yaml").write_text(relative, encoding="utf-8")
    assert st.load_playbook(tmp_path / "again.yaml") == playbook


def test_a_list_and_a_design_round_trip() -> None:
    both = [sample.research, sample.order_machine]
    assert st.load_playbook(st.dump_playbook(both), tools=sample.REGISTRY) == both
    design = st.load_design(
        f"prompt: Go\nsystem_prompt: Be kind.\ndefinitions: [{P}:research]\n"
        "script: [{call: {name: search, arguments: {query: q}}}, "
        "{calls: [{name: analyze}, {name: report}]}, {answer: done}]\n"
    )
    again = st.load_design(st.dump_playbook(design))
    assert again == design


def test_to_data_gives_plain_data_that_json_can_hold() -> None:
    data = to_data(sample.order_machine)
    assert st.load_playbook(json.dumps(data), tools=sample.REGISTRY) == sample.order_machine
    assert yaml.safe_load(st.dump_playbook(sample.order_machine)) == data
