"""A worker killed in the middle of a tool call: another worker takes the session over
and it ends exactly as a session that was never interrupted."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.engine.state import DisclosureState
from statetools.messages import messages_from_json
from statetools.temporal import SessionSettings, session_worker, start_session, visible_tools
from tests.temporal.comparing import comparable
from tests.temporal.conftest import DevServer
from tests.temporal.kill_design import DESIGN, MODEL

REFERENCE = "tests.temporal.kill_design:DESIGN"
ROOT = Path(__file__).resolve().parents[2]
PROMPT = "Do the three steps and file the report."
SETTINGS = SessionSettings(heartbeat_timeout=2.0)
FINAL = "Three steps done, the report is filed."


def _start_worker(server: DevServer, queue: str, folder: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "statetools.cli",
        "worker",
        REFERENCE,
        "--temporal",
        server.target,
        "--task-queue",
        queue,
        "--model-from",
        "tests.temporal.kill_design:MODEL",
        "--sticky-timeout",
        "1",
    ]
    with (folder / "worker.err").open("wb") as errors:
        return subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errors, env=dict(os.environ)
        )


async def _until_logged(line: str, folder: Path, worker: subprocess.Popen[bytes]) -> None:
    log = folder / "log"
    deadline = time.monotonic() + 60
    while not (log.exists() and line in log.read_text(encoding="utf-8").splitlines()):
        if worker.poll() is not None:
            errors = (folder / "worker.err").read_text(encoding="utf-8")
            pytest.fail(f"worker A exited with {worker.returncode}:\n{errors}")
        if time.monotonic() > deadline:
            pytest.fail(f"worker A never logged {line!r}")
        await asyncio.sleep(0.02)


def test_a_killed_worker_is_replaced_and_the_session_ends_as_an_unbroken_one(
    dev_server: DevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATETOOLS_KILL_DIR", str(tmp_path))
    (tmp_path / "hold").touch()
    broken_id, unbroken_id = f"broken-{uuid.uuid4().hex}", f"unbroken-{uuid.uuid4().hex}"
    queue = f"kill-{uuid.uuid4().hex}"
    worker_a = _start_worker(dev_server, queue, tmp_path)

    async def main() -> tuple[Any, ...]:
        client = dev_server.env.client
        try:
            handle = await start_session(
                client, REFERENCE, PROMPT, id=broken_id, task_queue=queue, settings=SETTINGS
            )
            await _until_logged(f"{broken_id} step 2 started by {worker_a.pid}", tmp_path, worker_a)
        finally:
            worker_a.send_signal(signal.SIGKILL)
            worker_a.wait()
        (tmp_path / "hold").unlink()
        async with session_worker(client, queue, [REFERENCE], MODEL):
            broken = await handle.result()
            broken_tools = await visible_tools(handle)
            unbroken_handle = await start_session(
                client, REFERENCE, PROMPT, id=unbroken_id, task_queue=queue, settings=SETTINGS
            )
            unbroken = await unbroken_handle.result()
            unbroken_tools = await visible_tools(unbroken_handle)
        return broken, broken_tools, unbroken, unbroken_tools

    broken, broken_tools, unbroken, unbroken_tools = dev_server.loop.run_until_complete(main())
    log = (tmp_path / "log").read_text(encoding="utf-8").splitlines()
    me = os.getpid()
    a = worker_a.pid
    assert [line.removeprefix(broken_id) for line in log if line.startswith(broken_id)] == [
        " model 1",
        f" step 1 started by {a}",
        " step 1 done",
        f" step 2 started by {a}",
        f" step 2 started by {me}",  # the interrupted call runs again, on B
        " step 2 done",
        f" step 3 started by {me}",
        " step 3 done",
        " model 2",
        " report",
        " model 3",
        " model 4",
    ]
    assert [line.removeprefix(unbroken_id) for line in log if line.startswith(unbroken_id)] == [
        " model 1",
        f" step 1 started by {me}",
        " step 1 done",
        f" step 2 started by {me}",
        " step 2 done",
        f" step 3 started by {me}",
        " step 3 done",
        " model 2",
        " report",
        " model 3",
        " model 4",
    ]
    assert broken.output == FINAL
    assert broken.answers == unbroken.answers == [FINAL]
    assert broken.messages == unbroken.messages
    assert broken.state == unbroken.state
    assert (broken.iterations, broken.runs, broken.usage) == (
        unbroken.iterations,
        unbroken.runs,
        unbroken.usage,
    )
    assert broken_tools == unbroken_tools == ["step", "report", "file_report"]
    assert comparable(broken.trace) == comparable(unbroken.trace)

    local = st.ToolLoop(MODEL).run(PROMPT, tools=DESIGN)
    assert messages_from_json(broken.messages) == list(local.messages)
    assert DisclosureState.from_json(broken.state) == local.state
    assert comparable(broken.trace) == comparable(local.trace)
    assert [m.content for m in local.messages if m.role == "tool"] == [
        "step 1 done\n[now available: report]",
        "step 2 done",
        "step 3 done",
        "Tools now available: file_report.",
        "report written",
        "filed",
    ]
