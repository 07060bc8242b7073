"""The statetools command: output, exit statuses, and one clear line for user errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import main

ROOT = Path(__file__).resolve().parents[2]
RESEARCH = str(ROOT / "playbooks" / "research.yaml")
DESK = str(ROOT / "playbooks" / "support_desk.yaml")


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_check_a_good_design() -> None:
    assert run_cli("check", DESK) == (0, "No problems found. 0 errors, 0 warnings\n")


BAD = """\
kind: machine
name: order
description: Handle one order
states:
  DRAFT:
    tools: [{tool: search, transitions_to: STUCK}]
  STUCK: {}
  DONE: {}
final_states: [DONE]
"""


@pytest.fixture
def bad_design(tmp_path: Path) -> str:
    (tmp_path / "tools.json").write_text(
        json.dumps([{"type": "function", "function": {"name": "search", "description": "Search"}}])
    )
    path = tmp_path / "bad.yaml"
    path.write_text("tools_from: tools.json\n" + BAD)
    return str(path)


def test_check_errors_exit_1_and_json_lists_them(bad_design: str) -> None:
    status, text = run_cli("check", bad_design, "--format", "json")
    assert status == 1
    report = json.loads(text)
    codes = sorted({finding["code"] for finding in report["findings"]})
    assert codes == ["ST004", "ST005", "ST006", "ST014"]


def test_check_rules_can_be_switched_off(bad_design: str) -> None:
    status, text = run_cli(
        "check",
        bad_design,
        *("--disable", "ST004", "--disable", "trap-state", "--disable", "ST006"),
        *("--disable", "no-tools-left"),
    )
    assert (status, text) == (0, "No problems found. 0 errors, 0 warnings\n")


def test_tokens_vs_flat() -> None:
    status, text = run_cli("tokens", DESK, "--vs-flat")
    assert status == 0
    assert text == (
        "first visible set: 3 tools, 188 tokens (openai, o200k_base)\n"
        "flat (every tool at once, no facades): 14 tools, 944 tokens\n"
        "first request saves 80.1% of the flat tool tokens\n"
    )


def test_render_writes_the_format_of_the_suffix(tmp_path: Path) -> None:
    target = tmp_path / "research.dot"
    assert run_cli("render", RESEARCH, "-o", str(target)) == (0, f"wrote {target}\n")
    expected = st.render(st.load_design(RESEARCH).tools, format="dot").text
    assert target.read_text(encoding="utf-8") == expected


def test_run_prints_the_transcript_and_saves_the_trace(tmp_path: Path) -> None:
    trace_file = tmp_path / "trace.json"
    status, text = run_cli("run", RESEARCH, "--save-trace", str(trace_file))
    assert status == 0
    lines = text.splitlines()
    assert lines[:10] == [
        "user: Why are some tides higher than others?",
        "(< a call's result, x an error, + tools added, - tools hidden, > a state entered)",
        "turn 1",
        "  visible (1 tool, 54 tokens): search",
        "  model calls: search",
        "    < search: []",
        "turn 2",
        "  visible (1 tool, 54 tokens): search",
        "  model calls: analyze",
        "    x analyze: Tool 'analyze' is locked. It unlocks when a tool returned a Hit.",
    ]
    assert "finished (return_direct) after 6 model calls" in lines
    assert lines[-1] == f"trace saved to {trace_file}"
    trace = st.Trace.from_json(json.loads(trace_file.read_text()))
    assert trace[-1].outcome == "return_direct"
    status, _ = run_cli(
        "render", RESEARCH, "--trace", str(trace_file), "-o", str(tmp_path / "t.svg")
    )
    assert status == 0
    assert (tmp_path / "t.svg").read_text().startswith("<?xml")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "missing.yaml"], "statetools check: error: no such file: missing.yaml"),
        (
            ["render", RESEARCH, "-o", "out.txt"],
            "statetools render: error: cannot tell the format of out.txt",
        ),
        (
            ["render", RESEARCH, "-o", "out.svg", "--trace", RESEARCH],
            f"statetools render: error: cannot read trace {RESEARCH}",
        ),
        (
            ["render", RESEARCH, "-o", "/nonexistent/dir/out.svg"],
            "statetools render: error: /nonexistent/dir/out.svg: No such file or directory",
        ),
        (
            ["run", RESEARCH, "--save-trace", "/nonexistent/dir/trace.json"],
            "statetools run: error: /nonexistent/dir/trace.json: No such file or directory",
        ),
    ],
)
def test_user_errors_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _ = run_cli(*argv)
    error = capsys.readouterr().err
    assert status == 2
    assert error.startswith(message)
    assert error.count("\n") == 1
    assert "Traceback" not in error


def test_a_bad_design_file_lists_its_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("kind: playbook\nname: x\ncolour: red\n")
    assert run_cli("explore", str(path))[0] == 2
    error = capsys.readouterr().err
    assert error.startswith(f"statetools explore: error: {path}")
    assert "$.colour (line 3): unknown key 'colour'" in error
    assert "$.description" in error


def test_run_without_a_script_or_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("kind: playbook\nname: p\ndescription: d\ntools: [research:search]\n")
    (tmp_path / "research.py").write_text((ROOT / "playbooks" / "research.py").read_text())
    assert run_cli("run", str(path))[0] == 2
    assert capsys.readouterr().err == (
        f"statetools run: error: {path}: the file has no script and no --model was given "
        "Hint: add a 'script:' to the file, or pass --model openai:gpt-4o-mini\n"
    )


def test_the_console_script_and_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "statetools.cli", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    for command in ("check", "explore", "tokens", "render", "run"):
        assert command in done.stdout


def test_python_dash_m_statetools_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "statetools", "check", DESK],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "No problems found. 0 errors, 0 warnings\n",
        "",
    )


def test_explore_is_quiet_when_not_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    status, text = run_cli("explore", DESK)
    assert status == 0
    assert text.startswith("5 disclosure states, 5 distinct visible sets (complete)\n")
    assert capsys.readouterr().err == ""


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exited:
        main(["--version"])

    assert (exited.value.code, capsys.readouterr().out) == (
        0,
        f"statetools {version('statetools')}\n",
    )


def test_help_describes_the_design_file_without_pointing_to_files_of_the_source_tree(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out

    assert "docs/" not in text
    assert "naming tools by import path (module:function)" in " ".join(text.split())


def test_explore_beyond_max_states_hints_at_the_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    design = str(ROOT / "playbooks" / "travel_desk.yaml")
    assert run_cli("explore", "--max-states", "2", design)[0] == 2
    assert capsys.readouterr().err == (
        "statetools explore: error: the design has more than 2 disclosure states "
        "(explored 1, reaching turn 1) Hint: pass a larger --max-states (now 2)\n"
    )
