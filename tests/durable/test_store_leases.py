"""A session is run by one runner at a time: a second runner is refused, naming the
owner, before it takes a step; a crashed owner's lease expires; a runner whose lease
was taken over cannot save (fencing)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import statetools as st
from statetools.durable.failures import SessionBusy
from statetools.loop.sessions import SavedRun
from statetools.models import ScriptedModel

APP = Path(__file__).with_name("lease_app.py")
BUSY_HINT = (
    "Hint: wait until that run ends, or stop it; if its process died, the session is "
    "free once its lease expires (lease_seconds after its last sign of life)"
)


def started_session(tmp_path: Path) -> Path:
    """A session that did step 1, then stopped (its model ran out of steps)."""
    path = tmp_path / "s.db"
    step = st.Tool.create("step", "Do one step of the work.", lambda n: f"step {n} done")
    with st.SqliteStore(path) as store, pytest.raises(st.StatetoolsError):
        st.ToolLoop(ScriptedModel([("step", {"n": 1})])).run(
            "Do the work.", tools=[step], session="s1", store=store
        )
    (tmp_path / "log").write_text("first step 1\n")
    return path


def runner(tmp_path: Path, owner: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(APP), str(tmp_path / "s.db"), str(tmp_path / "log"), owner],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        text=True,
    )


def wait_for(condition: object, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_second_process_continuing_a_session_is_refused_naming_the_owner(
    tmp_path: Path,
) -> None:
    path = started_session(tmp_path)
    log = tmp_path / "log"
    go_on = tmp_path / "go-on"
    first = runner(tmp_path, "runner-a", HOLD=f"3:{go_on}")  # step 3 waits for go-on
    wait_for(lambda: "runner-a step 2" in log.read_text())
    second = runner(tmp_path, "runner-b")
    out_b, _ = second.communicate(timeout=120)
    go_on.touch()
    out_a, _ = first.communicate(timeout=120)
    assert (first.returncode, out_a) == (0, "done\n")
    assert (second.returncode, out_b) == (
        2,
        f"{path}: session 's1' is being run by runner-a (lease 2) {BUSY_HINT}\n",
    )
    assert log.read_text() == (
        "first step 1\nrunner-a step 2\nrunner-a step 3\nrunner-a step 4\nrunner-a step 5\n"
    )
    again = runner(tmp_path, "runner-b")  # the run ended: the session is free
    assert again.communicate(timeout=120) == ("done\n", None)
    result = st.SqliteStore(path).load("s1")
    assert [m.content for m in result.messages if m.role == "tool"] == [
        f"step {n} done" for n in range(1, 6)
    ]


def test_a_crashed_owner_on_this_machine_frees_the_session_at_once(tmp_path: Path) -> None:
    path = started_session(tmp_path)
    log = tmp_path / "log"
    crashed = runner(tmp_path, "runner-a", CRASH="3")
    assert crashed.wait(timeout=120) == 3  # died while step 3 ran, holding a 30 s lease
    after = runner(tmp_path, "runner-b")
    assert after.communicate(timeout=120) == ("done\n", None)
    assert log.read_text() == (
        "first step 1\nrunner-a step 2\nrunner-b step 3\nrunner-b step 4\nrunner-b step 5\n"
    )
    assert st.SqliteStore(path).load("s1").outcome == "answer"


def test_a_lease_of_a_runner_elsewhere_expires(tmp_path: Path) -> None:
    now = [100.0]
    path = tmp_path / "s.db"
    here = st.SqliteStore(path, owner="here", clock=lambda: now[0], lease_seconds=30)
    with sqlite3.connect(path) as connection:  # a runner on another machine, until 130
        connection.execute(
            "INSERT INTO statetools_leases VALUES ('s1', 'elsewhere', 1, 130.0, 'far', 7)"
        )
    now[0] = 129.0
    with pytest.raises(SessionBusy) as busy:
        here.claim("s1")
    assert (
        str(busy.value) == f"{path}: session 's1' is being run by elsewhere (lease 1) {BUSY_HINT}"
    )
    now[0] = 130.5
    assert here.claim("s1") == 2


def test_a_runner_whose_lease_was_taken_over_cannot_save(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    slow = st.SqliteStore(path, owner="slow")
    other = st.SqliteStore(path, owner="other")  # this process too: it may take over
    result = st.ToolLoop(ScriptedModel(["hi"])).run("hello", tools=[])
    assert slow.claim("s1") == 1
    assert other.claim("s1") == 2
    with pytest.raises(st.StatetoolsError) as lost:
        slow.save("s1", SavedRun("r1", result))
    assert str(lost.value) == (
        f"{path}: session 's1' was taken over by other (lease 2) after this runner's "
        "lease 1; this step was not saved Hint: the other runner goes on with the "
        "session; this run must stop"
    )
    assert other.saved("s1") is None
    other.save("s1", SavedRun("r2", result))
    assert slow.load("s1") == result
    slow.close()
    other.close()


def test_a_finished_session_asked_for_nothing_gives_its_claim_back(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = st.SqliteStore(path, owner="a")
    loop = st.ToolLoop(ScriptedModel(["hi"]))
    loop.run("hello", tools=[], session="s1", store=store)
    assert loop.run(None, tools=[], session="s1", store=store).output == "hi"
    assert st.SqliteStore(path, owner="b").claim("s1") == 3
