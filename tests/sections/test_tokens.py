"""explore tracks the sections read as part of each state, and explore and `statetools
tokens` report, per state, the tokens of the sections' prompt text next to the tools'."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main
from statetools.review import ExplorationTooLarge
from statetools.review.tokens import count_text, tools_tokens
from tests.sections.cli_design import write_design
from tests.sections.design import support_sections
from tests.sections.test_skills import design_tools, write_skills


def cli(*args: str) -> str:
    out = io.StringIO()
    assert main(list(args), out) == 0
    return out.getvalue()


def test_each_state_pairs_the_sections_read_with_the_prompt_and_tool_tokens() -> None:
    sections = support_sections()
    exploration = st.explore([sections])
    tools = {name: e.tool for name, e in st.disclosure_graph(sections).entries.items()}
    assert [(s.keys, s.tools, s.path) for s in exploration.prompt_states[:6]] == [
        ((), ("read_section",), ()),
        (
            ("billing",),
            ("read_section", "refund_order", "resend_invoice", "open_chargeback"),
            ("read_section(key=billing)",),
        ),
        (
            ("billing.invoices",),
            ("read_section", "resend_invoice", "open_chargeback"),
            ("read_section(key=billing.invoices)",),
        ),
        (
            ("billing.invoices.disputes",),
            ("read_section", "open_chargeback"),
            ("read_section(key=billing.invoices.disputes)",),
        ),
        (("shipping",), ("read_section", "track_parcel"), ("read_section(key=shipping)",)),
        (
            ("billing", "billing.invoices"),
            ("read_section", "refund_order", "resend_invoice", "open_chargeback"),
            ("read_section(key=billing)", "read_section(key=billing.invoices)"),
        ),
    ]
    assert len(exploration.prompt_states) == 16  # every subset of the 4 summary sections
    for state in exploration.prompt_states:
        assert state.prompt_tokens == count_text(sections.prompt(state.keys))
        assert state.tool_tokens == tools_tokens([tools[name] for name in state.tools])
        assert state.total_tokens == state.prompt_tokens + state.tool_tokens
        assert state.expanded == tuple(("read_section", key) for key in state.keys)
    start = exploration.prompt_states[0]
    assert (start.prompt_tokens, start.tool_tokens) == (62, 66)
    assert exploration.max_prompt_tokens == 111  # billing.invoices read under billing
    assert exploration.largest_prompt_state is not None
    assert exploration.largest_prompt_state.keys == (
        "billing",
        "billing.invoices.disputes",
        "shipping",
    )
    # the contract's names keep their meaning: tools only
    assert exploration.max_tokens == 243
    assert exploration.min_turns["open_chargeback"] == 1


def test_reading_a_section_without_tools_is_a_state_of_its_own() -> None:
    sections = st.Sections(
        st.Section(
            "a",
            "A",
            "Body of A.",
            summary="About A.",
            children=[st.Section("b", "B", "Body of B.", summary="About B.")],
        ),
        st.Section("c", "C", "Body of C.", visibility="full"),  # reading it changes nothing
    )
    exploration = st.explore([sections])
    assert [v.tools for v in exploration.visible_sets] == [("read_section",)]
    assert [(s.keys, s.prompt_tokens, s.path) for s in exploration.prompt_states] == [
        ((), 31, ()),
        (("a",), 39, ("read_section(key=a)",)),
        (("a.b",), 38, ("read_section(key=a.b)",)),
        (("a", "a.b"), 21, ("read_section(key=a)", "read_section(key=a.b)")),
    ]
    assert count_text(sections.prompt(["a", "a.b"])) == 21
    assert exploration.states == 4


def test_many_sections_without_tools_leave_check_alone_and_explore_can_skip_them() -> None:
    sections = st.Sections(
        *(st.Section(f"s{i}", f"S{i}", f"Body {i}.", summary=f"About {i}.") for i in range(16))
    )
    assert st.check([sections]).findings == ()  # check explores the tools alone
    with pytest.raises(ExplorationTooLarge) as caught:
        st.explore([sections])  # 2**16 sets of sections read
    assert caught.value.hint == (
        "pass max_depth=5 to explore the first turns only, or a larger max_states, "
        "or prompts=False (only reads that open tools)"
    )
    shallow = st.explore([sections], max_depth=1)
    assert len(shallow.prompt_states) == 17  # nothing read, or one of the 16
    assert shallow.prompt_states[16].keys == ("s15",)
    quick = st.explore([sections], prompts=False)
    assert (quick.states, [s.keys for s in quick.prompt_states]) == (2, [()])


def test_without_prompts_only_the_reads_that_open_tools_are_states() -> None:
    exploration = st.explore([support_sections()], prompts=False)
    assert len(exploration.prompt_states) == 16  # every summary section here opens tools
    text_only = st.Sections(
        st.Section("a", "A", "Body of A.", summary="About A."),
        st.Section("b", "B", "Body of B.", summary="About B.", tools=[design_tools()[1]]),
    )
    assert [s.keys for s in st.explore([text_only], prompts=False).prompt_states] == [
        (),
        ("b",),
    ]
    assert [s.keys for s in st.explore([text_only]).prompt_states] == [
        (),
        ("a",),
        ("b",),
        ("a", "b"),
    ]


def test_designs_without_sections_report_no_prompt_states() -> None:
    search = st.Tool.create("search", "Search the web", lambda query: "found")
    exploration = st.explore([search])
    assert exploration.prompt_states == ()
    assert (exploration.max_prompt_tokens, exploration.largest_prompt_state) == (0, None)
    assert "prompt_states" not in exploration.to_dict()
    assert "prompt and tools" not in exploration.to_text()


def test_exploration_json_has_the_prompt_states(tmp_path: Path) -> None:
    skills = st.load_skills(write_skills(tmp_path), tools=design_tools())
    data = st.explore([skills]).to_dict()
    assert data["max_prompt_tokens"] == 106
    assert data["prompt_states"][1] == {
        "expanded": {"load_skill": ["pdf-forms"]},
        "tools": ["load_skill", "fill_field", "save_pdf", "read_skill_file"],
        "tool_tokens": 231,
        "prompt_tokens": 106,
        "total_tokens": 337,
        "turns": 1,
        "path": ["load_skill(key=pdf-forms)"],
    }


def test_statetools_tokens_on_a_three_level_section_tree(tmp_path: Path) -> None:
    design = write_design(tmp_path, "sections")
    assert cli("tokens", str(design)) == (
        "first visible set: 1 tools, 66 tokens (openai, o200k_base)\n"
        "prompt and tools per state: prompt 62 at the start, 111 at most; "
        "with tools 128 at the start, 340 at most\n"
        "sections read                                                   turns  tools  "
        "tool tokens  prompt tokens  total\n"
        "(none)                                                              0      1  "
        "         66             62    128\n"
        "billing                                                             1      4  "
        "        204             82    286\n"
        "billing.invoices                                                    1      3  "
        "        161            111    272\n"
        "billing.invoices.disputes                                           1      2  "
        "        114             79    193\n"
        "shipping                                                            1      2  "
        "        113             52    165\n"
        "billing, billing.invoices                                           2      4  "
        "        204             97    301\n"
        "billing, billing.invoices.disputes                                  2      4  "
        "        204             99    303\n"
        "billing, shipping                                                   2      5  "
        "        251             72    323\n"
        "billing.invoices, billing.invoices.disputes                         2      3  "
        "        161             94    255\n"
        "billing.invoices, shipping                                          2      4  "
        "        208            101    309\n"
        "billing.invoices.disputes, shipping                                 2      3  "
        "        161             69    230\n"
        "billing, billing.invoices, billing.invoices.disputes                3      4  "
        "        204             80    284\n"
        "billing, billing.invoices, shipping                                 3      5  "
        "        251             87    338\n"
        "billing, billing.invoices.disputes, shipping                        3      5  "
        "        251             89    340\n"
        "billing.invoices, billing.invoices.disputes, shipping               3      4  "
        "        208             84    292\n"
        "billing, billing.invoices, billing.invoices.disputes, shipping      4      5  "
        "        251             70    321\n"
    )


SKILLS_TOKENS = """\
first visible set: 1 tools, 66 tokens (openai, o200k_base)
prompt and tools per state: prompt 93 at the start, 106 at most; with tools 159 at the start, 342 at most
sections read            turns  tools  tool tokens  prompt tokens  total
(none)                       0      1           66             93    159
pdf-forms                    1      4          236            106    342
tone                         1      2          146             74    220
travel                       1      2          146             78    224
pdf-forms, tone              2      4          236             87    323
pdf-forms, travel            2      4          236             91    327
tone, travel                 2      2          146             59    205
pdf-forms, tone, travel      3      4          236             72    308
"""  # noqa: E501


def test_statetools_tokens_on_a_skills_folder(tmp_path: Path) -> None:
    design = write_design(tmp_path, "skills")
    assert cli("tokens", str(design)) == SKILLS_TOKENS


def test_statetools_tokens_on_a_cut_short_exploration(tmp_path: Path) -> None:
    design = write_design(tmp_path, "skills")
    assert cli("tokens", "--max-states", "3", str(design)) == (
        "first visible set: 1 tools, 66 tokens (openai, o200k_base)\n"
        "prompt and tools per state: prompt 93 at the start, 93 at most; "
        "with tools 159 at the start, 159 at most (first 0 turns only)\n"
        "sections read  turns  tools  tool tokens  prompt tokens  total\n"
        "(none)             0      1           66             93    159\n"
    )


def test_statetools_explore_shows_the_prompt_states(tmp_path: Path) -> None:
    design = write_design(tmp_path, "skills")
    text = cli("explore", str(design))
    assert text.endswith("\n\n" + SKILLS_TOKENS.split("\n", 1)[1])
    data = json.loads(cli("explore", "--format", "json", str(design)))
    assert [s["expanded"] for s in data["prompt_states"][:2]] == [
        {},
        {"load_skill": ["pdf-forms"]},
    ]


def test_statetools_tokens_on_the_travel_desk_playbook_as_docs_skills_shows_it() -> None:
    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "skills.md").read_text(encoding="utf-8")
    command = "$ statetools tokens playbooks/travel_desk.yaml\n"
    shown = docs.split(command, 1)[1].split("```", 1)[0]
    assert cli("tokens", str(root / "playbooks" / "travel_desk.yaml")) == shown
    assert shown.splitlines()[-1] == (
        "hotel-booking, train-booking, trip-tone      3      5          365            123    488"
    )


def test_on_a_terminal_the_prompt_states_are_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    design = str(write_design(tmp_path, "skills"))
    monkeypatch.setenv("COLUMNS", "120")
    for command in ("tokens", "explore"):
        out = Terminal()
        assert main([command, design], out) == 0
        text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
        assert "prompt and tools per state: prompt 93 at the start, 106 at most" in text
        rows = [line for line in text.splitlines() if "pdf-forms, tone, travel" in line]
        assert len(rows) == 1
        assert re.findall(r"\d+", rows[0]) == ["3", "4", "236", "72", "308"]


def test_each_prompt_state_is_what_a_run_along_its_path_sends() -> None:
    """The prompt text explore counts for a state is what the sections write when a
    conversation starts in it: a model without dynamic tools, restarted by each read
    that opens tools, is sent that text after such a read (after a read that opens
    nothing, the text of the last restart stays). The tools are those of the state."""
    from statetools.models import ModelCapabilities, ScriptedModel

    sections = support_sections()
    states = st.explore([sections]).prompt_states
    tools_of = {state.keys: state.tools for state in states}
    restarted_with_all = 0
    for state in states:
        shown: tuple[str, ...] = ()
        for i in range(len(state.keys)):
            if tools_of[state.keys[: i + 1]] != tools_of[state.keys[:i]]:
                shown = state.keys[: i + 1]  # this read opened tools: a restart
        reads = [("read_section", {"key": key}) for key in state.keys]
        model = ScriptedModel(
            [*reads, "done"], capabilities=ModelCapabilities(supports_dynamic_tools=False)
        )
        st.ToolLoop(model, system_prompt="You are a support agent.").run("hi", tools=[sections])
        last = model.requests[-1]
        assert last.messages[1].content == sections.prompt(shown)
        assert tuple(last.tool_names) == state.tools
        if shown == state.keys:
            assert count_text(last.messages[1].content) == state.prompt_tokens
            restarted_with_all += 1
    assert restarted_with_all == 12  # 4 paths end with a read of a section already open
