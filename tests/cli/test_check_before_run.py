"""A design with check errors does not run (CLI and ToolLoop); findings name file and line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main
from statetools.models import ScriptedModel

ROOT = Path(__file__).resolve().parents[2]

MISSPELLED = """\
kind: playbook
name: research
description: Research a question
tools:
  - research:search
  - tool: research:summarize
    unlocked_by: serach
prompt: Why tides?
script:
  - answer: Because of the moon.
"""


@pytest.fixture
def design(tmp_path: Path) -> Path:
    (tmp_path / "research.py").write_text((ROOT / "playbooks" / "research.py").read_text())
    path = tmp_path / "design.yaml"
    path.write_text(MISSPELLED)
    return path


def finding_lines(path: Path) -> list[str]:
    where = f"{path}:6: playbook:research/tool:summarize"
    return [
        f"{where}: ST001 error [unknown-reference] The condition of 'summarize' names tool "
        "'serach', which is not registered. Did you mean 'search'?",
        f"{where}: ST003 error [never-unlocks] Tool 'summarize' can never unlock: it needs "
        "'serach', which is not a registered tool.",
    ]


def test_run_refuses_a_design_with_check_errors(
    design: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()

    status = main(["run", str(design)], out)

    assert (status, out.getvalue()) == (2, "")
    assert capsys.readouterr().err == (
        f"statetools run: error: {design}: the design has 2 check errors; it does not run:\n"
        + "".join(f"  {line}\n" for line in finding_lines(design))
        + " Hint: fix them (statetools check FILE lists them all), or run anyway with "
        "ToolLoop(..., check_design=False) or statetools run --no-check\n"
    )


def test_no_check_runs_it_anyway(design: Path) -> None:
    out = io.StringIO()

    status = main(["run", str(design), "--no-check"], out)

    assert status == 0
    assert out.getvalue().splitlines()[-2:] == [
        "  model: Because of the moon.",
        "finished (answer) after 1 model call",
    ]


def test_check_findings_carry_the_file_and_line(design: Path) -> None:
    out = io.StringIO()

    status = main(["check", str(design), "--format", "json"], out)
    text_out = io.StringIO()
    main(["check", str(design)], text_out)

    assert status == 1
    assert json.loads(out.getvalue())["findings"][0]["source"] == f"{design}:6"
    assert text_out.getvalue().splitlines() == [*finding_lines(design), "2 errors, 0 warnings"]


def test_a_tool_loop_refuses_a_yaml_design_with_errors_unless_told_not_to(design: Path) -> None:
    loaded = st.load_design(design)
    model = ScriptedModel(["Because of the moon."])

    with pytest.raises(st.SpecError) as caught:
        st.ToolLoop(model).run("Why?", tools=loaded.tools, context=loaded.run_context())
    result = st.ToolLoop(model, check_design=False).run(
        "Why?", tools=loaded.tools, context=loaded.run_context()
    )

    assert caught.value.path == str(design)
    assert caught.value.message.splitlines()[1:] == [f"  {x}" for x in finding_lines(design)]
    assert [r.tool_names for r in model.requests] == [["search"]]  # only the second run asked
    assert result.output == "Because of the moon."


def test_a_condition_on_a_tool_passed_beside_the_yaml_design_is_no_error(tmp_path: Path) -> None:
    def lookup(word: str) -> str:
        """Look a word up."""
        return word

    playbook = st.load_playbook(
        "kind: playbook\nname: p\ndescription: d\n"
        "tools: [{tool: tests.providers.provider_wire:SEARCH, unlocked_by: lookup}]\n"
    )
    model = ScriptedModel([("lookup", {"word": "x"}), "done"])

    result = st.ToolLoop(model).run("go", tools=[playbook, lookup])

    assert result.output == "done"
    assert [r.tool_names for r in model.requests] == [["lookup"], ["lookup", "search"]]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "kind: machine\nname: m\ndescription: d\nstates: {A: {}, DONE: {}}\n"
            "final_states: DONE\n",
            "$.final_states (line 5): expected a list, got text Hint: write a list: [DONE]",
        ),
        (
            "kind: machine\nname: m\ndescription: d\nstates: [A, DONE]\n",
            "$.states (line 4): expected a mapping, got a list Hint: write a mapping with one "
            "key per item: {A: {}, DONE: {}}",
        ),
        (
            "kind: playbook\nname: p\ndescription: d\nagent: {max_iterations: '10'}\n",
            "$.agent.max_iterations (line 4): expected a whole number, got text Hint: write "
            "the number without quotes: 10",
        ),
        (
            "kind: facade\nname: f\ndescription: d\nexclusive: 'yes'\n",
            "$.exclusive (line 4): expected true or false, got text Hint: write true or "
            "false, without quotes",
        ),
    ],
)
def test_type_errors_in_yaml_say_how_to_write_it(text: str, problem: str) -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(text)

    assert str(caught.value) == problem


def test_run_prints_the_warnings_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "research.py").write_text((ROOT / "playbooks" / "research.py").read_text())
    design = tmp_path / "warn.yaml"
    design.write_text(
        "kind: machine\nname: m\ndescription: d\nstates:\n"
        "  A:\n    tools: [{tool: research:search, transitions_to: DONE}]\n"
        "  DONE: {}\n  LOST: {}\nfinal_states: [DONE, LOST]\n"
        "prompt: go\nscript:\n  - answer: ok\n"
    )
    out = io.StringIO()

    status = main(["run", str(design)], out)

    assert (status, out.getvalue().splitlines()[-1]) == (0, "finished (answer) after 1 model call")
    assert capsys.readouterr().err == (
        f"warning: {design}:8: machine:m/state:LOST: ST004 warning [unreachable-state] "
        "State LOST of 'm' is never entered: no transition that can fire leads to it.\n"
    )
