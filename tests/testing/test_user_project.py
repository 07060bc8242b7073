"""Acceptance: a user's project, in a temporary directory, snapshot-tests a playbook with
the installed plugin, exactly as docs/testing.md tells (its example is the test file).

Each scenario runs pytest in a subprocess with this interpreter (statetools installed).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "testing.md"
PYPROJECT = """\
[project]
name = "my-agent"
version = "0.1.0"

[tool.pytest.ini_options]
addopts = "-p no:cacheprovider --snapshot-no-colors"
"""
FIXTURES_TEST = """\
import statetools as st
from statetools.testing import run_scripted


@st.llm_tool("Look a word up.")
def lookup(word: str) -> str:
    return word


def test_yaml_script_next_to_the_test(scripted_model):
    model = scripted_model("script.yaml")
    assert run_scripted([lookup], model).output == "Looked up."
    assert model.requests[0].tool_names == ["lookup"]
"""
SCRIPT = "- call: {name: lookup, arguments: {word: tide}}\n- answer: Looked up.\n"
TRACE_FILE = "__snapshots__/test_research/test_research_trace.trace"
DOT_FILE = "__snapshots__/test_research/test_research_diagram.dot"


def doc_blocks(kind: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(rf"^( *)```{kind}\n(.*?)^\1```", text, flags=re.DOTALL | re.MULTILINE)
    return [re.sub(rf"^{indent}", "", body, flags=re.MULTILINE) for indent, body in blocks]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "test_research.py").write_text(doc_blocks("python")[0], encoding="utf-8")
    # in a folder of its own: the script is found next to the test, not in the cwd
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_fixtures.py").write_text(FIXTURES_TEST, encoding="utf-8")
    (tmp_path / "tests" / "script.yaml").write_text(SCRIPT, encoding="utf-8")
    return tmp_path


def pytest_in(
    project: Path, *args: str, seed: str = "0", site_dir: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run pytest in ``project``; with ``site_dir``, that is the only site-packages."""
    env = {**os.environ, "PYTHONHASHSEED": seed, "NO_COLOR": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    python = [sys.executable, "-c"]
    code = "import pytest"
    if site_dir is not None:
        python = [sys.executable, "-S", "-c"]
        code = f"import site; site.addsitedir({str(site_dir)!r}); import pytest"
    # hypothesis's plugin takes most of pytest's start-up here, and this project needs none
    argv = ["-q", "-p", "no:hypothesispytest", "-p", "no:anyio", *args]
    runner = f"{code}; raise SystemExit(pytest.main({argv!r}))"
    return subprocess.run(
        [*python, runner],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def snapshot_files(project: Path) -> dict[str, bytes]:
    return {
        p.relative_to(project).as_posix(): p.read_bytes()
        for p in sorted(project.rglob("*"))
        if p.is_file() and "__snapshots__" in p.parts
    }


def test_pass_fail_with_a_diff_then_accept(project: Path) -> None:
    created = pytest_in(project, "--snapshot-update", seed="1")
    assert created.returncode == 0, created.stdout
    assert "2 snapshots generated" in created.stdout
    stored = snapshot_files(project)
    assert sorted(stored) == [DOT_FILE, TRACE_FILE]
    assert stored[TRACE_FILE].decode() == doc_blocks("text")[0]
    assert stored[DOT_FILE].decode().startswith("digraph statetools {\n")
    assert "tool_search -> tool_report" in stored[DOT_FILE].decode()

    # another hash seed, the same text: nothing depends on dict or set ordering
    again = pytest_in(project, seed="2")
    assert again.returncode == 0, again.stdout
    assert "3 passed" in again.stdout
    assert snapshot_files(project) == stored

    # the unlock rule changes: the test fails with a readable diff
    test_file = project / "test_research.py"
    source = test_file.read_text(encoding="utf-8")
    assert source.count("\n        .unlocked_by(search)") == 1
    test_file.write_text(source.replace("\n        .unlocked_by(search)", ""), encoding="utf-8")
    changed = pytest_in(project, seed="3")
    assert changed.returncode == 1
    assert "2 failed, 1 passed" in changed.stdout
    diff = [re.sub(r"^E\s+", "", line).strip() for line in changed.stdout.splitlines()]
    for expected in doc_blocks("text")[1].splitlines():
        assert expected.strip() in diff
    assert snapshot_files(project) == stored

    accepted = pytest_in(project, "--snapshot-update", seed="4")
    assert accepted.returncode == 0, accepted.stdout
    assert "2 snapshots updated" in accepted.stdout
    updated = snapshot_files(project)
    assert updated[TRACE_FILE].decode().splitlines()[:2] == [
        "turn 1 | visible: report, search",
        "  call report {} -> text",
    ]
    assert "tool_search -> tool_report" not in updated[DOT_FILE].decode()
    passing = pytest_in(project, seed="5")
    assert passing.returncode == 0, passing.stdout
    assert "3 passed" in passing.stdout


def test_without_syrupy_only_snapshot_tests_fail(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Our site-packages without syrupy: statetools imports, its plugin loads, and only
    the tests using a snapshot fixture fail, saying what to install."""
    site_dir = tmp_path_factory.mktemp("site-packages")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith("syrupy"):
            (site_dir / entry.name).symlink_to(entry)
    result = pytest_in(project, "-o", "addopts=", site_dir=site_dir)
    assert result.returncode == 1, result.stdout
    assert "1 passed, 2 errors" in result.stdout
    assert (
        "the trace_snapshot fixture needs syrupy, which is not installed. "
        "Install it with: pip install 'statetools[testing]'"
    ) in result.stdout
    assert "the dot_snapshot fixture needs syrupy" in result.stdout
