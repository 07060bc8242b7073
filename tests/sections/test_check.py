"""check's rules about prompt sections: ST015 unreachable-section-tool, ST016
empty-section-summary, ST017 duplicate-section-key (also from YAML, with the line)."""

from __future__ import annotations

import enum
import io
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main
from tests.sections.design import support_sections, tool


class Desk(enum.Enum):
    OPEN = "open"
    CLOSED = "closed"


def _desk(sections: st.Sections | None = None) -> st.StateMachineTool[Desk]:
    """read_section is available only in CLOSED, which is never entered."""
    sections = sections or support_sections()
    return (
        st.StateMachineTool("desk", "Desk", Desk)
        .with_initial_state(Desk.OPEN)
        .in_state(Desk.OPEN)
        .with_tool(tool("ping", "Ping"))
        .in_state(Desk.CLOSED)
        .with_tool(sections.facade)
    )


LOCKED = (
    "it opens when 'read_section' reads the section, and 'read_section' can never unlock: "
    "it is available only in states that are never entered (CLOSED)."
)


def test_tools_of_sections_whose_read_tool_never_unlocks_are_st015() -> None:
    report = st.check(_desk(), token_budget=None)
    assert report.codes == ["ST003", "ST004", "ST015"]
    assert [(f.path, f.message) for f in report.by_code("unreachable-section-tool")] == [
        (
            "machine:desk/facade:read_section/section:billing.invoices.disputes/tool:open_chargeback",
            "Tool 'open_chargeback' of section 'billing.invoices.disputes' can never show: "
            + LOCKED,
        ),
        (
            "machine:desk/facade:read_section/section:billing.invoices/tool:resend_invoice",
            f"Tool 'resend_invoice' of section 'billing.invoices' can never show: {LOCKED}",
        ),
        (
            "machine:desk/facade:read_section/section:billing/tool:refund_order",
            f"Tool 'refund_order' of section 'billing' can never show: {LOCKED}",
        ),
        (
            "machine:desk/facade:read_section/section:shipping/tool:track_parcel",
            f"Tool 'track_parcel' of section 'shipping' can never show: {LOCKED}",
        ),
    ]
    assert [str(f) for f in report.by_code("ST003")] == [
        "machine:desk/facade:read_section: ST003 error [never-unlocks] Tool 'read_section' "
        "can never unlock: it is available only in states that are never entered (CLOSED)."
    ]
    assert all(f.severity == "error" for f in report.by_code("ST015"))


def test_with_st015_off_never_unlocks_reports_the_section_tools() -> None:
    report = st.check(_desk(), token_budget=None, disable={"ST015"})
    assert [f.path for f in report.by_code("ST003")] == [
        "machine:desk/facade:read_section",
        "machine:desk/facade:read_section/tool:open_chargeback",
        "machine:desk/facade:read_section/tool:refund_order",
        "machine:desk/facade:read_section/tool:resend_invoice",
        "machine:desk/facade:read_section/tool:track_parcel",
    ]
    assert report.by_code("ST003")[1].message == (
        "Tool 'open_chargeback' can never unlock: its facade 'read_section' is never unfolded."
    )


def test_a_tool_also_shown_elsewhere_is_not_st015() -> None:
    sections = support_sections()
    refund = sections.sections[1].tools[0]
    report = st.check([_desk(sections), refund], token_budget=None)
    assert [f.path for f in report.by_code("ST015")] == [
        "machine:desk/facade:read_section/section:billing.invoices.disputes/tool:open_chargeback",
        "machine:desk/facade:read_section/section:billing.invoices/tool:resend_invoice",
        "machine:desk/facade:read_section/section:shipping/tool:track_parcel",
    ]
    assert "refund_order" not in " ".join(f.message for f in report.findings)


def test_a_summary_section_with_nothing_to_show_is_st016() -> None:
    sections = st.Sections(
        st.Section("a", " ", "Body of A."),
        st.Section("b", "B", "Body of B.", summary=" "),  # the title shows
        st.Section("c", "", "Body of C.", visibility="full"),  # shown in full
        st.Section("d", "", "Body of D.", summary="What D is about."),
    )
    report = st.check([sections])
    assert [str(f) for f in report.findings] == [
        "facade:read_section/section:a: ST016 warning [empty-section-summary] Section 'a' is "
        "shown as a summary but has no summary and no title: the prompt shows only the line "
        "telling the model to read it, not what it is about."
    ]
    assert report.ok


def test_duplicate_keys_kept_with_strict_false_are_st017() -> None:
    billing = st.Section("billing", "Billing", "One.", summary="Refunds.")
    child = st.Section("disputes", "Disputes", "Chargebacks.", summary="Disputes.")
    sections = st.Sections(
        billing.with_children(child, child, child), billing, strict=False, tool_name="read"
    )
    assert [(f.path, f.message) for f in st.check([sections]).findings] == [
        (
            "facade:read/section:billing.disputes@2",
            "More than one section of 'read' has the key 'billing.disputes': only the first is "
            "read, so the second never shows, nor do its tools, and a run refuses the design.",
        ),
        (
            "facade:read/section:billing.disputes@3",
            "More than one section of 'read' has the key 'billing.disputes': only the first is "
            "read, so the third never shows, nor do its tools, and a run refuses the design.",
        ),
        (
            "facade:read/section:billing@2",
            "More than one section of 'read' has the key 'billing': only the first is read, so "
            "the second never shows, nor do its tools, and a run refuses the design.",
        ),
    ]


DUPLICATES = """\
definitions:
  - kind: sections
    sections:
      - key: billing
        title: Billing
        body: Refunds within 30 days.
        summary: Refunds.
        children:
          - {key: disputes, title: "", body: Chargebacks.}
      - key: billing
        title: Billing again
        body: Second.
        summary: Again.
prompt: Refund A7
script:
  - answer: Done.
"""


def test_statetools_check_reports_duplicate_keys_of_a_yaml_design_with_their_lines(
    tmp_path: Path,
) -> None:
    design = tmp_path / "desk.yaml"
    design.write_text(DUPLICATES, encoding="utf-8")
    out = io.StringIO()
    assert main(["check", str(design)], out) == 1
    assert out.getvalue() == (
        f"{design}:9: facade:read_section/section:billing.disputes: ST016 warning "
        "[empty-section-summary] Section 'billing.disputes' is shown as a summary but has no "
        "summary and no title: the prompt shows only the line telling the model to read it, "
        "not what it is about.\n"
        f"{design}:10: facade:read_section/section:billing@2: ST017 error "
        "[duplicate-section-key] More than one section of 'read_section' has the key "
        "'billing': only the first is read, so the second never shows, nor do its tools, and "
        "a run refuses the design.\n"
        "1 error, 1 warning\n"
    )


def test_a_yaml_design_with_duplicate_keys_does_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "desk.yaml"
    design.write_text(DUPLICATES, encoding="utf-8")
    assert main(["run", str(design)], io.StringIO()) == 2
    assert (
        f"  {design}:10: facade:read_section/section:billing@2: ST017 error "
        "[duplicate-section-key] More than one section" in capsys.readouterr().err
    )
    loaded = st.load_design(design)
    with pytest.raises(st.DefinitionError, match="more than one section has the key billing"):
        st.ToolLoop(st.models.ScriptedModel(["Done."])).run("Hi", tools=loaded.tools)
