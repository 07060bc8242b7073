"""Every problem in a file is reported at once, each with its path, line and a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st
from statetools.spec import SpecProblem
from tests.spec import sample
from tests.spec.sample import P


def _problems(source: object, **kwargs: object) -> list[tuple[str, int | None, str]]:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(source, **kwargs)  # type: ignore[arg-type]
    problems = caught.value.problems
    assert all(isinstance(p, SpecProblem) for p in problems)
    return [(p.where, p.line, p.message) for p in problems]  # type: ignore[attr-defined]


FIVE_MISTAKES = f"""\
kind: machine
name: order
description: Handle one order
colour: blue
states:
  DRAFT:
    tools:
      - add_item
      - tool: serch
      - tool: confirm
        transitions_to: SHIPED
  SHIPPED:
    tools:
      - tool: ship
        transitions_to: {{state: DRAFT, when: "{P}:nowhere"}}
final_states: [SHIPPED, 7]
"""


def test_five_mistakes_are_reported_together_with_paths_and_lines() -> None:
    assert _problems(FIVE_MISTAKES, tools=sample.REGISTRY) == [
        ("$.colour", 4, "unknown key 'colour'"),
        ("$.states.DRAFT.tools[1].tool", 9, "unknown tool 'serch'"),
        ("$.states.DRAFT.tools[2].transitions_to", 11, "unknown state 'SHIPED'"),
        (
            "$.states.SHIPPED.tools[0].transitions_to.when",
            15,
            "cannot import 'tests.spec.sample:nowhere': tests.spec.sample has no attribute "
            "'nowhere'",
        ),
        ("$.final_states[1]", 16, "expected text, got 7"),
    ]


def test_the_error_text_lists_every_problem_with_its_hint(tmp_path: Path) -> None:
    path = tmp_path / "order.yaml"
    path.write_text(FIVE_MISTAKES, encoding="utf-8")
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(path, tools=sample.REGISTRY)
    text = str(caught.value)
    assert text.startswith(f"{path}: 5 problems:\n")
    assert "  $.colour (line 4): unknown key 'colour' Hint: allowed keys: name," in text
    assert "unknown tool 'serch' Hint: did you mean 'search'?" not in text  # not registered
    assert "unknown state 'SHIPED' Hint: did you mean 'SHIPPED'?" in text
    assert caught.value.path == str(path)
    assert len(caught.value.problems) == 5


def test_a_close_key_gets_a_did_you_mean_hint() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(
            "kind: playbook\nname: p\ndescription: d\ntools:\n  - tool: confirm\n"
            "    unlock_by: ship\n",
            tools=sample.REGISTRY,
        )
    (problem,) = caught.value.problems
    assert problem == (
        "$.tools[0].unlock_by (line 6): unknown key 'unlock_by' Hint: did you mean 'unlocked_by'?"
    )


def test_bad_yaml_syntax_gives_the_line() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook("kind: playbook\nname: p\n  description: [unclosed\n")
    (problem,) = caught.value.problems
    assert isinstance(problem, SpecProblem)
    assert problem.line == 3
    assert problem.message.startswith("invalid YAML: ")


def test_several_yaml_documents_are_refused_with_a_hint() -> None:
    with pytest.raises(st.SpecError, match="several YAML documents"):
        st.load_playbook("kind: playbook\n---\nkind: machine\n")


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing here\n", encoding="utf-8")
    with pytest.raises(st.SpecError, match="the file is empty"):
        st.load_playbook(path)


def test_a_missing_file_is_a_spec_error() -> None:
    with pytest.raises(st.SpecError, match="cannot read the file"):
        st.load_playbook("no/such/file.yaml")


def test_kind_is_required_and_checked() -> None:
    assert _problems("name: p\ndescription: d\n") == [("$.kind", 1, "'kind' is required")]
    assert _problems("kind: playbok\nname: p\ndescription: d\n") == [
        ("$.kind", 1, "unknown kind 'playbok'")
    ]
    assert _problems("- kind: [1]\n  name: p\n") == [("$[0].kind", 1, "unknown kind [1]")]


def test_required_keys() -> None:
    assert _problems("kind: playbook\ndescription: d\n") == [("$.name", 1, "'name' is required")]


def test_wrong_shapes_say_what_was_expected() -> None:
    assert _problems(
        "kind: playbook\nname: p\ndescription: [d]\ntools: search\nagent: {max_iterations: 0}\n"
    ) == [
        ("$.description", 3, "expected text, got a list"),
        ("$.tools", 4, "expected a list, got text"),
        ("$.agent.max_iterations", 5, "max_iterations must be at least 1"),
    ]


def test_yaml_booleans_where_text_is_expected_get_a_quoting_hint() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook("kind: machine\nname: m\ndescription: d\nstates: {on: {}}\n")
    assert str(caught.value) == (
        "$.states.on (line 4): the key on is not text: YAML reads it as true or false "
        "Hint: put the key in quotes ('on':) if it is meant as a name"
    )


def test_a_tool_listed_twice_in_a_playbook() -> None:
    assert _problems(
        "kind: playbook\nname: p\ndescription: d\ntools: [confirm, ship, confirm]\n",
        tools=sample.REGISTRY,
    ) == [("$.tools[2]", 4, "tool 'confirm' is already in the playbook")]


def test_two_definitions_with_one_name() -> None:
    text = (
        "definitions:\n"
        "  - {kind: playbook, name: p, description: d}\n"
        "  - {kind: playbook, name: p, description: e}\n"
    )
    assert _problems(text) == [("$.definitions[1].name", 3, "two definitions are named 'p'")]


def test_machines_need_states_and_valid_state_names() -> None:
    assert _problems("kind: machine\nname: m\ndescription: d\n") == [
        ("$.states", 1, "a machine needs states")
    ]
    assert _problems("kind: machine\nname: m\ndescription: d\nstates: {_hidden: {}}\n") == [
        ("$.states._hidden", 4, "'_hidden' is not a valid state name")
    ]


def test_states_of_an_imported_enum_are_checked() -> None:
    assert _problems(
        f"kind: machine\nname: m\ndescription: d\nenum: {P}:OrderState\n"
        "states: {DRAFT: {}, PAID: {}}\n"
    ) == [("$.states.PAID", 5, "unknown state 'PAID'")]


def test_import_paths_must_name_the_right_kind_of_object() -> None:
    text = f"""\
kind: machine
name: m
description: d
enum: {P}:Order
states: {{A: {{tools: [{{tool: confirm, transitions_to: {{state: A, when: "{P}:P"}}}}]}}}}
"""
    assert _problems(text, tools=sample.REGISTRY) == [
        ("$.enum", 4, f"'{P}:Order' is not an Enum class"),
        ("$.states.A.tools[0].transitions_to.when", 5, f"'{P}:P' is not a function"),
    ]


def test_condition_mistakes() -> None:
    text = f"""\
kind: playbook
name: p
description: d
tools:
  - tool: confirm
    unlocked_by: {{after: search, when: "{P}:cart_not_empty"}}
  - tool: ship
    unlocked_by: {{on_artifact: "{P}:search"}}
  - tool: cancel
    unlocked_by: {{any_of: []}}
  - tool: help
    unlocked_by: "{P}:search"
  - tool: add_item
    unlocked_by: {{afterr: x}}
"""
    assert _problems(text, tools=sample.REGISTRY) == [
        ("$.tools[0].unlocked_by", 6, "a condition has one key, found after, when"),
        ("$.tools[1].unlocked_by.on_artifact", 8, f"'{P}:search' is not a class"),
        ("$.tools[2].unlocked_by", 10, "AllOf/AnyOf need at least one condition"),
        (
            "$.tools[3].unlocked_by",
            12,
            f"'{P}:search' is an import path; conditions name tools by their tool name",
        ),
        ("$.tools[4].unlocked_by.afterr", 14, "unknown key 'afterr'"),
    ]


def test_an_import_that_fails_is_reported_not_raised() -> None:
    assert _problems("kind: playbook\nname: p\ndescription: d\ntools: ['not a path:x']\n") == [
        ("$.tools[0]", 4, "invalid import path 'not a path:x'"),
    ]


def test_a_script_with_mistakes() -> None:
    assert _problems(
        "script:\n  - answer: ok\n  - call: {arguments: {}}\n  - say: hi\n  - calls: []\n"
    ) == [
        ("$.script[1].call.name", 3, "'name' is required"),
        ("$.script[2].say", 4, "unknown key 'say'"),
        ("$.script[3].calls", 5, "'calls' must not be empty"),
    ]


def test_problems_have_a_json_form() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook("kind: playbook\nname: p\n")
    (problem,) = caught.value.problems
    assert problem.to_dict() == {  # type: ignore[attr-defined]
        "path": "$.description",
        "line": 1,
        "message": "'description' is required",
        "hint": None,
    }


def test_dict_input_has_paths_but_no_lines() -> None:
    assert _problems({"kind": "playbook", "name": 3, "description": "d"}) == [
        ("$.name", None, "expected text, got 3")
    ]


def test_a_misspelled_document_key_beside_a_definition() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook("kind: playbook\nname: p\ndescription: d\ntool_from: x.json\n")
    (problem,) = caught.value.problems
    assert problem.hint == "did you mean 'tools_from'?"  # type: ignore[attr-defined]


def test_an_error_with_one_problem_carries_its_hint(tmp_path: Path) -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook("definitions: 3")
    error = caught.value
    assert (error.path, error.message, error.hint) == (
        None,  # no file: the place is in the message (and in error.problems)
        "$.definitions (line 1): expected a list, got 3",
        "write a list: [3]",
    )
    assert str(error) == "$.definitions (line 1): expected a list, got 3 Hint: write a list: [3]"

    path = tmp_path / "one.yaml"
    path.write_text("definitions: 3\n", encoding="utf-8")
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(path)
    error = caught.value
    assert (error.path, error.hint) == (str(path), "write a list: [3]")
    assert str(error) == (
        f"{path}: $.definitions (line 1): expected a list, got 3 Hint: write a list: [3]"
    )
