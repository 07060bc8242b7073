"""The travel_desk playbook: Agent Skills from a folder next to the YAML."""

from __future__ import annotations

from pathlib import Path

import statetools as st
from statetools.models import ScriptedModel

FILE = Path(__file__).resolve().parents[2] / "playbooks" / "travel_desk.yaml"


def test_the_demo_loads_the_train_skill_then_books() -> None:
    design = st.load_design(FILE)
    (skills,) = design.definitions
    assert isinstance(skills, st.Sections)
    assert skills.keys() == ["hotel-booking", "train-booking", "trip-tone"]
    assert st.check(st.disclosure_graph(*design.tools)).findings == ()
    assert design.script is not None
    model = ScriptedModel(design.script)
    result = st.ToolLoop(model, system_prompt=design.system_prompt).run(
        str(design.prompt), tools=design.tools
    )
    assert model.requests[0].tool_names == ["load_skill"]
    assert result.messages[4].is_error  # search_trains before the skill: locked
    assert model.requests[2].tool_names == [
        "load_skill",
        "read_skill_file",
        "search_trains",
        "book_train",
    ]
    assert result.messages[8].content.startswith("Fares: prefer the cheapest train")
    assert result.messages[12].content == (
        "Booked Lyon -> Turin on 2026-12-04 at 07:12. Reference TR-077."
    )
    assert result.output == "Booked the 07:12 from Lyon to Turin on 2026-12-04 (reference TR-077)."
