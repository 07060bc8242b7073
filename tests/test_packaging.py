"""The editable install as a user's project sees it: a path entry that mypy follows."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# `make test` has just checked statetools itself into the checkout's cache; `make
# test-lowest` (another venv, run at the same time by .ci/run) names one of its own
MYPY_CACHE = str(Path(os.environ.get("MYPY_CACHE_DIR") or ROOT / ".mypy_cache").resolve())

USER_CODE = '''\
import statetools as st
from statetools.models import ScriptedModel


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


loop = st.ToolLoop(ScriptedModel([("add", {"a": 1, "b": 2}), "3"]))
result: st.LoopResult = loop.run("1 + 2?", tools=[add])
answer: str = str(result.output)
'''


def test_the_editable_install_is_a_plain_path_entry() -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    entries = [
        line.strip()
        for pth in site.glob("*.pth")
        for line in pth.read_text(encoding="utf-8").splitlines()
    ]

    assert str(ROOT) in entries
    assert not list(site.glob("__editable__*statetools*finder.py"))


def test_mypy_strict_passes_on_a_user_file_outside_the_checkout(tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(USER_CODE, encoding="utf-8")

    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", MYPY_CACHE, "user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )

    assert (done.returncode, done.stdout) == (0, "Success: no issues found in 1 source file\n")


STREAM_CODE = '''\
import statetools as st
from statetools.models import ScriptedModel


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


loop = st.ToolLoop(ScriptedModel(["3"]))
fine: st.RunStream = loop.stream("1 + 2?", tools=[add], output_type=int, context={"k": 1})
typo = loop.stream("1 + 2?", tool=[add])
wrong = loop.stream("1 + 2?", session=42)
'''


def test_mypy_sees_the_parameters_of_stream(tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(STREAM_CODE, encoding="utf-8")

    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", MYPY_CACHE, "user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )

    assert (done.returncode, done.stdout.splitlines()) == (
        1,
        [
            'user.py:12: error: Unexpected keyword argument "tool" for "stream" of "ToolLoop"; '
            'did you mean "tools"?  [call-arg]',
            'user.py:12: note: "stream" defined in "statetools.loop.toolloop"',
            'user.py:13: error: Argument "session" to "stream" of "ToolLoop" has incompatible '
            'type "int"; expected "str | None"  [arg-type]',
            "Found 2 errors in 1 file (checked 1 source file)",
        ],
    )
