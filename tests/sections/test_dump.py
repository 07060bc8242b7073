"""dump_playbook writes sections (nested, bodies inline or by body_file) and skills
(kind: skills, path: relative to the YAML) so that load -> dump -> load is equal."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st
from tests.sections.design import support_sections
from tests.sections.test_skills import design_tools, write_skills

PLAYBOOKS = Path(__file__).resolve().parents[2] / "playbooks"

SUPPORT_YAML = """\
kind: sections
sections:
  - key: tone
    title: Tone
    body: Answer in two sentences at most.
    visibility: full
  - key: billing
    title: Billing
    body: Refunds are allowed within 30 days of delivery.
    summary: Refunds, invoices and disputes.
    tools:
      - refund_order
    children:
      - key: invoices
        title: Invoices
        body: Invoices are sent on the first day of the month.
        summary: When invoices go out and how to resend them.
        tools:
          - resend_invoice
        children:
          - key: disputes
            title: Disputes
            body: Open a chargeback only after the customer has written twice.
            summary: Chargebacks and disputed payments.
            tools:
              - open_chargeback
  - key: shipping
    title: Shipping
    body: Parcels leave the warehouse within two working days.
    summary: Delivery times.
    tools:
      - track_parcel
"""


def section_tools(sections: st.Sections) -> list[st.BaseTool]:
    return [tool for node in sections.tree.nodes.values() for tool in node.section.tools]


def test_a_three_level_tree_is_written_nested_with_bodies_inline() -> None:
    sections = support_sections()
    assert st.dump_playbook(sections) == SUPPORT_YAML
    assert st.load_playbook(SUPPORT_YAML, tools=section_tools(sections)) == sections


DESIGN = """\
definitions:
  - kind: sections
    tool_name: read_rules
    sections:
      - key: billing
        title: Billing
        body_file: texts/billing.md
        summary: Refund rules.
        tools:
          - refund_order
        children:
          - key: tone
            title: Tone
            body: Be brief.
            visibility: full
"""


def test_a_body_read_from_a_file_names_the_file_again(tmp_path: Path) -> None:
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "billing.md").write_text("Refunds within 30 days.\n", "utf-8")
    (tmp_path / "design.yaml").write_text(DESIGN, encoding="utf-8")
    refund = st.Tool.create("refund_order", "Refund an order", lambda order: "ok")
    design = st.load_design(tmp_path / "design.yaml", tools=[refund])
    assert design.definitions[0].sections[0].body == "Refunds within 30 days."
    text = st.dump_playbook(design, relative_to=tmp_path)
    assert text == DESIGN
    again = st.load_design(text, tools=[refund], base_dir=tmp_path)
    assert again.definitions == design.definitions


def test_a_body_file_that_changed_since_loading_is_written_inline(tmp_path: Path) -> None:
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "billing.md").write_text("Refunds within 30 days.\n", "utf-8")
    refund = st.Tool.create("refund_order", "Refund an order", lambda order: "ok")
    design = st.load_design(DESIGN, tools=[refund], base_dir=tmp_path)
    (tmp_path / "texts" / "billing.md").write_text("Refunds within 14 days.\n", "utf-8")
    text = st.dump_playbook(design, relative_to=tmp_path)
    assert "        body: Refunds within 30 days.\n" in text
    assert "body_file" not in text
    assert st.load_design(text, tools=[refund]).definitions == design.definitions


def test_skills_are_written_as_their_folder_relative_to_the_yaml(tmp_path: Path) -> None:
    write_skills(tmp_path)
    (tmp_path / "design.yaml").write_text(
        "definitions:\n"
        "  - kind: skills\n"
        "    path: skills\n"
        "    tool_name: use_skill\n"
        "    tools: [fill_field, save_pdf]\n",
        encoding="utf-8",
    )
    tools = design_tools()
    design = st.load_design(tmp_path / "design.yaml", tools=tools)
    text = st.dump_playbook(design, relative_to=tmp_path)
    assert text == (
        "definitions:\n"
        "  - kind: skills\n"
        "    path: skills\n"
        "    tool_name: use_skill\n"
        "    tools:\n"
        "      - fill_field\n"
        "      - save_pdf\n"
    )
    again = st.load_design(text, tools=tools, base_dir=tmp_path)
    assert again.definitions == design.definitions
    assert st.dump_playbook(again, relative_to=tmp_path) == text


def test_skills_loaded_in_python_are_written_with_their_folder(tmp_path: Path) -> None:
    folder = write_skills(tmp_path)
    tools = design_tools()
    skills = st.load_skills(folder, tools=tools)
    text = st.dump_playbook(skills)
    assert text == (
        f"kind: skills\npath: {folder.as_posix()}\ntools:\n  - fill_field\n  - save_pdf\n"
    )
    assert st.load_playbook(text, tools=tools) == skills


def test_sections_with_tools_common_to_every_section_are_refused() -> None:
    ping = st.Tool.create("ping", "Ping", lambda: "pong")
    sections = st.Sections(st.Section("a", "A", "Text."), common_tools=[ping])
    with pytest.raises(st.SpecError) as caught:
        st.dump_playbook(sections)
    assert caught.value.message == (
        "sections with tools that open with every section cannot be written to YAML"
    )
    assert caught.value.path == "read_section"


def test_the_travel_desk_playbook_round_trips() -> None:
    design = st.load_design(PLAYBOOKS / "travel_desk.yaml")
    text = st.dump_playbook(design, relative_to=PLAYBOOKS)
    assert text.startswith(
        "definitions:\n"
        "  - kind: skills\n"
        "    path: travel_skills\n"
        "    tools:\n"
        "      - travel_desk:search_hotels\n"
        "      - travel_desk:search_trains\n"
        "      - travel_desk:book_train\n"
        "prompt: Get me from Lyon to Turin by train on 2026-12-04.\n"
    )
    again = st.load_design(text, base_dir=PLAYBOOKS)
    assert again.definitions == design.definitions
    assert (again.prompt, again.system_prompt, again.script) == (
        design.prompt,
        design.system_prompt,
        design.script,
    )
    assert st.dump_playbook(again, relative_to=PLAYBOOKS) == text
