"""``kind: sections`` and ``kind: skills`` in YAML: nested sections, body_file relative
to the YAML, tools by name, the round trip, and errors with a path."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st
from statetools.models import ScriptedModel
from tests.sections.design import support_sections
from tests.sections.test_skills import design_tools, write_skills


def section_tools(sections: st.Sections) -> list[st.BaseTool]:
    return [tool for node in sections.tree.nodes.values() for tool in node.section.tools]


def test_sections_round_trip_through_yaml() -> None:
    sections = support_sections()
    text = st.dump_playbook([sections])
    loaded = st.load_design(text, tools=section_tools(sections))
    assert loaded.definitions == (sections,)
    assert st.dump_playbook(list(loaded.definitions)) == text


def test_bodies_come_from_files_next_to_the_yaml(tmp_path: Path) -> None:
    (tmp_path / "billing.md").write_text("Refunds within 30 days.\n", encoding="utf-8")
    (tmp_path / "design.yaml").write_text(
        "definitions:\n"
        "  - kind: sections\n"
        "    sections:\n"
        "      - key: billing\n"
        "        title: Billing\n"
        "        summary: Refund rules.\n"
        "        body_file: billing.md\n"
        "        tools: [refund_order]\n"
        "        children:\n"
        "          - {key: tone, title: Tone, body: Be brief., visibility: full}\n",
        encoding="utf-8",
    )
    refund = st.Tool.create("refund_order", "Refund an order", lambda order: "ok")
    design = st.load_design(tmp_path / "design.yaml", tools=[refund])
    model = ScriptedModel([("read_section", {"key": "billing"}), "done"])
    result = st.ToolLoop(model).run("hi", tools=design.tools)
    assert result.messages[3].content == (
        "## Billing\n\nRefunds within 30 days.\n\n### Tone\n\nBe brief.\n"
        "[now available: refund_order]"
    )


def test_skills_load_from_a_folder_next_to_the_yaml(tmp_path: Path) -> None:
    write_skills(tmp_path)
    (tmp_path / "design.yaml").write_text(
        "definitions:\n  - kind: skills\n    path: skills\n    tools: [fill_field, save_pdf]\n",
        encoding="utf-8",
    )
    design = st.load_design(tmp_path / "design.yaml", tools=design_tools())
    (skills,) = design.definitions
    assert isinstance(skills, st.Sections)
    assert skills.keys() == ["pdf-forms", "tone", "travel"]
    assert skills.tool_name == "load_skill"


def test_errors_name_the_place_in_the_yaml(tmp_path: Path) -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(
            "definitions:\n  - kind: sections\n    sections:\n      - {key: a, title: A, bdy: x}\n"
        )
    assert caught.value.problems[0].startswith("$.definitions[0].sections[0].bdy (line 4)")
    with pytest.raises(st.SpecError) as caught:
        st.load_design("definitions:\n  - kind: sectons\n")
    assert "did you mean 'sections'?" in str(caught.value)
    with pytest.raises(st.SpecError) as caught:
        st.load_design(
            "definitions:\n  - kind: sections\n    sections:\n"
            "      - {key: a, title: A, body_file: missing.md}\n",
            base_dir=tmp_path,
        )
    assert "cannot read body_file" in caught.value.problems[0]


def test_sections_and_skills_written_where_a_tool_goes_say_where_they_belong() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_design("tools:\n  - kind: skills\n    path: skills\n")
    assert str(caught.value) == (
        "$.tools[0].kind (line 2): only a facade can be written inline where a tool goes, "
        "not 'skills' Hint: define skills under 'definitions:' (kind: skills)"
    )
    with pytest.raises(st.SpecError) as caught:
        st.load_design("tools:\n  - {kind: sections, sections: []}\n")
    assert str(caught.value).endswith("Hint: define sections under 'definitions:' (kind: sections)")
    with pytest.raises(st.SpecError) as caught:
        st.load_design("tools:\n  - {kind: playbook, name: p, description: d}\n")
    assert str(caught.value).endswith("Hint: define playbooks and machines under 'definitions:'")
