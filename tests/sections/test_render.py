"""render draws prompt sections as a tree: a box per section-reading facade, a node per
section listing its tools, expands arrows from the facade down the tree; a trace marks
the reads on the sections and the calls on their tools."""

from __future__ import annotations

import statetools as st
from tests.sections.design import support_sections, tool

THREE_LEVELS_DOT = """\
digraph statetools {
	bgcolor=white compound=true fontname="Helvetica,Arial,sans-serif" newrank=true nodesep=0.3 rankdir=LR ranksep=0.45
	node [color="#374151" fontcolor="#111827" fontname="Helvetica,Arial,sans-serif" fontsize=12]
	edge [arrowsize=0.7 color="#374151" fontname="Helvetica,Arial,sans-serif"]
	facade_read_section [label=<<b>read_section</b>> color="#374151" fillcolor=white shape=folder style="rounded,filled" tooltip="Read a section of your instructions by its key; its tools become available."]
	subgraph cluster_sections_read_section {
		color="#8fbf9a" fillcolor="#eff7f1" label=<<font color="#6b7280" point-size="10">sections</font> <b>read_section</b>> labeljust=l margin=12 style="rounded,filled"
		section_read_section__tone [label=<<table border="0" cellborder="0" cellspacing="0" cellpadding="2"><tr><td align="center"><b>Tone</b><br/><font color="#6b7280" point-size="9">tone (full)</font></td></tr></table>> color="#374151" fillcolor=white shape=box style="rounded,filled"]
		section_read_section__billing [label=<<table border="0" cellborder="0" cellspacing="0" cellpadding="2"><tr><td align="center"><b>Billing</b><br/><font color="#6b7280" point-size="9">billing</font></td></tr><hr/><tr><td align="left" port="port_refund_order"><font point-size="11">refund_order</font></td></tr></table>> color="#374151" fillcolor=white shape=box style="rounded,filled,dashed" tooltip="Refunds, invoices and disputes."]
		section_read_section__billing__invoices [label=<<table border="0" cellborder="0" cellspacing="0" cellpadding="2"><tr><td align="center"><b>Invoices</b><br/><font color="#6b7280" point-size="9">billing.invoices</font></td></tr><hr/><tr><td align="left" port="port_resend_invoice"><font point-size="11">resend_invoice</font></td></tr></table>> color="#374151" fillcolor=white shape=box style="rounded,filled,dashed" tooltip="When invoices go out and how to resend them."]
		section_read_section__billing__invoices__disputes [label=<<table border="0" cellborder="0" cellspacing="0" cellpadding="2"><tr><td align="center"><b>Disputes</b><br/><font color="#6b7280" point-size="9">billing.invoices.disputes</font></td></tr><hr/><tr><td align="left" port="port_open_chargeback"><font point-size="11">open_chargeback</font></td></tr></table>> color="#374151" fillcolor=white shape=box style="rounded,filled,dashed" tooltip="Chargebacks and disputed payments."]
		section_read_section__shipping [label=<<table border="0" cellborder="0" cellspacing="0" cellpadding="2"><tr><td align="center"><b>Shipping</b><br/><font color="#6b7280" point-size="9">shipping</font></td></tr><hr/><tr><td align="left" port="port_track_parcel"><font point-size="11">track_parcel</font></td></tr></table>> color="#374151" fillcolor=white shape=box style="rounded,filled,dashed" tooltip="Delivery times."]
	}
	facade_read_section -> section_read_section__tone [arrowhead=vee color="#6b7280"]
	facade_read_section -> section_read_section__billing [arrowhead=vee color="#6b7280"]
	section_read_section__billing -> section_read_section__billing__invoices [arrowhead=vee color="#6b7280"]
	section_read_section__billing__invoices -> section_read_section__billing__invoices__disputes [arrowhead=vee color="#6b7280"]
	facade_read_section -> section_read_section__shipping [arrowhead=vee color="#6b7280"]
}
"""  # noqa: E501

THREE_LEVELS_MERMAID = """\
flowchart LR
  facade_read_section[/"read_section"/]
  subgraph cluster_sections_read_section["sections read_section"]
    section_read_section__tone("<b>Tone</b><br/><i>tone (full)</i>")
    section_read_section__billing("<b>Billing</b><br/><i>billing</i><br/>refund_order")
    section_read_section__billing__invoices("<b>Invoices</b><br/><i>billing.invoices</i><br/>resend_invoice")
    section_read_section__billing__invoices__disputes("<b>Disputes</b><br/><i>billing.invoices.disputes</i><br/>open_chargeback")
    section_read_section__shipping("<b>Shipping</b><br/><i>shipping</i><br/>track_parcel")
  end
  facade_read_section --> section_read_section__tone
  facade_read_section --> section_read_section__billing
  section_read_section__billing --> section_read_section__billing__invoices
  section_read_section__billing__invoices --> section_read_section__billing__invoices__disputes
  facade_read_section --> section_read_section__shipping
  classDef locked stroke-dasharray: 5 5
  class section_read_section__billing locked
  class section_read_section__billing__invoices locked
  class section_read_section__billing__invoices__disputes locked
  class section_read_section__shipping locked
"""


def test_a_three_level_tree_in_dot() -> None:
    assert st.render([support_sections()], format="dot").text == THREE_LEVELS_DOT


def test_a_three_level_tree_in_mermaid() -> None:
    assert st.render([support_sections()], format="mermaid").text == THREE_LEVELS_MERMAID


def _run() -> tuple[st.Sections, st.Trace]:
    sections = support_sections()
    model = st.models.ScriptedModel(
        [("read_section", {"key": "billing"}), ("refund_order", {"order": "A7"}), "Done."]
    )
    return sections, st.ToolLoop(model).run("Refund A7", tools=[sections]).trace


def test_a_trace_marks_the_section_read_and_the_tool_called() -> None:
    sections, trace = _run()
    lines = st.render([sections], format="dot", trace=trace).text.split("\n")
    billing = next(line for line in lines if line.startswith("\t\tsection_read_section__billing "))
    assert (
        '<b>Billing</b><br/><font color="#6b7280" point-size="9">billing</font><br/>'
        '<font point-size="10"><font color="#2563eb">1.1</font></font>' in billing
    )
    assert (
        '<font color="#2563eb"><b>refund_order</b></font> <font color="#2563eb">2.1</font>'
        in billing
    )
    assert 'color="#2563eb" fillcolor="#dbeafe"' in billing
    assert (
        "\tfacade_read_section -> section_read_section__billing "
        '[arrowhead=vee color="#2563eb" fontcolor="#2563eb" penwidth=2]' in lines
    )
    assert (
        "\tfacade_read_section -> section_read_section__shipping "
        '[arrowhead=vee color="#6b7280"]' in lines
    )
    mermaid = st.render([sections], format="mermaid", trace=trace).text
    assert (
        '    section_read_section__billing("<b>Billing</b><br/><i>billing</i><br/>1.1<br/>'
        'refund_order (2.1)")\n' in mermaid
    )
    assert "  class section_read_section__billing called\n" in mermaid
    assert mermaid.endswith("  linkStyle 1 stroke:#2563eb,stroke-width:2px\n")


def test_a_condition_on_a_section_tool_starts_at_its_row() -> None:
    sections = support_sections()
    refund = sections.sections[1].tools[0]
    escalate = st.PlaybookTool("escalation", "Escalate").with_tool(
        tool("escalate", "Escalate an order")
    )
    dot = st.render([sections, escalate.unlocked_by(refund)], format="dot").text
    assert (
        "\tsection_read_section__billing:port_refund_order -> tool_escalate "
        '[label="after refund_order" color="#6b7280" fontcolor="#6b7280" fontsize=10]\n' in dot
    )


def test_skills_with_a_tool_any_read_opens_and_a_key_that_is_the_title() -> None:
    from pathlib import Path

    travel = Path(__file__).resolve().parents[2] / "playbooks" / "travel_desk.yaml"
    dot = st.render(st.load_design(travel).tools, format="dot").text
    assert (
        '<tr><td align="center"><b>trip-tone</b></td></tr></table>>' in dot
    )  # no key line under a title that is the key
    assert (
        '\tfacade_load_skill -> tool_read_skill_file [label="any read" color="#374151" '
        'fontcolor="#6b7280" fontsize=10 style=bold]\n' in dot
    )


def test_a_facade_attached_to_a_section_is_drawn_as_a_facade_and_full_tools_as_rows() -> None:
    files = st.UnfoldingTool.of(
        "files", "File tools", [tool("read_file", "Read"), tool("write_file", "Write")]
    )
    sections = st.Sections(
        st.Section("tone", "Tone", "Be brief.", visibility="full", tools=[tool("lookup", "L")]),
        st.Section("ops", "Ops", "Operations.", summary="Ops.", tools=[files]),
    )
    mermaid = st.render([sections], format="mermaid").text
    assert mermaid == (
        "flowchart LR\n"
        '  facade_read_section[/"read_section"/]\n'
        '  subgraph cluster_sections_read_section["sections read_section"]\n'
        '    section_read_section__tone("<b>Tone</b><br/><i>tone (full)</i><br/>lookup")\n'
        '    section_read_section__ops("<b>Ops</b><br/><i>ops</i>")\n'
        '    facade_files[/"files"/]\n'
        '    subgraph cluster_facade_files["facade files"]\n'
        '      tool_read_file["read_file"]\n'
        '      tool_write_file["write_file"]\n'
        "    end\n"
        "  end\n"
        "  facade_read_section --> section_read_section__tone\n"
        "  facade_read_section --> section_read_section__ops\n"
        '  facade_files ==>|"unfolds"| cluster_facade_files\n'
        "  section_read_section__ops --> facade_files\n"
        "  classDef locked stroke-dasharray: 5 5\n"
        "  class section_read_section__ops locked\n"
        "  class facade_files locked\n"
        "  class tool_read_file locked\n"
        "  class tool_write_file locked\n"
    )
