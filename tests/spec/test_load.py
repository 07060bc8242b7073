"""Loading definitions from YAML, JSON and dicts into the objects the builders make."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import statetools as st
from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    InState,
    OnArtifact,
    OnBlackboard,
    When,
)
from statetools.spec import SchemaOnlyTool
from tests.spec import sample
from tests.spec.sample import P

PLAYBOOK = f"""
kind: playbook
name: research
description: Research a topic
tools:
  - {P}:search
  - tool: {P}:analyze
    unlocked_by: search
  - tool: {P}:report
    unlocked_by: [search, analyze]
"""


def test_a_playbook_equals_the_one_the_builder_makes() -> None:
    assert st.load_playbook(PLAYBOOK) == sample.research


def test_json_text_and_dicts_load_like_yaml() -> None:
    data = {
        "kind": "playbook",
        "name": "research",
        "description": "Research a topic",
        "tools": [
            f"{P}:search",
            {"tool": f"{P}:analyze", "unlocked_by": "search"},
            {"tool": f"{P}:report", "unlocked_by": ["search", "analyze"]},
        ],
    }
    assert st.load_playbook(data) == sample.research
    assert st.load_playbook(json.dumps(data, indent=2)) == sample.research


def test_a_file_path_loads_and_its_name_is_the_source(tmp_path: Path) -> None:
    path = tmp_path / "research.yaml"
    path.write_text(PLAYBOOK, encoding="utf-8")
    assert st.load_playbook(path) == sample.research
    assert st.load_playbook(str(path)) == sample.research
    assert st.load_design(path).source == str(path)


MACHINE = f"""
kind: machine
name: order
description: Handle one order
enum: {P}:OrderState
initial: DRAFT
states:
  DRAFT:
    tools:
      - add_item
      - tool: confirm
        transitions_to:
          - {{state: CONFIRMED, when: "{P}:approved"}}
          - CANCELLED
  CONFIRMED:
    tools:
      - tool: ship
        transitions_to: SHIPPED
      - tool: cancel
        transitions_to: {{state: CANCELLED, label: cancelled by the user}}
global_tools: [help]
final_states: [SHIPPED, CANCELLED]
"""


def test_a_machine_with_a_python_enum_equals_the_built_one() -> None:
    machine = st.load_playbook(MACHINE, tools=sample.REGISTRY)
    assert machine == sample.order_machine
    assert machine.states is sample.OrderState
    assert [t.label for t in machine.transitions] == [
        "approved",
        None,
        None,
        "cancelled by the user",
    ]
    assert machine.transitions[0].guard is sample.approved


def test_a_machine_without_enum_gets_one_from_its_states() -> None:
    machine = st.load_playbook(
        """
kind: machine
name: ticket
description: One support ticket
states:
  OPEN:
    tools:
      - tool: confirm
        transitions_to: CLOSED
  CLOSED: {}
  ARCHIVED:
final_states: [CLOSED]
""",
        tools=sample.REGISTRY,
    )
    assert machine.state_names == ["OPEN", "CLOSED", "ARCHIVED"]
    assert machine.states.__name__ == "TicketState"
    assert machine.initial is None
    assert machine.initial_state() == "OPEN"
    assert machine.availability == (("confirm", "OPEN"),)
    assert [(t.source, t.tool, t.target) for t in machine.transitions] == [
        ("OPEN", "confirm", "CLOSED")
    ]
    assert machine.final_states == ("CLOSED",)


def test_a_yaml_machine_loaded_twice_is_equal() -> None:
    text = "kind: machine\nname: m\ndescription: d\nstates: {A: {tools: [confirm]}, B: {}}\n"
    first = st.load_playbook(text, tools=sample.REGISTRY)
    second = st.load_playbook(text, tools=sample.REGISTRY)
    assert first == second
    assert first.states is not second.states


# references -------------------------------------------------------------------------


def test_a_tool_by_import_path_of_an_llm_tool_function() -> None:
    playbook = st.load_playbook(f"kind: playbook\nname: p\ndescription: d\ntools: [{P}:search]")
    assert playbook.tools == [st.as_tool(sample.search)]


def test_a_tool_by_import_path_of_a_plain_function_with_a_docstring() -> None:
    playbook = st.load_playbook(f"kind: playbook\nname: p\ndescription: d\ntools: [{P}:fetch]")
    assert playbook.tools[0].name == "fetch"
    assert playbook.tools[0].description == "Fetch a page."


def test_a_tool_by_import_path_of_a_tool_object() -> None:
    playbook = st.load_playbook(f"kind: playbook\nname: p\ndescription: d\ntools: [{P}:lookup]")
    assert playbook.tools == [sample.lookup]


def test_a_tool_by_name_from_a_list_registry() -> None:
    playbook = st.load_playbook(
        "kind: playbook\nname: p\ndescription: d\ntools: [confirm, ship]",
        tools=[sample.confirm, sample.ship],
    )
    assert playbook.tools == [sample.confirm, sample.ship]


def test_a_tool_by_name_from_a_mapping_registry_may_use_another_name() -> None:
    playbook = st.load_playbook(
        "kind: playbook\nname: p\ndescription: d\ntools: [finder]",
        tools={"finder": sample.search},
    )
    assert playbook.tools[0].name == "search"


def test_a_registry_of_llm_tool_functions() -> None:
    playbook = st.load_playbook(
        "kind: playbook\nname: p\ndescription: d\ntools: [search]", tools=[sample.search]
    )
    assert playbook.tools == [st.as_tool(sample.search)]


def test_a_definition_by_import_path_in_a_document() -> None:
    design = st.load_design(
        f"definitions:\n  - {P}:research\n  - {P}:order_machine\n", tools=sample.REGISTRY
    )
    assert design.definitions == (sample.research, sample.order_machine)


def test_a_registry_that_holds_no_tool_is_a_spec_error() -> None:
    with pytest.raises(st.SpecError, match="tools= holds something that is not a tool"):
        st.load_playbook("kind: playbook\nname: p\ndescription: d", tools=[42])


# conditions -------------------------------------------------------------------------


def _condition(text: str) -> object:
    playbook = st.load_playbook(
        "kind: playbook\nname: p\ndescription: d\ntools:\n"
        f"  - {P}:search\n  - tool: {P}:report\n    unlocked_by: {text}\n"
    )
    return playbook.entries[1].condition


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("search", After("search")),
        ("[search, fetch]", After(["search", "fetch"])),
        ("{after: search}", After("search")),
        ("{after: [search, fetch]}", After(["search", "fetch"])),
        ("{after: {tools: search, count: 3}}", After("search", 3)),
        ("{all_of: [search, {after: fetch}]}", AllOf(After("search"), After("fetch"))),
        ("{any_of: [search, fetch]}", AnyOf(After("search"), After("fetch"))),
        (f"{{on_artifact: '{P}:Order'}}", OnArtifact(sample.Order)),
        (f"{{on_blackboard: '{P}:Summary'}}", OnBlackboard(sample.Summary)),
        ("{in_state: {machine: order, state: CONFIRMED}}", InState("order", "CONFIRMED")),
        (
            "{any_of: [{all_of: [search, fetch]}, {on_artifact: 'builtins:dict'}]}",
            AnyOf(AllOf(After("search"), After("fetch")), OnArtifact(dict)),
        ),
    ],
)
def test_every_condition_form(text: str, expected: object) -> None:
    assert _condition(text) == expected


def test_when_by_import_path_takes_the_function_name_as_label() -> None:
    condition = _condition(f"{{when: '{P}:cart_not_empty'}}")
    assert isinstance(condition, When)
    assert condition.predicate is sample.cart_not_empty
    assert condition.label == "cart_not_empty"


def test_when_with_a_label() -> None:
    condition = _condition(f"{{when: {{predicate: '{P}:cart_not_empty', label: items in cart}}}}")
    assert isinstance(condition, When)
    assert condition.label == "items in cart"


def test_in_state_is_checked_against_a_machine_of_the_same_document() -> None:
    text = f"""
definitions:
  - {P}:order_machine
  - kind: machine
    name: door
    description: A door
    states: {{OPEN: {{tools: [confirm]}}, SHUT: {{}}}}
  - kind: playbook
    name: p
    description: d
    tools:
      - tool: ship
        unlocked_by: {{in_state: {{machine: door, state: LOCKED}}}}
      - tool: cancel
        unlocked_by: {{in_state: {{machine: elsewhere, state: ANY}}}}
"""
    with pytest.raises(st.SpecError) as caught:
        st.load_design(text, tools=sample.REGISTRY)
    assert [(p.where, p.message) for p in caught.value.problems] == [
        (
            "$.definitions[2].tools[0].unlocked_by.in_state.state",
            "machine 'door' has no state 'LOCKED'",
        )
    ]


# documents --------------------------------------------------------------------------


def test_a_document_with_several_definitions_and_a_demo(tmp_path: Path) -> None:
    text = f"""
prompt: Research cats
system_prompt: You are careful.
definitions:
  - {P}:research
  - kind: playbook
    name: extra
    description: More tools
    tools: [confirm]
script:
  - call: {{name: search, arguments: {{query: cats}}}}
  - calls:
      - {{name: analyze}}
      - {{name: report, arguments: {{}}}}
  - answer: Cats are great.
"""
    design = st.load_design(text, tools=sample.REGISTRY)
    assert [d.name for d in design.definitions] == ["research", "extra"]
    assert design.prompt == "Research cats"
    assert design.system_prompt == "You are careful."
    assert design.script == (
        ("search", {"query": "cats"}),
        [("analyze", {}), ("report", {})],
        "Cats are great.",
    )
    assert design.tools == list(design.definitions)
    assert st.load_playbook(text, tools=sample.REGISTRY) == list(design.definitions)


def test_the_demo_runs_offline_with_its_scripted_model() -> None:
    design = st.load_design(
        f"""
kind: playbook
name: research
description: Research a topic
tools:
  - {P}:search
  - tool: {P}:report
    unlocked_by: search
prompt: Research cats
script:
  - call: {{name: search, arguments: {{query: cats}}}}
  - call: {{name: report}}
  - answer: Done.
"""
    )
    model = design.scripted_model()
    assert model is not None
    result = st.ToolLoop(model).run(design.prompt or "", tools=design.tools)
    assert result.output == "Done."
    assert [r.tool_names for r in model.requests] == [
        ["search"],
        ["search", "report"],
        ["search", "report"],
    ]


def test_a_script_file_next_to_the_yaml(tmp_path: Path) -> None:
    (tmp_path / "demo.script.yaml").write_text(
        "- call: {name: search, arguments: {query: x}}\n- answer: ok\n", encoding="utf-8"
    )
    path = tmp_path / "design.yaml"
    path.write_text(f"script: demo.script.yaml\ndefinitions: [{P}:research]\n", encoding="utf-8")
    design = st.load_design(path)
    assert design.script == (("search", {"query": "x"}), "ok")


def test_a_top_level_list_of_definitions() -> None:
    loaded = st.load_playbook(f"- {P}:research\n- {P}:order_machine\n")
    assert loaded == [sample.research, sample.order_machine]


def test_a_single_definition_may_carry_document_keys(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(
        json.dumps([{"type": "function", "function": {"name": "ping", "description": "Ping"}}]),
        encoding="utf-8",
    )
    path = tmp_path / "p.yaml"
    path.write_text(
        "tools_from: tools.json\nprompt: hi\nkind: playbook\nname: p\ndescription: d\n"
        "tools: [ping]\n",
        encoding="utf-8",
    )
    design = st.load_design(path)
    assert design.prompt == "hi"
    assert design.tools_from == ("tools.json",)
    (playbook,) = design.definitions
    assert isinstance(playbook.tools[0], SchemaOnlyTool)


def test_a_document_without_definitions_is_no_playbook() -> None:
    assert st.load_design("prompt: hi").definitions == ()
    with pytest.raises(st.SpecError, match="defines no playbook or machine"):
        st.load_playbook("prompt: hi")


def test_agent_options() -> None:
    playbook = st.load_playbook(
        f"""
kind: playbook
name: researcher
description: Research a topic on its own
tools: [{P}:search]
agent:
  system_prompt: Be brief.
  max_iterations: 5
  parameters:
    - name: topic
      schema: {{type: string, description: The topic}}
"""
    )
    assert playbook.agent.system_prompt == "Be brief."
    assert playbook.agent.max_iterations == 5
    assert playbook.agent.parameters == (st.Parameter.string("topic", "The topic"),)
    assert playbook.agent.model is None


def test_loaded_definitions_compile_into_a_graph() -> None:
    design = st.load_design(f"definitions: [{P}:research, {P}:order_machine]")
    graph = st.disclosure_graph(*design.definitions)
    assert graph.tool_names()[:3] == ["search", "analyze", "report"]


def test_a_context_factory_gives_every_run_a_fresh_context() -> None:
    design = st.load_design(f"context: {P}:new_context\ndefinitions: []\n")
    first, second = design.run_context(), design.run_context()
    assert first == {"cart": []}
    assert first["cart"] is not second["cart"]
    assert st.load_design(st.dump_playbook(design)) == design


def test_inline_context_data_is_copied_for_every_run() -> None:
    design = st.load_design("context: {user: {name: ada}}\n")
    context = design.run_context()
    context["user"]["name"] = "bob"
    assert design.run_context() == {"user": {"name": "ada"}}
    assert st.load_design(st.dump_playbook(design)) == design
    assert st.load_design("prompt: hi").run_context() == {}


def test_a_context_that_is_not_a_factory() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(f"context: {P}:P\n")
    assert [p.message for p in caught.value.problems] == [  # type: ignore[attr-defined]
        f"'{P}:P' is neither a function nor a mapping"
    ]


def test_a_script_file_with_mistakes(tmp_path: Path) -> None:
    (tmp_path / "demo.yaml").write_text("- say: hi\n", encoding="utf-8")
    (tmp_path / "design.yaml").write_text("script: demo.yaml\n", encoding="utf-8")
    with pytest.raises(st.SpecError) as caught:
        st.load_design(tmp_path / "design.yaml")
    (problem,) = caught.value.problems
    assert problem.startswith(
        "$.script (line 1): in script file demo.yaml[0]: unknown step kind 'say'"
    )


def test_modules_next_to_the_yaml_or_above_it_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "shopdemo"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "desk_tools.py").write_text(
        "import statetools as st\n\n\n@st.llm_tool('Greet')\ndef greet() -> str:\n"
        "    return 'hi'\n",
        encoding="utf-8",
    )
    (package / "a.yaml").write_text(
        "kind: playbook\nname: a\ndescription: d\ntools: [desk_tools:greet]\n", encoding="utf-8"
    )
    (package / "b.yaml").write_text(
        "kind: playbook\nname: b\ndescription: d\ntools: [shopdemo.desk_tools:greet]\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path.parent)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p])
    for module in ("desk_tools", "shopdemo", "shopdemo.desk_tools"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    assert st.load_playbook(package / "a.yaml").tools[0].name == "greet"
    assert st.load_playbook(package / "b.yaml").tools[0].name == "greet"
    assert str(package) not in sys.path  # only while importing
