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


def test_each_tool_state_has_the_prompt_with_its_fewest_and_most_reads() -> None:
    sections = support_sections()
    exploration = st.explore([sections])
    tools = {name: e.tool for name, e in st.disclosure_graph(sections).entries.items()}
    billing = ("billing", "billing.invoices", "billing.invoices.disputes")
    assert [(s.keys, s.max_keys, s.tools, s.path) for s in exploration.prompt_states] == [
        ((), (), ("read_section",), ()),
        (
            ("billing",),
            billing,
            ("read_section", "refund_order", "resend_invoice", "open_chargeback"),
            ("read_section(key=billing)",),
        ),
        (
            ("billing.invoices",),
            billing[1:],
            ("read_section", "resend_invoice", "open_chargeback"),
            ("read_section(key=billing.invoices)",),
        ),
        (
            ("billing.invoices.disputes",),
            billing[2:],
            ("read_section", "open_chargeback"),
            ("read_section(key=billing.invoices.disputes)",),
        ),
        (
            ("shipping",),
            ("shipping",),
            ("read_section", "track_parcel"),
            ("read_section(key=shipping)",),
        ),
        (
            ("billing", "shipping"),
            (*billing, "shipping"),
            ("read_section", "refund_order", "resend_invoice", "open_chargeback", "track_parcel"),
            ("read_section(key=billing)", "read_section(key=shipping)"),
        ),
        (
            ("billing.invoices", "shipping"),
            (*billing[1:], "shipping"),
            ("read_section", "resend_invoice", "open_chargeback", "track_parcel"),
            ("read_section(key=billing.invoices)", "read_section(key=shipping)"),
        ),
        (
            ("billing.invoices.disputes", "shipping"),
            (*billing[2:], "shipping"),
            ("read_section", "open_chargeback", "track_parcel"),
            ("read_section(key=billing.invoices.disputes)", "read_section(key=shipping)"),
        ),
    ]  # a read of a section whose tools are open already leaves the state as it is
    assert exploration.states == 8
    for state in exploration.prompt_states:
        assert state.prompt_tokens == count_text(sections.prompt(state.keys))
        assert state.max_reads_tokens == count_text(sections.prompt(state.max_keys))
        assert state.tool_tokens == tools_tokens([tools[name] for name in state.tools])
        assert state.reads == tuple(("read_section", key) for key in state.keys)
    assert [(s.prompt_tokens, s.max_reads_tokens) for s in exploration.prompt_states] == [
        (62, 62),
        (82, 80),
        (111, 94),
        (79, 79),
        (52, 52),
        (72, 70),
        (101, 84),
        (69, 69),
    ]
    assert exploration.max_prompt_tokens == 111  # billing.invoices read under billing
    assert exploration.largest_prompt_state is not None
    assert exploration.largest_prompt_state.keys == ("billing", "shipping")
    assert [
        (c.key, c.opens, c.summary_tokens, c.full_tokens) for c in exploration.prompt_sections
    ] == [
        ("billing", ("refund_order", "resend_invoice", "open_chargeback"), 28, 14),
        ("billing.invoices", ("resend_invoice", "open_chargeback"), 34, 15),
        ("billing.invoices.disputes", ("open_chargeback",), 34, 17),
        ("shipping", ("track_parcel",), 24, 14),
    ]
    # the contract's names keep their meaning: tools only
    assert exploration.max_tokens == 243
    assert exploration.min_turns["open_chargeback"] == 1


def test_sections_without_tools_are_read_in_the_most_reads_of_a_state() -> None:
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
    assert [
        (s.keys, s.max_keys, s.prompt_tokens, s.max_reads_tokens) for s in exploration.prompt_states
    ] == [
        ((), ("a", "a.b"), 31, 21),
    ]
    assert count_text(sections.prompt(["a", "a.b"])) == 21
    assert [
        (c.key, c.opens, c.summary_tokens, c.full_tokens) for c in exploration.prompt_sections
    ] == [
        ("a", (), 24, 7),
        ("a.b", (), 25, 7),
    ]
    assert count_text(sections.facade.expansion_texts("a")[0] or "") == 24


def test_many_sections_without_tools_are_no_states() -> None:
    sections = st.Sections(
        *(st.Section(f"s{i}", f"S{i}", f"Body {i}.", summary=f"About {i}.") for i in range(40))
    )
    assert st.check([sections]).findings == ()
    exploration = st.explore([sections])
    assert exploration.states == 2  # the start, and read_section called
    [state] = exploration.prompt_states
    assert (state.keys, state.max_keys) == ((), tuple(f"s{i}" for i in range(40)))
    assert (state.prompt_tokens, state.max_reads_tokens) == (
        count_text(sections.prompt()),
        count_text(sections.prompt(sections.keys())),
    )
    assert len(exploration.prompt_sections) == 40


def test_sections_opening_tools_of_their_own_still_multiply_the_states() -> None:
    tools = [st.Tool.create(f"t{i}", f"Tool {i}", lambda: "ok") for i in range(8)]
    sections = st.Sections(
        *(
            st.Section(f"s{i}", f"S{i}", f"Body {i}.", summary=f"About {i}.", tools=[tools[i]])
            for i in range(8)
        )
    )
    with pytest.raises(ExplorationTooLarge) as caught:
        st.explore([sections], max_states=100)  # 2**8 sets of tools
    assert caught.value.hint == (
        "pass max_depth=3 to explore the first turns only, or a larger max_states"
    )
    shallow = st.explore([sections], max_depth=1)
    assert len(shallow.prompt_states) == 9  # nothing read, or one of the 8
    assert (shallow.prompt_states[8].keys, shallow.prompt_states[8].max_keys) == (("s7",), ("s7",))
    assert len(st.explore([sections]).prompt_states) == 256


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
        "tools": ["load_skill", "fill_field", "save_pdf", "read_skill_file"],
        "tool_tokens": 231,
        "turns": 1,
        "path": ["load_skill(key=pdf-forms)"],
        "reads": {"load_skill": ["pdf-forms"]},
        "prompt_tokens": 106,
        "max_reads": {"load_skill": ["pdf-forms", "tone", "travel"]},
        "max_reads_tokens": 72,
    }
    assert data["prompt_sections"][1] == {
        "facade": "load_skill",
        "key": "tone",
        "opens": ["read_skill_file"],
        "summary_tokens": 27,
        "full_tokens": 8,
    }


TREE_PROMPTS = """prompt text per state: 62 tokens at the start, 111 at most; with tools 128 at the start, 323 at most
reads: the sections read on the way there (after); max reads: with every section read that opens no more tools
turns  tools  tool tokens  reads  prompt tokens  max reads  prompt tokens (max reads)  after
    0      1           66      0             62          0                         62  (start)
    1      4          204      1             82          3                         80  read_section(key=billing)
    1      3          161      1            111          2                         94  read_section(key=billing.invoices)
    1      2          114      1             79          1                         79  read_section(key=billing.invoices.disputes)
    1      2          113      1             52          1                         52  read_section(key=shipping)
    2      5          251      2             72          4                         70  read_section(key=billing), read_section(key=shipping)
    2      4          208      2            101          3                         84  read_section(key=billing.invoices), read_section(key=shipping)
    2      3          161      2             69          2                         69  read_section(key=billing.invoices.disputes), read_section(key=shipping)

tokens of each section's own text, as a summary and in full:
section                    opens  summary tokens  full tokens
billing                        3              28           14
billing.invoices               2              34           15
billing.invoices.disputes      1              34           17
shipping                       1              24           14
"""  # noqa: E501


def test_statetools_tokens_on_a_three_level_section_tree(tmp_path: Path) -> None:
    design = write_design(tmp_path, "sections")
    assert cli("tokens", str(design)) == (
        "first visible set: 1 tool, 66 tokens (openai, o200k_base)\n" + TREE_PROMPTS
    )


def test_statetools_tokens_on_a_tree_cut_after_its_first_turn(tmp_path: Path) -> None:
    design = write_design(tmp_path, "sections")
    first = cli("tokens", "--max-states", "5", str(design)).splitlines()[1]
    assert first == (
        "prompt text per state: 62 tokens at the start, 111 at most; with tools 128 at the "
        "start, 286 at most (turns 0 to 1 only: --max-states stopped the search)"
    )


def test_statetools_explore_on_a_three_level_section_tree(tmp_path: Path) -> None:
    design = write_design(tmp_path, "sections")
    text = cli("explore", str(design))
    assert text.startswith("8 disclosure states, 8 distinct visible sets (complete)\n")
    assert text.endswith("\n\n" + TREE_PROMPTS)


SKILLS_PROMPTS = """prompt text per state: 93 tokens at the start, 106 at most; with tools 159 at the start, 342 at most
reads: the sections read on the way there (after); max reads: with every section read that opens no more tools
turns  tools  tool tokens  reads  prompt tokens  max reads  prompt tokens (max reads)  after
    0      1           66      0             93          0                         93  (start)
    1      4          236      1            106          3                         72  load_skill(key=pdf-forms)
    1      2          146      1             74          2                         59  load_skill(key=tone)

tokens of each section's own text, as a summary and in full:
section    opens  summary tokens  full tokens
pdf-forms      3              40           52
tone           1              27            8
travel         1              26           11
"""  # noqa: E501


def test_statetools_tokens_on_a_skills_folder(tmp_path: Path) -> None:
    design = write_design(tmp_path, "skills")
    assert cli("tokens", str(design)) == (
        "first visible set: 1 tool, 66 tokens (openai, o200k_base)\n" + SKILLS_PROMPTS
    )


def test_statetools_tokens_on_a_cut_short_exploration(tmp_path: Path) -> None:
    design = write_design(tmp_path, "skills")
    assert cli("tokens", "--max-states", "2", str(design)) == (
        "first visible set: 1 tool, 66 tokens (openai, o200k_base)\n"
        "prompt text per state: 93 tokens at the start, 93 at most; "
        "with tools 159 at the start, 159 at most "
        "(the start only: --max-states stopped the search)\n"
        "reads: the sections read on the way there (after); max reads: with every section "
        "read that opens no more tools\n"
        "turns  tools  tool tokens  reads  prompt tokens  max reads  prompt tokens (max reads)"
        "  after\n"
        "    0      1           66      0             93          0                         93"
        "  (start)\n"
        "\n" + SKILLS_PROMPTS.split("\n\n", 1)[1]
    )


def test_statetools_explore_shows_the_prompt_states(tmp_path: Path) -> None:
    design = write_design(tmp_path, "skills")
    text = cli("explore", str(design))
    assert text.endswith("\n\n" + SKILLS_PROMPTS)
    data = json.loads(cli("explore", "--format", "json", str(design)))
    assert [s["reads"] for s in data["prompt_states"]] == [
        {},
        {"load_skill": ["pdf-forms"]},
        {"load_skill": ["tone"]},
    ]
    assert [s["key"] for s in data["prompt_sections"]] == ["pdf-forms", "tone", "travel"]


def write_twenty_skills(root: Path) -> Path:
    """The folder of an ordinary design: 20 skills, each opening read_skill_file."""
    for i in range(1, 21):
        folder = root / "skills" / f"skill-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i}\ndescription: Skill number {i} does things.\n---\n"
            f"Body of skill {i}.\n",
            encoding="utf-8",
        )
    design = root / "design.yaml"
    design.write_text("definitions:\n  - kind: skills\n    path: skills\n", encoding="utf-8")
    return design


TWENTY_PROMPTS = """prompt text per state: 640 tokens at the start, 640 at most; with tools 706 at the start, 765 at most
reads: the sections read on the way there (after); max reads: with every section read that opens no more tools
turns  tools  tool tokens  reads  prompt tokens  max reads  prompt tokens (max reads)  after
    0      1           66      0            640          0                        640  (start)
    1      2          146      1            619         20                        220  load_skill(key=skill-1)

tokens of each section's own text, as a summary and in full:
section   opens  summary tokens  full tokens
skill-1       1              32           11
skill-10      1              32           11
skill-11      1              32           11
skill-12      1              32           11
skill-13      1              32           11
skill-14      1              32           11
skill-15      1              32           11
skill-16      1              32           11
skill-17      1              32           11
skill-18      1              32           11
skill-19      1              32           11
skill-2       1              32           11
skill-20      1              32           11
skill-3       1              32           11
skill-4       1              32           11
skill-5       1              32           11
skill-6       1              32           11
skill-7       1              32           11
skill-8       1              32           11
skill-9       1              32           11
"""  # noqa: E501


def test_statetools_explore_on_twenty_skills(tmp_path: Path) -> None:
    design = write_twenty_skills(tmp_path)
    assert cli("explore", str(design)) == (
        "2 disclosure states, 2 distinct visible sets (complete)\n"
        "tokens (o200k_base, openai): flat 82, start 66, largest 146 (178% of flat)\n"
        "\n"
        "turns  tools  tokens  after\n"
        "    0      1      66  (start)\n"
        "    1      2     146  load_skill(key=skill-1)\n"
        "\n"
        "tool             turns  tokens  after\n"
        "load_skill           0      65  (start)\n"
        "read_skill_file      1      81  load_skill(key=skill-1)\n"
        "\n" + TWENTY_PROMPTS
    )


def test_statetools_tokens_on_twenty_skills(tmp_path: Path) -> None:
    design = write_twenty_skills(tmp_path)
    assert cli("tokens", str(design)) == (
        "first visible set: 1 tool, 66 tokens (openai, o200k_base)\n" + TWENTY_PROMPTS
    )


def test_statetools_check_on_twenty_skills_explores_every_state(tmp_path: Path) -> None:
    design = write_twenty_skills(tmp_path)
    assert cli("check", str(design)) == "No problems found. 0 errors, 0 warnings\n"


def test_statetools_tokens_on_the_travel_desk_playbook_as_docs_skills_shows_it() -> None:
    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "skills.md").read_text(encoding="utf-8")
    command = "$ statetools tokens playbooks/travel_desk.yaml\n"
    shown = docs.split(command, 1)[1].split("```", 1)[0]
    assert cli("tokens", str(root / "playbooks" / "travel_desk.yaml")) == shown
    assert shown.splitlines()[-1] == "trip-tone          1              29           15"


def test_on_a_terminal_the_prompt_states_are_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    design = str(write_design(tmp_path, "skills"))
    monkeypatch.setenv("COLUMNS", "160")
    for command in ("tokens", "explore"):
        out = Terminal()
        assert main([command, design], out) == 0
        text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
        assert "prompt text per state: 93 tokens at the start, 106 at most" in text
        rows = [line for line in text.splitlines() if "load_skill(key=pdf-forms)" in line]
        assert re.findall(r"\d+", rows[-1]) == ["1", "4", "236", "1", "106", "3", "72"]
        rows = [line for line in text.splitlines() if re.search(r"\btone\b.*\d", line)]
        assert re.findall(r"\b\d+\b", rows[-1]) == ["1", "27", "8"]


def test_each_prompt_state_is_what_a_run_reaching_it_sends() -> None:
    """Both ends of each state's prompt text are what the sections write when a
    conversation starts in it: a model without dynamic tools, restarted by each read
    that opens tools, is sent the fewest reads' text after the reads of the path, and
    the most reads' text when the sections that open no more tools are read first
    (the path's reads, last, restart it). The tools stay those of the state. (This
    order exists for every state of this tree; in general the most reads' text may
    only reach the model as read_section results.)"""
    from statetools.models import ModelCapabilities, ScriptedModel

    sections = support_sections()
    states = st.explore([sections]).prompt_states

    def sent(keys: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        reads = [("read_section", {"key": key}) for key in keys]
        model = ScriptedModel(
            [*reads, "done"], capabilities=ModelCapabilities(supports_dynamic_tools=False)
        )
        st.ToolLoop(model, system_prompt="You are a support agent.").run("hi", tools=[sections])
        last = model.requests[-1]
        return last.messages[1].content, tuple(last.tool_names)

    for state in states:
        assert sent(state.keys) == (sections.prompt(state.keys), state.tools)
        first = tuple(key for key in state.max_keys if key not in state.keys)
        text, tools = sent((*first, *state.keys))
        assert text == sections.prompt(state.max_keys)
        assert sorted(tools) == sorted(state.tools)  # in the order they opened
        assert (count_text(sections.prompt(state.keys)), count_text(text)) == (
            state.prompt_tokens,
            state.max_reads_tokens,
        )
