"""Sections that share a key (kept with ``strict=False``, as YAML designs are, so that
``check`` reports ST017): the first one with a key wins everywhere. The prompt shows it
once, ``read_section`` reads it and opens its tools, and ``tokens``, ``explore`` and
``render`` see the design as if the later ones were not there."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main
from tests.sections.design import tool

REFUND = tool("refund_order", "Refund an order")
VOID = tool("void_order", "Void an order")
DISPUTE = tool("open_chargeback", "Open a chargeback for an order")


def _first_only() -> list[st.Section]:
    tone = st.Section("tone", "Tone", "Answer briefly.", visibility="full")
    disputes = st.Section(
        "disputes", "Disputes", "Chargebacks.", summary="Disputes.", tools=[DISPUTE]
    )
    billing = st.Section(
        "billing",
        "Billing",
        "Refunds within 30 days.",
        summary="Refunds.",
        tools=[REFUND],
        children=[disputes],
    )
    return [tone, billing]


def _with_duplicates() -> list[st.Section]:
    tone, billing = _first_only()
    disputes_again = st.Section(
        "disputes", "Disputes again", "Never.", summary="Again.", tools=[VOID]
    )
    billing = billing.with_children(disputes_again)
    billing_again = st.Section(
        "billing", "Billing again", "Second.", summary="Again.", tools=[VOID]
    )
    return [tone, billing, billing_again, st.Section("tone", "Tone again", "Shout.")]


def duplicated() -> st.Sections:
    return st.Sections(*_with_duplicates(), strict=False)


def single() -> st.Sections:
    return st.Sections(*_first_only())


FIRST_PROMPT = """\
## Tone

Answer briefly.

## Billing

Refunds.
(Summary only: call read_section with key "billing" to read it in full.)"""

READ_PROMPT = """\
## Tone

Answer briefly.

## Billing

Refunds within 30 days.

### Disputes

Disputes.
(Summary only: call read_section with key "billing.disputes" to read it in full.)"""


def test_the_prompt_shows_the_first_section_of_a_key_once() -> None:
    sections = duplicated()
    assert sections.prompt() == FIRST_PROMPT
    assert sections.prompt(["billing"]) == READ_PROMPT
    assert sections.keys() == ["tone", "billing", "billing.disputes"]
    assert sections.prompt() == single().prompt()
    assert sections.prompt(["billing", "billing.disputes"]) == single().prompt(
        ["billing", "billing.disputes"]
    )


def test_read_section_reads_the_first_one_and_opens_its_tools_only() -> None:
    sections = duplicated()
    result = sections.facade.call({"key": "billing"})
    assert result.text == (
        "## Billing\n\nRefunds within 30 days.\n\n### Disputes\n\nDisputes.\n"
        '(Summary only: call read_section with key "billing.disputes" to read it in full.)'
    )
    assert [t.name for t in sections.facade.inner] == ["refund_order", "open_chargeback"]
    assert sections.facade.categories == (
        ("billing", ("refund_order", "open_chargeback")),
        ("billing.disputes", ("open_chargeback",)),
    )
    assert sections.facade.call({"key": "billing.disputes"}).text == (
        "### Disputes\n\nChargebacks."
    )


def test_a_run_refuses_the_design_its_analysis_describes_the_first_sections() -> None:
    """A run refuses the duplicated design; tokens, explore and render (below) describe
    the run of the first sections, which is this one."""
    model = st.models.ScriptedModel([("read_section", {"key": "billing"}), "Done."])
    st.ToolLoop(model).run("Refund A7", tools=[single()])
    assert model.requests[0].messages[0].content == FIRST_PROMPT
    assert model.requests[1].tool_names == ["read_section", "refund_order", "open_chargeback"]
    with pytest.raises(st.DefinitionError, match="more than one section has the key billing"):
        st.ToolLoop(st.models.ScriptedModel(["Done."])).run("Hi", tools=[duplicated()])


def test_explore_and_render_see_only_the_first_sections() -> None:
    exploration = st.explore([duplicated()])
    assert exploration.to_json() == st.explore([single()]).to_json()
    assert [(s.keys, s.tools) for s in exploration.prompt_states] == [
        ((), ("read_section",)),
        (("billing",), ("read_section", "refund_order", "open_chargeback")),
        (("billing.disputes",), ("read_section", "open_chargeback")),
    ]
    assert st.render([duplicated()], format="dot").text == (
        st.render([single()], format="dot").text
    )


def test_check_reports_the_later_sections() -> None:
    assert [f.path for f in st.check([duplicated()]).findings if f.code == "ST017"] == [
        "facade:read_section/section:billing.disputes@2",
        "facade:read_section/section:billing@2",
        "facade:read_section/section:tone@2",
    ]


DESIGN = """\
definitions:
  - kind: sections
    sections:
      - key: billing
        title: Billing
        body: Refunds within 30 days.
        summary: Refunds.
{again}prompt: Refund A7
script:
  - answer: Done.
"""

AGAIN = """\
      - key: billing
        title: Billing again
        body: A second, much longer text that the prompt never shows to the model.
        summary: A second summary that the prompt never shows either.
"""

TOKENS = """\
first visible set: 1 tool, 66 tokens (openai, o200k_base)
prompt text per state: 24 tokens at the start, 24 at most; with tools 90 at the start, 90 at \
most
reads: the sections read on the way there (after); max reads: with every section read that \
opens no more tools
turns  tools  tool tokens  reads  prompt tokens  max reads  prompt tokens (max reads)  after
    0      1           66      0             24          1                         10  (start)

tokens of each section's own text, as a summary and in full:
section  opens  summary tokens  full tokens
billing      0              24           10
"""


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(args), out)
    return code, out.getvalue()


def test_tokens_and_explore_of_a_yaml_design_count_the_first_section(tmp_path: Path) -> None:
    twice = tmp_path / "twice.yaml"
    twice.write_text(DESIGN.format(again=AGAIN), encoding="utf-8")
    once = tmp_path / "once.yaml"
    once.write_text(DESIGN.format(again=""), encoding="utf-8")
    assert _cli("tokens", str(twice)) == (0, TOKENS)
    assert _cli("tokens", str(once)) == (0, TOKENS)
    assert _cli("explore", str(twice)) == _cli("explore", str(once))
    assert _cli("check", str(twice)) == (
        1,
        f"{twice}:8: facade:read_section/section:billing@2: ST017 error "
        "[duplicate-section-key] More than one section of 'read_section' has the key "
        "'billing': only the first is read, so the second never shows, nor do its tools, and "
        "a run refuses the design.\n"
        "1 error, 0 warnings\n",
    )
