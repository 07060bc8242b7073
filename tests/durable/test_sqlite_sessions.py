"""Sessions in a SqliteStore: saved after every step, continued exactly after a crash."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import statetools as st
from statetools.models import ScriptedModel

APP = Path(__file__).with_name("session_app.py")


def run_app(
    tmp_path: Path,
    db: str,
    crash: str = "",
    prompt: str | None = "Do the work.",
    design: str = "plain",
) -> int:
    env = {**os.environ, "CRASH": crash, "DESIGN": design}
    args = [sys.executable, str(APP), str(tmp_path / db), str(tmp_path / f"{db}.log")]
    if prompt is not None:
        args.append(prompt)
    return subprocess.run(args, env=env, cwd=tmp_path, timeout=120).returncode


def same_run(a: st.LoopResult, b: st.LoopResult) -> None:
    assert st.messages_to_json(a.messages) == st.messages_to_json(b.messages)
    assert a.state == b.state
    assert a.trace.to_json() == b.trace.to_json()
    assert (a.output, a.outcome, a.iterations) == (b.output, b.outcome, b.iterations)


def requests(tmp_path: Path, db: str) -> str:
    """The model requests the app's processes made, one line each."""
    return (tmp_path / f"{db}.requests").read_text()


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory: pytest.TempPathFactory) -> st.LoopResult:
    folder = tmp_path_factory.mktemp("unbroken")
    assert run_app(folder, "plain.db") == 0
    assert (folder / "plain.db.log").read_text() == ("step 1\nstep 2\nstep 3\nreport\n")
    assert requests(folder, "plain.db") == "request 1\nrequest 2\nrequest 3\nrequest 4\n"
    return st.SqliteStore(folder / "plain.db").load("s1")


def test_an_unbroken_session_is_saved_whole(unbroken: st.LoopResult) -> None:
    assert unbroken.output == "All done."
    assert unbroken.outcome == "answer"
    assert [m.role for m in unbroken.messages] == [
        "user", "assistant", "tool", "tool", "tool", "assistant", "tool",
        "assistant", "tool", "tool", "assistant",
    ]  # fmt: skip
    assert [m.content for m in unbroken.messages[8:10]] == ["report written", "filed"]


@pytest.mark.parametrize("crash", ["call:2", "turn:2", "turn:3", "call:1"])
def test_a_crashed_session_continues_exactly_as_the_unbroken_run(
    tmp_path: Path, unbroken: st.LoopResult, crash: str
) -> None:
    assert run_app(tmp_path, "s.db", crash) == 3  # died on the way
    partial = st.SqliteStore(tmp_path / "s.db").load("s1")
    assert partial.outcome == "running"
    assert run_app(tmp_path, "s.db", prompt=None) == 0  # continue: prompt None
    same_run(st.SqliteStore(tmp_path / "s.db").load("s1"), unbroken)
    # Every completed call ran once; the call that was running when it died ran again
    # (it died before its side effect, so the log shows it once too).
    assert (tmp_path / "s.db.log").read_text() == "step 1\nstep 2\nstep 3\nreport\n"
    # No response was asked for twice (a crash on a turn comes before its request).
    assert requests(tmp_path, "s.db") == "request 1\nrequest 2\nrequest 3\nrequest 4\n"


ENDS = {
    "plain": ("All done.", "answer", "step 1\nstep 2\nstep 3\nreport\n", 4),
    "direct": ({"delivered": 2}, "return_direct", "step 1\nstep 2\ndeliver\nstep 3\n", 2),
    "machine": ("approved", "final_state", "step 1\nstep 2\napprove\nstep 3\n", 2),
}


@pytest.fixture(scope="module")
def unbroken_ends(tmp_path_factory: pytest.TempPathFactory) -> dict[str, st.LoopResult]:
    folder = tmp_path_factory.mktemp("ends")
    results = {}
    for design, (output, outcome, log, asked) in ENDS.items():
        assert run_app(folder, f"{design}.db", design=design) == 0
        result = st.SqliteStore(folder / f"{design}.db").load("s1")
        assert (result.output, result.outcome) == (output, outcome)
        assert (folder / f"{design}.db.log").read_text() == log
        assert len(requests(folder, f"{design}.db").splitlines()) == asked
        results[design] = result
    return results


@pytest.mark.parametrize(
    ("design", "crash"),
    [
        ("direct", "call:3"),  # the return_direct call answered, a later call of its response not
        ("direct", "finish:1"),  # every call answered, the end not saved
        ("machine", "call:3"),
        ("machine", "finish:1"),
        ("plain", "finish:1"),  # the final answer saved, the end not
    ],
)
def test_a_session_that_reached_its_end_finishes_without_asking_the_model_again(
    tmp_path: Path, unbroken_ends: dict[str, st.LoopResult], design: str, crash: str
) -> None:
    assert run_app(tmp_path, "s.db", crash, design=design) == 3
    assert st.SqliteStore(tmp_path / "s.db").load("s1").outcome == "running"
    assert run_app(tmp_path, "s.db", prompt=None, design=design) == 0
    same_run(st.SqliteStore(tmp_path / "s.db").load("s1"), unbroken_ends[design])
    *_, log, asked = ENDS[design]
    assert (tmp_path / "s.db.log").read_text() == log
    assert len(requests(tmp_path, "s.db").splitlines()) == asked


def test_a_call_whose_answer_was_saved_never_runs_again(tmp_path: Path) -> None:
    assert run_app(tmp_path, "s.db", "call:3") == 3
    assert (tmp_path / "s.db.log").read_text() == "step 1\nstep 2\n"
    saved = st.SqliteStore(tmp_path / "s.db").load("s1")
    assert [m.content for m in saved.messages if m.role == "tool"] == [
        "step 1 done\n[now available: report]",
        "step 2 done",
    ]
    assert run_app(tmp_path, "s.db", prompt=None) == 0
    assert (tmp_path / "s.db.log").read_text() == "step 1\nstep 2\nstep 3\nreport\n"


@st.llm_tool("Look a word up.")
def lookup(word: str) -> str:
    return f"{word}: a small word"


def test_continue_with_a_new_message_and_list_load_delete(tmp_path: Path) -> None:
    store = st.SqliteStore(tmp_path / "runs.db", clock=lambda: 100.0)
    model = ScriptedModel([("lookup", {"word": "cat"}), "A cat is small.", "Yes, very."])
    loop = st.ToolLoop(model, id_factory=lambda: "r1")
    first = loop.run("What is a cat?", tools=[lookup], session="chat", store=store)
    assert first.output == "A cat is small."
    again = loop.run(None, tools=[lookup], session="chat", store=store)
    assert again == store.load("chat")  # finished: the saved result, no model call
    assert len(model.requests) == 2
    second = loop.run("Really?", tools=[lookup], session="chat", store=store)
    assert second.output == "Yes, very."
    assert [m.content for m in second.messages if m.role == "user"] == [
        "What is a cat?",
        "Really?",
    ]
    assert [e.type for e in second.trace].count("run_started") == 2
    assert store.sessions() == [st.SessionInfo("chat", "answer", 3, 100.0)]
    assert store.delete("chat") is True
    assert store.delete("chat") is False
    with pytest.raises(st.StatetoolsError) as error:
        store.load("chat")
    assert (error.value.message, error.value.path) == ("no session 'chat'", str(store.path))


def test_what_cannot_continue_a_session_is_refused(tmp_path: Path) -> None:
    store = st.SqliteStore(tmp_path / "runs.db")
    loop = st.ToolLoop(ScriptedModel(["hi"]))
    with pytest.raises(st.StatetoolsError) as error:
        loop.run(None, session="nope", store=store)
    assert error.value.message == "there is no saved session 'nope' to continue"
    with pytest.raises(st.StatetoolsError) as error:
        loop.run("hi", session="s")
    assert error.value.message == "session= and store= go together"
    with pytest.raises(st.StatetoolsError) as error:
        loop.run(None)
    assert error.value.message == "a run needs a prompt"


def test_a_newer_or_corrupt_store_file_is_refused_clearly(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    st.SqliteStore(newer).close()
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE statetools_meta SET value = '99'")
    with pytest.raises(st.StatetoolsError) as error:
        st.SqliteStore(newer)
    assert (error.value.path, error.value.message) == (
        str(newer),
        "the session store was written by a newer statetools (store version 99; this one reads 2)",
    )
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(st.StatetoolsError) as error:
        st.SqliteStore(corrupt)
    assert (error.value.path, error.value.message) == (
        str(corrupt),
        "not a session store: file is not a database",
    )


def test_a_damaged_saved_session_is_a_spec_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    store = st.SqliteStore(path)
    st.ToolLoop(ScriptedModel(["hi"])).run("hello", session="s", store=store)
    store.close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE statetools_runs SET head = '{\"messages\": [null]}'")
    with pytest.raises(st.SpecError) as error:
        st.SqliteStore(path).load("s")
    assert error.value.path == f"{path}: session 's'"
    assert error.value.message == "a saved session is damaged: KeyError: 'output'"


def test_import_statetools_loads_sqlite_only_when_a_store_is_used() -> None:
    code = (
        "import sys, statetools as st\n"
        "print('sqlite3' in sys.modules)\n"
        "st.SqliteStore\n"
        "print('sqlite3' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "False\nTrue\n"
