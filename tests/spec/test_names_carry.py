"""A tool named once by import path is known by its name in the whole file."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st

TOOLS = '''\
def search_hotels(city: str) -> str:
    """Search hotels in a city."""
    return f"hotels in {city}"


def book_hotel(hotel: str) -> str:
    """Book a hotel."""
    return f"booked {hotel}"
'''

MACHINE = """\
kind: machine
name: trip
description: Plan a trip
states:
  SEARCH:
    tools:
      - {tool: carry_tools:search_hotels, transitions_to: BOOK}
  BOOK:
    tools:
      - search_hotels
      - {tool: carry_tools:book_hotel, transitions_to: DONE}
  DONE: {}
final_states: [DONE]
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "carry_tools.py").write_text(TOOLS)
    return tmp_path


def load(folder: Path, text: str) -> st.Design:
    path = folder / "design.yaml"
    path.write_text(text)
    return st.load_design(path)


def test_a_name_after_its_import_path_is_the_same_tool(folder: Path) -> None:
    machine = load(folder, MACHINE).definitions[0]

    search = machine.tools[0]
    assert [t.name for t in machine.tools] == ["search_hotels", "book_hotel"]
    assert machine.states_of("search_hotels") == ["SEARCH", "BOOK"]
    assert search.call({"city": "Oslo"}).text == "hotels in Oslo"


def test_a_name_before_its_import_path_is_found_too(folder: Path) -> None:
    text = MACHINE.replace(
        "      - {tool: carry_tools:search_hotels, transitions_to: BOOK}",
        "      - {tool: search_hotels, transitions_to: BOOK}",
    ).replace("      - search_hotels\n", "      - carry_tools:search_hotels\n")

    machine = load(folder, text).definitions[0]

    assert machine.states_of("search_hotels") == ["SEARCH", "BOOK"]


def test_a_top_level_tools_section_names_tools_for_every_definition(folder: Path) -> None:
    design = load(
        folder,
        "tools: [carry_tools:search_hotels, carry_tools:book_hotel]\n"
        "definitions:\n"
        "  - kind: playbook\n"
        "    name: trip\n"
        "    description: Plan a trip\n"
        "    tools: [search_hotels, {tool: book_hotel, unlocked_by: search_hotels}]\n",
    )

    playbook = design.definitions[0]
    assert [t.name for t in playbook.tools] == ["search_hotels", "book_hotel"]
    assert playbook.conditions == {"book_hotel": st.After(("search_hotels",))}


def test_dump_writes_the_import_path_once_and_the_name_after_it(folder: Path) -> None:
    machine = load(folder, MACHINE).definitions[0]

    text = st.dump_playbook(machine)

    assert text == (
        "kind: machine\nname: trip\ndescription: Plan a trip\nstates:\n"
        "  SEARCH:\n    tools:\n      - tool: carry_tools:search_hotels\n"
        "        transitions_to: BOOK\n"
        "  BOOK:\n    tools:\n      - search_hotels\n      - tool: carry_tools:book_hotel\n"
        "        transitions_to: DONE\n"
        "  DONE: {}\nfinal_states:\n  - DONE\n"
    )
    assert st.load_playbook(text, base_dir=folder) == machine


def test_an_unknown_name_is_still_an_error_with_a_suggestion(folder: Path) -> None:
    with pytest.raises(st.SpecError) as caught:
        load(folder, MACHINE.replace("      - search_hotels\n", "      - search_hotel\n"))

    assert str(caught.value) == (
        f"{folder / 'design.yaml'}: $.states.BOOK.tools[0] (line 10): unknown tool "
        "'search_hotel' Hint: did you mean 'search_hotels'? A tool that is not passed in "
        "tools=[...] is named by import path ('module:attribute')"
    )
