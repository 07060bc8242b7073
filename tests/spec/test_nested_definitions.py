"""A facade's tools name playbooks and machines of the design: they sit inside the facade
(as Facade.searchable(..., [tool, playbook]) puts them), are written back the same way,
and are checked, explored, rendered and run like their Python twins."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.cli import main


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: f"{name} done")


TOOLS = [  # not one module attribute per tool: those would be written by import path
    tool("radio", "Play a radio station."),
    tool("press_brake", "Press the brake pedal."),
    tool("lock_doors", "Lock the doors of the car."),
    tool("start_engine", "Start the engine of the car."),
]
T = {t.name: t for t in TOOLS}

DESIGN = """\
definitions:
  - kind: facade
    name: find
    description: Find car tools
    search:
      max_results: 5
    tools:
      - radio
      - vehicle_start
  - kind: playbook
    name: vehicle_start
    description: Start the vehicle
    tools:
      - press_brake
      - lock_doors
      - tool: start_engine
        unlocked_by:
          - press_brake
          - lock_doors
"""


def python_twin() -> st.Facade:
    start = st.PlaybookTool.of(
        "vehicle_start",
        "Start the vehicle",
        [
            T["press_brake"],
            T["lock_doors"],
            st.Unlock(T["start_engine"], after=[T["press_brake"], T["lock_doors"]]),
        ],
    )
    return st.Facade.searchable("find", "Find car tools", [T["radio"], start])


def problems(text: str, tools: list[Any] = TOOLS) -> list[str]:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(text, tools=tools)
    return [str(problem) for problem in caught.value.problems]


# loading -------------------------------------------------------------------------


def test_a_named_playbook_sits_inside_the_search_facade() -> None:
    design = st.load_design(DESIGN, tools=TOOLS)

    assert design.definitions == (python_twin(),)
    assert [item.name for item in design.tools] == ["find"]


def test_the_definition_may_come_before_the_facade_that_names_it() -> None:
    head, playbook = DESIGN.split("  - kind: playbook\n")
    reordered = head.replace("definitions:\n", "definitions:\n  - kind: playbook\n" + playbook)

    assert st.load_design(reordered, tools=TOOLS).definitions == (python_twin(),)


def test_machines_and_nested_facades_hold_definitions_too() -> None:
    text = """\
definitions:
  - kind: facade
    name: garage
    description: Open the garage tools
    tools:
      - name: find
        description: Find car tools
        search: {max_results: 3}
        tools: [radio, doors]
  - kind: machine
    name: doors
    description: The doors
    states:
      OPEN:
        tools: [{tool: lock_doors, transitions_to: LOCKED}]
      LOCKED:
        tools: [start_engine]
"""
    design = st.load_design(text, tools=TOOLS)
    (garage,) = design.definitions
    assert isinstance(garage, st.Facade)
    (find,) = garage.inner
    assert isinstance(find, st.Facade)
    assert [tool.name for tool in find.inner] == ["radio"]
    assert [(m.name, type(m).__name__) for m in find.members] == [("doors", "StateMachineTool")]
    assert st.load_design(st.dump_playbook(design), tools=TOOLS).definitions == design.definitions


def test_a_playbook_with_a_model_goes_in_any_facade_as_its_agentic_tool() -> None:
    text = """\
definitions:
  - kind: facade
    name: garage
    description: Open the garage tools
    tools: [radio, mechanic]
  - kind: playbook
    name: mechanic
    description: Fix the car
    tools: [press_brake]
    agent: {model: "openai:gpt-4o-mini"}
"""
    design = st.load_design(text, tools=TOOLS)
    (garage,) = design.definitions
    assert isinstance(garage, st.Facade)
    assert [type(t).__name__ for t in garage.inner] == ["Tool", "AgenticTool"]
    dumped = st.dump_playbook(design)
    assert "    tools:\n      - radio\n      - mechanic\n" in dumped
    assert st.load_design(dumped, tools=TOOLS).definitions == design.definitions


# mistakes ------------------------------------------------------------------------


def test_a_definition_named_by_two_facades() -> None:
    text = DESIGN + (
        "  - kind: facade\n"
        "    name: also\n"
        "    description: Also\n"
        "    search: {}\n"
        "    tools: [vehicle_start]\n"
    )
    assert problems(text) == [
        "$.definitions[2].tools[0] (line 24): playbook 'vehicle_start' is already inside "
        "facade 'find' Hint: a playbook sits in one facade: name it in one facade's tools only"
    ]


def test_a_definition_cannot_hold_the_facade_that_holds_it() -> None:
    itself = """\
definitions:
  - kind: playbook
    name: loop
    description: Loop
    tools:
      - {name: find, description: Find, search: {}, tools: [radio, loop]}
"""
    assert problems(itself) == [
        "$.definitions[0].tools[0].tools[1] (line 6): facade 'find' is inside playbook "
        "'loop', so it cannot hold it Hint: name 'loop' in a facade outside it"
    ]
    through = """\
definitions:
  - kind: playbook
    name: outer
    description: Outer
    tools:
      - {name: find, description: Find, search: {}, tools: [inner]}
  - kind: machine
    name: inner
    description: Inner
    states:
      READY:
        tools:
          - {name: more, description: More, search: {}, tools: [outer]}
"""
    assert problems(through) == [
        "$.definitions[1].states.READY.tools[0].tools[0] (line 13): facade 'more' is inside "
        "playbook 'outer', through machine 'inner', so it cannot hold it "
        "Hint: name 'outer' in a facade outside it"
    ]


def test_a_name_that_is_both_a_tool_and_a_definition() -> None:
    text = DESIGN.replace("name: vehicle_start", "name: radio").replace(
        "      - vehicle_start\n", ""
    )
    assert problems(text) == [
        "$.definitions[0].tools[0] (line 8): 'radio' is both a tool and a playbook of this "
        "design Hint: rename the playbook or the tool, so that 'radio' names one of them"
    ]


def test_unknown_names_suggest_definitions_in_a_facade_only() -> None:
    assert problems(DESIGN.replace("      - vehicle_start", "      - vehicle_strat")) == [
        "$.definitions[0].tools[1] (line 9): unknown tool 'vehicle_strat' "
        "Hint: did you mean 'vehicle_start', the playbook of this design?"
    ]
    assert problems(DESIGN.replace("      - vehicle_start", "      - horn")) == [
        "$.definitions[0].tools[1] (line 9): unknown tool 'horn' Hint: pass the tool in "
        "tools=[...], name it by import path ('module:attribute'), or import a tools file "
        "with tools_from"
    ]
    in_a_playbook = DESIGN + (
        "  - kind: playbook\n    name: p\n    description: P\n    tools: [vehicle_start]\n"
    )
    assert problems(in_a_playbook) == [
        "$.definitions[2].tools[0] (line 23): 'vehicle_start' is a playbook of this design, "
        "not a tool Hint: a facade's tools may name it (it then sits inside the facade); "
        "a tool list elsewhere names tools"
    ]


def test_only_a_search_facade_holds_an_in_loop_playbook() -> None:
    assert problems(DESIGN.replace("    search:\n      max_results: 5\n", "")) == [
        "$.definitions[0].tools[1] (line 7): playbook 'vehicle_start' cannot go in this "
        "facade: only a search facade holds in-loop playbooks and machines Hint: add "
        "'search: {}' to the facade, or give the definition 'agent: {model: ...}' to run "
        "it as an agentic tool"
    ]


def test_a_playbook_written_inline_in_a_facade_is_told_to_be_named() -> None:
    text = (
        "kind: facade\nname: find\ndescription: Find\nsearch: {}\n"
        "tools:\n  - {kind: playbook, name: car, description: Drive, tools: [radio]}\n"
    )
    assert problems(text) == [
        "$.tools[0].kind (line 6): only a facade can be written inline where a tool goes, "
        "not 'playbook' Hint: define the playbook under 'definitions:' and write its name here"
    ]


def test_a_named_definitions_own_problems_are_reported_once_at_its_path() -> None:
    assert problems(
        DESIGN.replace("      - lock_doors\n      - tool", "      - lock_door\n      - tool")
    ) == [
        "$.definitions[1].tools[1] (line 15): unknown tool 'lock_door' "
        "Hint: did you mean 'lock_doors'? A tool that is not passed in tools=[...] is named "
        "by import path ('module:attribute')"
    ]


# writing, checking, exploring, rendering -----------------------------------------


def test_a_design_is_written_back_as_it_was_read() -> None:
    design = st.load_design(DESIGN, tools=TOOLS)

    assert st.dump_playbook(design) == DESIGN
    assert st.dump_playbook(python_twin()) == DESIGN
    assert st.load_playbook(st.dump_playbook(design), tools=TOOLS) == python_twin()


def test_two_held_definitions_of_one_name_cannot_be_written() -> None:
    one = st.PlaybookTool.of("car", "Drive", [T["press_brake"]])
    two = st.PlaybookTool.of("car", "Drive again", [T["lock_doors"]])
    facades = [st.Facade.searchable(n, "Find", [book]) for n, book in (("a", one), ("b", two))]

    with pytest.raises(st.SpecError) as caught:
        st.dump_playbook(facades)
    assert str(caught.value) == (
        "playbook 'car': two definitions would be named 'car' Hint: a facade names the "
        "playbooks and machines it holds: give each its own name"
    )


@pytest.fixture
def design_file(tmp_path: Path) -> Path:
    listed = [{"name": t.name, "description": t.description, "parameters": {}} for t in TOOLS]
    (tmp_path / "car_tools.json").write_text(json.dumps(listed))
    path = tmp_path / "car.yaml"
    path.write_text("tools_from: car_tools.json\n" + DESIGN)
    return path


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_check_finds_nothing_wrong(design_file: Path) -> None:
    assert cli("check", str(design_file)) == (0, "No problems found. 0 errors, 0 warnings\n")


def test_check_places_a_finding_of_a_held_playbook_at_its_line(design_file: Path) -> None:
    design_file.write_text(design_file.read_text().replace("- lock_doors\n", "- lock_dors\n", 2))
    design_file.write_text(
        design_file.read_text().replace("      - lock_dors\n", "      - lock_doors\n", 1)
    )

    status, text = cli("check", str(design_file))

    assert status == 1
    assert text.splitlines()[0] == (
        f"{design_file}:17: facade:find/tool:start_engine: ST001 error "
        "[unknown-reference] The condition of 'start_engine' names tool 'lock_dors', which "
        "is not registered. Did you mean 'lock_doors'?"
    )
    loaded = st.load_design(design_file)
    with pytest.raises(st.SpecError, match="the design has 2 check errors; it does not run"):
        st.ToolLoop(st.models.ScriptedModel(["-"])).run("Go", tools=loaded.tools)


def test_explore_reaches_the_held_playbook_through_one_search(design_file: Path) -> None:
    exploration = st.explore(st.disclosure_graph(*st.load_design(design_file).tools))

    assert exploration.min_turns == {
        "find": 0,
        "radio": 1,
        "press_brake": 1,
        "lock_doors": 1,
        "start_engine": 3,  # brake and doors, then a search that opens it
    }
    assert exploration.min_turns == st.explore(st.disclosure_graph(python_twin())).min_turns
    status, text = cli("explore", str(design_file))
    assert status == 0
    row = text.splitlines()[-1].split()  # tool, turns, tokens, after
    assert row[:2] + row[3:] == ["start_engine", "3", "find,", "press_brake,", "lock_doors"]


def test_render_draws_the_playbook_inside_the_facade(design_file: Path) -> None:
    text = st.render(st.disclosure_graph(*st.load_design(design_file).tools), "mermaid").text

    inside = text.split('subgraph cluster_facade_find["facade find (search)"]')[1]
    assert inside.splitlines()[1:7] == [
        '    tool_radio["radio"]',
        '    subgraph cluster_playbook_vehicle_start["playbook vehicle_start"]',
        '      tool_press_brake["press_brake"]',
        '      tool_lock_doors["lock_doors"]',
        '      tool_start_engine["start_engine"]',
        "    end",
    ]
    out = design_file.with_suffix(".mmd")
    assert cli("render", str(design_file), "-o", str(out))[0] == 0
    assert out.read_text().strip() == text.strip()


# running -------------------------------------------------------------------------


def test_a_search_brings_what_the_locked_tool_waits_for() -> None:
    model = st.models.ScriptedModel(
        [
            ("find", {"query": "start the engine"}),
            [("press_brake", {}), ("lock_doors", {})],
            ("start_engine", {}),
            "Started.",
        ]
    )
    design = st.load_design(DESIGN, tools=TOOLS)

    result = st.ToolLoop(model).run("Start the car", tools=design.tools)

    assert result.output == "Started."
    assert result.messages[2].content == (
        'Tools matching "start the engine", best first:\n'
        "- press_brake: Press the brake pedal.\n"
        "- lock_doors: Lock the doors of the car.\n"
        "- start_engine (locked): Start the engine of the car. "
        "Call first: press_brake, lock_doors.\n"
        "Tools now available: press_brake, lock_doors. Opening once unlocked: start_engine."
    )
    assert [request.tool_names for request in model.requests] == [
        ["find"],
        ["find", "press_brake", "lock_doors"],
        ["find", "press_brake", "lock_doors", "start_engine"],
        ["find", "press_brake", "lock_doors", "start_engine"],
    ]
