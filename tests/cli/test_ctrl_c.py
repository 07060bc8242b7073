"""Ctrl-C during a synchronous tool: `statetools run` says at once that it waits for the
tool, saves what the run had, and a second Ctrl-C ends the process at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SLOW_TOOLS = '''\
import time
from pathlib import Path


def wait() -> str:
    """Wait for the slow system."""
    Path("started").write_text("yes")
    time.sleep(60)
    return "finally"
'''

DESIGN = """\
kind: playbook
name: slow
description: Slow things
tools:
  - slow_tools:wait
prompt: go
script:
  - call: {name: wait, arguments: {}}
  - answer: done
"""


def _as_a_terminal_would() -> None:
    """Ctrl-C reaches the process as in a terminal: SIGINT neither ignored nor blocked."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def test_a_second_ctrl_c_ends_the_run_while_a_synchronous_tool_still_runs(
    tmp_path: Path,
) -> None:
    (tmp_path / "slow_tools.py").write_text(SLOW_TOOLS)
    (tmp_path / "slow.yaml").write_text(DESIGN)
    err = tmp_path / "err.txt"
    script = Path(sys.executable).with_name("statetools")  # the command the package installs
    command = [str(script), "run", "slow.yaml", "--save-trace", "t.json"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    with err.open("w") as err_file:
        process = subprocess.Popen(
            command,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=err_file,
            env=env,
            preexec_fn=_as_a_terminal_would,
        )
        try:
            started = _wait_for(lambda: (tmp_path / "started").exists(), 60)
            assert started, err.read_text()
            process.send_signal(signal.SIGINT)
            said = "interrupted: waiting for tool wait to return; Ctrl-C again to exit now\n"
            assert _wait_for(lambda: err.read_text() == said, 10), err.read_text()
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=10) == 130  # not the 60 s the tool sleeps
        finally:
            process.kill()
            process.wait()

    trace = json.loads((tmp_path / "t.json").read_text())
    assert [event["type"] for event in trace] == [
        "run_started",
        "iteration_started",
        "model_responded",
        "tool_started",
        "tool_answered",
        "run_finished",
    ]
    assert trace[-1]["outcome"] == "cancelled"
